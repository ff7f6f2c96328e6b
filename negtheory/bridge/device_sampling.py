r"""Uniform negatives drawn on the model's device, exactly, without rejection (``RNS(on_device=True)``).

RNS draws each negative uniformly among the items a user has *not* interacted with in training
(thesis §4.5.1.2). On the host the package draws with numpy (:func:`negtheory.recsys.samplers.sample_uninteracted`);
with hundreds of negatives per pair on Gowalla-sized data (40 981 items, 810 128 training pairs)
that host work, not the GPU, sets the pace. Here the draw is an exact inverse CDF on the device.

For a user with sorted training items :math:`t_0 < t_1 < \dots < t_{m-1}` among n items, let
:math:`a_j = t_j - j` (non-decreasing: the number of free items below :math:`t_j`). The r-th free
item (0-based, :math:`0 \le r < n - m`) is

.. math:: f(r) = r + \#\{j : a_j \le r\},

since every training item at or below the answer shifts it up by one. So a uniform integer r in
[0, n − m) gives a uniform free item, and the count is one ``searchsorted`` in the sorted keys
:math:`u (n + 1) + a_j` of all users at once (each user's :math:`a_j \le n - m < n + 1`, so the
keys of different users never interleave). Memory: one int64 key per training pair on the device.

The law equals the host sampler's; the random stream does not (torch's generator, not numpy's).
"""

from __future__ import annotations

import numba
import numpy as np
import torch

__all__ = ["UniformFreeSampler"]


@numba.njit(cache=True)
def _free_items(a, indptr, users, r):
    """f(r) = r + #{j in u's row : a_j <= r} (module notes), by a binary search within each user's row.

    The same integers as the one ``searchsorted`` over all users' keys, with the search confined to a
    row of a few dozen entries instead of every training pair (a few cache lines instead of ~20 misses).
    """
    out = np.empty(r.shape, dtype=np.int64)
    for b in range(r.shape[0]):
        row = a[indptr[users[b]] : indptr[users[b] + 1]]  # a view, sorted
        out[b] = r[b] + np.searchsorted(row, r[b], side="right")
    return out


class UniformFreeSampler:
    """Uniform draws among each user's non-interacted items, on a torch device (module notes).

    Parameters
    ----------
    csr : (indptr, indices)
        The training items of each user (:meth:`negtheory.recsys.Interactions.train_csr`); a
        row's items need not be sorted, but must be distinct.
    n_items : int
        Number of items.
    device : str or torch.device
        Where the keys live and the draws are made (default ``"cpu"``).

    Examples
    --------
    >>> import numpy as np, torch
    >>> from negtheory.bridge.device_sampling import UniformFreeSampler
    >>> s = UniformFreeSampler((np.array([0, 2, 2]), np.array([3, 1])), n_items=5)
    >>> s.free_item(torch.tensor([0, 0, 0, 1]), torch.tensor([0, 1, 2, 4])).tolist()
    [0, 2, 4, 4]
    >>> d = s.draw(torch.tensor([0, 1]), 1000, torch.Generator().manual_seed(0))
    >>> sorted(set(d[0].tolist())), sorted(set(d[1].tolist()))
    ([0, 2, 4], [0, 1, 2, 3, 4])
    """

    def __init__(self, csr, n_items: int, device: str | torch.device = "cpu") -> None:
        indptr = np.asarray(csr[0], dtype=np.int64)
        indices = np.asarray(csr[1], dtype=np.int64)
        n_items = int(n_items)
        if indptr.ndim != 1 or indptr.size < 1 or indices.ndim != 1 or indptr[-1] != indices.size:
            raise ValueError("csr must be a CSR pair (indptr of length n_users + 1, indices)")
        if indices.size and (indices.min() < 0 or indices.max() >= n_items):
            raise ValueError(f"csr holds item ids outside [0, n_items = {n_items})")
        deg = np.diff(indptr)
        rows = np.repeat(np.arange(deg.size, dtype=np.int64), deg)
        order = np.lexsort((indices, rows))
        items = indices[order]
        if items.size > 1 and np.any((items[1:] == items[:-1]) & (rows[1:] == rows[:-1])):
            raise ValueError("csr lists an item twice for one user")
        pos = np.arange(items.size, dtype=np.int64) - np.repeat(indptr[:-1], deg)
        self.stride = n_items + 1
        self.n_items = n_items
        dev = torch.device(device)
        self.keys = torch.from_numpy(rows * self.stride + (items - pos)).to(dev)
        self.start = torch.from_numpy(indptr[:-1].copy()).to(dev)
        self.n_free = torch.from_numpy(n_items - deg).to(dev)
        # whether any user has no free item: only then must a draw check its users (a device-to-host read)
        self._any_full = bool(np.any(deg >= n_items))
        self.device = dev
        # on the CPU, the same count by a search within each row (_free_items)
        self._host = (
            (items - pos, indptr.copy()) if dev.type == "cpu" else None
        )  # indptr may alias the caller's

    def free_item(self, users: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        """The ``r``-th non-interacted item (0-based, in increasing order) of each user.

        Parameters
        ----------
        users : LongTensor, shape [B] or [B, 1]
            User ids.
        r : LongTensor, broadcastable with ``users``
            Ranks among the user's free items, in [0, n_free).

        Returns
        -------
        LongTensor
            The items :math:`f(r) = r + \\#\\{j: a_j \\le r\\}` (module notes).
        """
        q = users * self.stride + r
        return r + torch.searchsorted(self.keys, q, right=True) - self.start[users]

    def draw(
        self, users: torch.Tensor, n: int, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """``n`` uniform non-interacted items per user, with replacement.

        Parameters
        ----------
        users : LongTensor, shape [B]
            User ids (on this sampler's device).
        n : int
            Draws per user, at least 1.
        generator : torch.Generator, optional
            A generator on this sampler's device (None: torch's default one).

        Returns
        -------
        LongTensor, shape [B, n]
            The items.

        Raises
        ------
        ValueError
            A user has interacted with every item (no negative exists).
        """
        if int(n) < 1:
            raise ValueError(f"n must be >= 1, got {n!r}")
        free = self.n_free[users]
        if self._any_full and users.numel() and bool((free <= 0).any()):
            raise ValueError("a user has interacted with every item: no negative to draw")
        # float64 uniforms: (2^53 levels) the rank r is uniform on [0, n_free) to within 2^-53 * n_free
        u01 = torch.rand(
            (users.shape[0], int(n)), generator=generator, device=self.device, dtype=torch.float64
        )
        r = torch.minimum((u01 * free[:, None]).long(), free[:, None] - 1)
        if self._host is not None:
            u = np.ascontiguousarray(users.numpy(), dtype=np.int64)
            return torch.from_numpy(_free_items(self._host[0], self._host[1], u, r.numpy()))
        return self.free_item(users[:, None], r)
