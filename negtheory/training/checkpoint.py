r"""Resumable training: the state of a :func:`~negtheory.training.fit` run, saved after every evaluation.

``fit(..., checkpoint="run.pt")`` (mini-batch engine) saves, after each evaluation, everything the
next epoch depends on: the model's parameters, the optimizer's moments, the learning-rate
schedule's position, the run's numpy stream, the torch generators (on-device negatives, dropout
masks), SRNS's memories, the history so far and the model-selection state. Calling ``fit`` again
with the same arguments continues after the saved epoch and returns what the uninterrupted call
returns: the same history and final embeddings, bit for bit on the same machine and device (the
tests check it for each sampler of the engine). So a run interrupted by a stopped session, a
:class:`~negtheory.recsys.loop.TimeBudget` or Ctrl-C loses at most the epochs since its last
evaluation.

What must match
    A checkpoint carries a key: the specs (model, loss, sampler, optimizer, evaluation), the seed,
    the device type and a SHA-256 of the split's training, validation and test pairs. A call whose
    key differs raises a ``ValueError`` that names the differing entries, so a checkpoint never
    seeds a different run. The epoch count is *not* in the key: a call with more ``epochs``
    continues a shorter run, which equals the longer run because nothing in the specs depends on
    the epoch count (the learning-rate milestones are absolute epochs; BNS's ``lam_schedule``,
    whose length is the epoch count, is in the key). The one difference is in the history: a
    shorter run's last epoch is evaluated even when it is off the ``every`` grid, and that row
    stays. A call with fewer epochs than the checkpoint holds raises.

The file
    One ``torch.save`` archive, replaced atomically (written beside it, then renamed), read back
    with ``torch.load(weights_only=True)``: tensors, numbers, strings, lists and dicts only, so
    loading a file runs no pickled code. About three times the size of the embedding tables
    (parameters and Adam's two moments): 55 MB for MF with d = 64 on Gowalla.

Examples
--------
>>> import tempfile, os
>>> import numpy as np
>>> from negtheory.recsys import load_split
>>> from negtheory.training import fit, MF, InfoNCE, Adam, Evaluation
>>> pairs = np.unique(np.random.default_rng(0).integers(0, [20, 30], size=(300, 2)), axis=0)
>>> d = load_split(pairs[:200], pairs[200:])
>>> kw = dict(model=MF(dim=4), loss=InfoNCE(negatives=4), optimizer=Adam(batch_size=32),
...           evaluation=Evaluation(ks=(5,)), rng=1)
>>> path = os.path.join(tempfile.mkdtemp(), "run.pt")
>>> short = fit(d, epochs=2, checkpoint=path, **kw)   # saved after epochs 1 and 2
>>> longer = fit(d, epochs=4, checkpoint=path, **kw)  # continues at epoch 3
>>> straight = fit(d, epochs=4, **kw)
>>> [h["epoch"] for h in longer.history], np.array_equal(longer.user_emb, straight.user_emb)
([1, 2, 3, 4], True)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FitCheckpoint"]

FORMAT = "negtheory.fit.checkpoint"
VERSION = 1


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python numbers and torch tensors (what weights_only reads)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        import torch

        return torch.from_numpy(value.copy())
    return value


def pairs_digest(*arrays: np.ndarray) -> str:
    """SHA-256 over the shapes and bytes of int64 copies of ``arrays`` (the split's pairs)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=np.int64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


class FitCheckpoint:
    """The file that keeps a run's state between calls (the ``checkpoint`` of :func:`~negtheory.recsys.loop.train_loop`).

    Parameters
    ----------
    path : str or os.PathLike
        The file; it need not exist (its folder must).
    key : dict
        JSON-ready description of the run; a saved state with another key is refused (module notes).

    Raises
    ------
    ValueError
        ``path`` is a folder or its folder does not exist.
    """

    def __init__(self, path: str | os.PathLike[str], key: dict[str, Any]) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"checkpoint: {self.path} is a folder, not a file")
        if not self.path.parent.is_dir():
            raise ValueError(f"checkpoint: the folder {self.path.parent} does not exist")
        self.key = json.loads(
            json.dumps(key, sort_keys=True)
        )  # a JSON round trip: what a loaded key compares to

    def load(self) -> dict[str, Any] | None:
        """The saved state, or None when there is no file yet.

        Raises
        ------
        ValueError
            The file is not a negtheory checkpoint of this version, or its key differs from this run's.
        """
        if not self.path.exists():
            return None
        import torch

        try:
            state = torch.load(self.path, map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same message
            raise ValueError(
                f"checkpoint {self.path}: not readable as a negtheory checkpoint ({exc})"
            ) from None
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise ValueError(f"checkpoint {self.path}: not a negtheory fit checkpoint")
        if state.get("version") != VERSION:
            raise ValueError(
                f"checkpoint {self.path}: format version {state.get('version')!r}, this negtheory reads {VERSION}"
            )
        saved = json.loads(state["key"])
        if saved != self.key:
            diff = sorted(k for k in set(saved) | set(self.key) if saved.get(k) != self.key.get(k))
            raise ValueError(
                f"checkpoint {self.path}: saved by another run (it differs in {', '.join(diff)}); "
                "delete the file or give another path"
            )
        return state

    def save(self, state: dict[str, Any]) -> None:
        """Write ``state`` with the format, version and key, replacing the file atomically."""
        import torch

        tmp = self.path.with_name(self.path.name + ".tmp")
        payload = {
            "format": FORMAT,
            "version": VERSION,
            "key": json.dumps(self.key, sort_keys=True),
            **_plain(state),
        }
        torch.save(payload, tmp)
        os.replace(tmp, self.path)
