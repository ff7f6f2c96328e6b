r"""Mini-batch training of MF recommenders with the contrastive losses of Liu Bin's thesis ch. 5-6 (torch).

A plain loop over the four parts of :mod:`negtheory.recsys` (data, samplers, losses, evaluation):
each training pair (u, i) of a shuffled batch gets N negatives drawn uniformly from the items u
has not interacted with in training (:func:`~negtheory.recsys.samplers.sample_uninteracted`)
and M extra positives from u's training items
(:func:`~negtheory.recsys.samplers.sample_extra_positives`); the scores
s = <w_u, h_j> / t feed one loss of :data:`LOSSES`:

``bpr``
    :math:`-\ln\sigma(s^+ - s_1)` on the first negative (:func:`negtheory.bridge.functional.bpr`);
``infonce``
    eq. 6.46 over the N negatives;
``dcl``, ``hcl``
    eq. 6.47 and Robinson et al.'s reweighting (β), with p̄ the mean over the anchor's positive
    *and* the M extra positives and the clamp N·e^{−1/t}, as in the released code;
``dpl``
    eq. 5.17-5.18 with the M extra positives (P̂_PN clamped at ``dpl_eps``);
``bcl``
    eq. 6.31 with the estimator of eq. 6.48 (:math:`N\hat\theta = \sum_i \omega_i e^{s_i}` inside
    InfoNCE);
``bcl_released``
    the released recommendation code's form :math:`-\ln\sigma\big(s^+ - \sum_i \omega_i e^{s_i}\big)`,
    kept for comparison.

Defaults follow the released code of ch. 5-6 (the thesis text does not state them): MF with
d = 32 and Xavier-normal initialisation, Adam with lr 1e-3 and weight decay 1e-5, batch 1024,
N = 5 negatives, M = 5 extra positives, t = 1, τ⁺ = 0.06, HCL β = 0.5, BCL α = 0.55, β = 0.6,
200 epochs with the learning rate divided by 10 after epoch 100.

Model selection: with a validation split (:meth:`Interactions.with_validation`) the loop records
validation metrics and the epoch of the best validation NDCG; ``patience`` stops early. Test
metrics are recorded each evaluation too; the released code reports their maximum over epochs
(an optimistic convention, reported by :mod:`negtheory.reproduce.thesis_tables` only with that
label).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from .._deprecation import renamed_keyword
from .._rng import int_seed
from .._validation import int_scalar, real_scalar
from ..recsys.interactions import Interactions
from ..recsys.loop import check_callbacks, train_loop
from ..recsys.samplers import sample_extra_positives, sample_uninteracted
from . import functional as Fn
from .device import resolve_device

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .._typing import RNGLike
    from ..recsys.loop import Callback

__all__ = ["LOSSES", "MF", "fit_mf"]

LOSSES = ("bpr", "infonce", "dcl", "hcl", "dpl", "bcl", "bcl_released")


class MF(nn.Module):
    """Matrix factorisation x_ui = <w_u, h_i> with Xavier-normal initialisation (released code).

    Parameters
    ----------
    n_users, n_items : int
        Numbers of users and items (rows of the two embedding tables ``user`` and ``item``).
    dim : int, default 32
        Embedding dimension d.
    generator : torch.Generator, optional
        Source of the initial N(0, 2 / (d + n)) entries (None: torch's global generator).

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.recommend import MF
    >>> m = MF(5, 7, dim=4, generator=torch.Generator().manual_seed(0))
    >>> tuple(m(torch.tensor([0, 1]), torch.tensor([[0, 1, 2], [3, 4, 5]])).shape), tuple(m.all_scores().shape)
    ((2, 3), (5, 7))
    """

    def __init__(self, n_users, n_items, dim=32, generator=None):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        for emb in (self.user, self.item):
            fan_in, fan_out = emb.weight.shape[1], emb.weight.shape[0]
            std = math.sqrt(2.0 / (fan_in + fan_out))
            with torch.no_grad():
                emb.weight.normal_(0.0, std, generator=generator)

    def forward(self, users, items):
        """Scores x_ui of K items for each of B users.

        Parameters
        ----------
        users : LongTensor, shape [B]
            User indices.
        items : LongTensor, shape [B, K]
            Item indices, K per user.

        Returns
        -------
        Tensor, shape [B, K]
            The inner products <w_u, h_i>.
        """
        return (self.user(users)[:, None, :] * self.item(items)).sum(-1)

    @torch.no_grad()
    def all_scores(self):
        """Scores of every (user, item) pair, without gradient.

        Returns
        -------
        Tensor, shape [n_users, n_items]
            The matrix W H^T.
        """
        return self.user.weight @ self.item.weight.T


def _loss(name, s, m, n, cfg):
    """s: [B, 1 + M + N] scores / t (own positive, M extra positives, N negatives)."""
    pos = s[:, 0]
    extra = s[:, 1 : 1 + m]
    neg = s[:, 1 + m :]
    floor = math.exp(-1.0 / cfg["temperature"])
    if name == "bpr":
        return Fn.bpr(pos, neg[:, :1])
    if name == "infonce":
        return Fn.infonce(pos, neg)
    if name == "dcl":
        return Fn.dcl(pos, neg, cfg["tau_plus"], pos_extra_logits=s[:, : 1 + m], floor=floor)
    if name == "hcl":
        return Fn.hcl(pos, neg, cfg["tau_plus"], cfg["hcl_beta"], pos_extra_logits=s[:, : 1 + m], floor=floor)
    if name == "dpl":
        return Fn.dpl(pos, neg, cfg["tau_plus"], pos_extra_logits=extra, eps=cfg["dpl_eps"])
    if name == "bcl":
        return Fn.bcl(pos, neg, cfg["alpha"], cfg["beta"], cfg["tau_plus"])
    if name == "bcl_released":
        logw = Fn.bcl_log_weights(neg, cfg["alpha"], cfg["beta"], cfg["tau_plus"])
        n_theta = torch.exp(torch.logsumexp(neg + logw, dim=-1))
        return nn.functional.softplus(n_theta - pos).mean()
    raise ValueError(f"loss must be one of {LOSSES}, got {name!r}")


class _MFRunner:
    """One epoch of mini-batch training per ``run_epoch`` (the :class:`~negtheory.recsys.loop.EpochRunner` of MF)."""

    def __init__(self, model, opt, sched, loss, cfg, data, m_extra, n_neg, batch_size, dev, rng):
        self.model, self.opt, self.sched = model, opt, sched
        self.loss, self.cfg = loss, cfg
        self.m_extra, self.n_neg, self.batch_size, self.dev = m_extra, n_neg, batch_size, dev
        self.rng = rng
        self.pairs = data.train
        self.train_mask = data.train_mask()
        self.indptr, self.indices = data.train_csr()

    def run_epoch(self, epoch: int) -> dict[str, float]:
        model, rng, dev, pairs = self.model, self.rng, self.dev, self.pairs
        model.train()
        n = len(pairs)
        perm = rng.permutation(n)
        tot = 0.0
        for s in range(0, n, self.batch_size):
            b = pairs[perm[s : s + self.batch_size]]
            u = b[:, 0]
            cols = [b[:, 1:2]]
            if self.m_extra:
                cols.append(sample_extra_positives(u, self.m_extra, self.indptr, self.indices, rng))
            cols.append(sample_uninteracted(u, self.n_neg, self.train_mask, rng))
            items = torch.from_numpy(np.concatenate(cols, axis=1)).to(dev)
            scores = model(torch.from_numpy(u).to(dev), items) / self.cfg["temperature"]
            lval = _loss(self.loss, scores, self.m_extra, self.n_neg, self.cfg)
            if not torch.isfinite(lval):
                raise FloatingPointError(f"{self.loss} loss is {float(lval)} at epoch {epoch + 1}: training diverged")
            self.opt.zero_grad()
            lval.backward()
            self.opt.step()
            tot += float(lval.detach()) * len(b)
        self.sched.step()
        return dict(loss=tot / n)

    def scores(self) -> np.ndarray:
        self.model.eval()
        return self.model.all_scores().cpu().numpy()


@renamed_keyword("seed", "rng")
def fit_mf(
    data: Interactions,
    loss: str = "infonce",
    *,
    dim: int = 32,
    epochs: int = 200,
    batch_size: int = 1024,
    optimizer: str = "adam",
    lr: float = 1e-3,
    weight_decay: float = 1e-5,
    lr_milestones: Sequence[int] = (100,),
    lr_gamma: float = 0.1,
    negatives: int = 5,
    extra_positives: int = 5,
    temperature: float = 1.0,
    tau_plus: float = 0.06,
    hcl_beta: float = 0.5,
    alpha: float = 0.55,
    beta: float = 0.6,
    dpl_eps: float = 1e-2,
    eval_every: int = 1,
    topk: Sequence[int] = (5, 10, 20),
    patience: int | None = None,
    monitor: str | None = None,
    rng: RNGLike = 0,
    device: str = "cpu",
    progress: bool = True,
    callbacks: Sequence[Callback] = (),
) -> dict[str, Any]:
    r"""Train MF with one loss of :data:`LOSSES` on mini-batches (see the module notes).

    Parameters
    ----------
    data : Interactions
        Training pairs; validation pairs (if any) are ranked with training items masked, test
        pairs with training and validation items masked.
    loss : {"bpr", "infonce", "dcl", "hcl", "dpl", "bcl", "bcl_released"}, default "infonce"
        The loss (:data:`LOSSES`, see the module notes).
    dim : int, default 32
        Embedding dimension.
    epochs : int, default 200
        Number of epochs.
    batch_size : int, default 1024
        Training pairs per mini-batch.
    optimizer : {"adam", "sgd"}
    lr, weight_decay : float
        Adam's / SGD's learning rate and L2 weight decay.
    lr_milestones : sequence of int
        Epochs after which the learning rate is multiplied by ``lr_gamma`` (MultiStepLR).
    lr_gamma : float > 0, default 0.1
        Factor applied to the learning rate at each milestone.
    negatives, extra_positives : int
        N and M per training pair (M is used by dcl, hcl, dpl).
    temperature, tau_plus, hcl_beta, alpha, beta, dpl_eps : float
        Loss hyper-parameters (t, τ⁺, HCL's β, BCL's α and β, DPL's clamp).
    eval_every : int
        Rank every this many epochs (and after the last).
    topk : sequence of int, default (5, 10, 20)
        List lengths k of the Precision / Recall / NDCG@k metrics.
    patience : int, optional
        Stop when the validation ``monitor`` has not improved for this many evaluations
        (needs a validation split).
    monitor : str, optional
        Validation metric for model selection, e.g. ``"ndcg@10"`` (the default when 10 is in
        ``topk``, else NDCG at the first list length).
    rng : int, SeedSequence, Generator or None
        Seeds the initialisation (torch.Generator), the shuffles and the samplers (numpy). An int
        is the seed; a Generator or SeedSequence gives one 63-bit seed; ``None`` a fresh one
        (``seed``: deprecated since 0.1, removed in 0.2).
    device : {"cpu", "cuda", "auto"}
        Where the model is trained (:func:`negtheory.bridge.device.resolve_device`).
    progress : bool, default True
        Show a progress bar over the epochs.
    callbacks : sequence of callable
        ``cb(epoch, scores)`` with ``scores = model.all_scores()`` as numpy: once with
        ``epoch=0`` before training (the initial embeddings), then after each evaluated epoch
        (1-based) with the matrix it was ranked with; a returned dict is merged into that
        epoch's history row. Callbacks draw none of the training's random numbers
        (:mod:`negtheory.recsys.loop`).

    Returns
    -------
    dict
        ``history`` (per evaluation: epoch, loss, ``valid_*`` and ``test_*`` metrics),
        ``best_epoch`` (by validation ``monitor``, None without validation), ``model`` (the
        final :class:`MF`), ``scores`` (final score matrix as numpy), ``seconds``, ``config``.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.bridge.recommend import fit_mf
    >>> rng = np.random.default_rng(0)
    >>> pairs = np.unique(rng.integers(0, [30, 40], size=(600, 2)), axis=0)
    >>> d = load_split(pairs[:400], pairs[400:]).with_validation(0.1)
    >>> r = fit_mf(d, "dpl", epochs=2, batch_size=64, progress=False, topk=(5,))
    >>> r["history"][-1]["epoch"], r["best_epoch"] in (1, 2)
    (2, True)
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if optimizer not in ("adam", "sgd"):
        raise ValueError(f"optimizer must be 'adam' or 'sgd', got {optimizer!r}")
    dim = int_scalar("dim", dim, 1)
    epochs = int_scalar("epochs", epochs, 1)
    batch_size = int_scalar("batch_size", batch_size, 1)
    negatives = int_scalar("negatives", negatives, 1)
    extra_positives = int_scalar("extra_positives", extra_positives, 1)
    eval_every = int_scalar("eval_every", eval_every, 1)
    lr = real_scalar("lr", lr, 0.0, lo_open=True)
    weight_decay = real_scalar("weight_decay", weight_decay, 0.0)
    lr_gamma = real_scalar("lr_gamma", lr_gamma, 0.0, lo_open=True)
    milestones = sorted(int_scalar("lr_milestones", m, 1) for m in lr_milestones)
    cfg = dict(
        temperature=real_scalar("temperature", temperature, 0.0, lo_open=True),
        tau_plus=real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True),
        hcl_beta=real_scalar("hcl_beta", hcl_beta, 0.0),
        alpha=real_scalar("alpha", alpha, 0.5, 1.0),
        beta=real_scalar("beta", beta, 0.0, 1.0),
        dpl_eps=real_scalar("dpl_eps", dpl_eps, 0.0, 1.0, lo_open=True),
    )
    if patience is not None:
        patience = int_scalar("patience", patience, 1)
        if len(data.valid) == 0:
            raise ValueError("patience needs a validation split: use data.with_validation(fraction)")
    seed = int_seed("rng", rng)
    callbacks = check_callbacks(callbacks)
    if monitor is None:
        ks = [int(k) for k in (topk if not isinstance(topk, int) else [topk])]
        monitor = f"ndcg@{10 if 10 in ks else ks[0]}"
    dev = resolve_device(device)
    m_extra = extra_positives if loss in ("dcl", "hcl", "dpl") else 0
    n_neg = 1 if loss == "bpr" else negatives

    gen = torch.Generator().manual_seed(seed)
    model = MF(data.n_users, data.n_items, dim, generator=gen).to(dev)
    if optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones, gamma=lr_gamma)
    runner = _MFRunner(model, opt, sched, loss, cfg, data, m_extra, n_neg, batch_size, dev,
                       np.random.default_rng(np.random.SeedSequence([seed, 1])))  # fmt: skip
    res = train_loop(runner, data, epochs=epochs, eval_every=eval_every, topk=topk, eval_on=("valid", "test"),
                     monitor=monitor, patience=patience, callbacks=callbacks, progress=progress, desc=f"MF {loss}")  # fmt: skip
    config = dict(
        loss=loss,
        dim=dim,
        epochs=epochs,
        batch_size=batch_size,
        optimizer=optimizer,
        lr=lr,
        weight_decay=weight_decay,
        lr_milestones=milestones,
        lr_gamma=lr_gamma,
        negatives=n_neg,
        extra_positives=m_extra,
        rng=seed,  # the run's integer seed, under the keyword's name
        device=str(dev),
        **cfg,
    )
    return dict(
        history=res["history"],
        best_epoch=res["best_epoch"],
        model=model,
        scores=model.all_scores().cpu().numpy(),
        seconds=res["seconds"],
        config=config,
    )
