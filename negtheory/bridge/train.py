r"""A small training harness: recommendation (MF / MLP towers) and contrastive digits (MLP encoder).

:func:`train` runs one configuration (:class:`TrainConfig`) and returns a results dict (also
written to ``<out>/results.json`` with the per-batch probe rows in ``<out>/probes.csv``):

* recommendation data (``synthetic``): for every observed (u, i), K
  negatives drawn uniformly from the catalog (the unlabeled set; a real-valued K is turned into
  counts by eq. 8 of Wu et al. (Rethinking InfoNCE), and ``ans=True`` follows the ANS schedule),
  or one BNS negative (Liu Bin's thesis ch. 4), or K Boltzmann negatives for Relaxed Softmax
  (Tanielian & Vasile (Relaxed Softmax), eq. 8); losses
  ``infonce, dcl, hcl, bcl, bcl_norm, bpr, dpl, bce, relaxed_softmax, bns, bprac``; evaluation
  Recall@k / NDCG@k on held-out interactions (training items excluded), the training AUC of
  Wu et al. (a labeled positive against a uniformly drawn item), and on synthetic data the
  precision@k against the ground-truth positive class;
* ``digits``: two augmented views per image, in-batch negatives (N = 2B - 2), losses
  ``infonce, dcl, hcl, bcl, bcl_norm``; evaluation: linear-probe accuracy on frozen features.

With ground truth (synthetic, digits) :mod:`negtheory.bridge.probes` records, every
``probe_every`` steps, sampled negatives' real scores with their true labels.

Both tasks train through the package's one epoch loop, :func:`negtheory.recsys.loop.train_loop`
(progress bar, evaluation, callbacks), with the one MF model
(:class:`negtheory.bridge.recommend.MF`; :class:`TowerModel` adds towers on top of it) and the one
evaluator (:func:`negtheory.recsys.topk_metrics` on :meth:`RecData.interactions
<negtheory.bridge.data.RecData.interactions>`); what stays here is what the toy data sets need
and the real-data trainers do not have: catalog-wide K negatives with Wu et al.'s real-valued K and
ANS, the mini-batch BNS and BPRAC samplers, Boltzmann negatives, and the ground-truth metrics.

Real data follows the thesis's protocol elsewhere: :func:`negtheory.training.fit` (mini-batch MF
with the contrastive losses of ch. 5-6, BPR-MF by batch-1 SGD with the samplers of ch. 4), on an
:class:`negtheory.recsys.Interactions` from :func:`negtheory.recsys.load_movielens_dir` or
:func:`negtheory.recsys.load_split`, ranked by :func:`negtheory.recsys.topk_metrics`
(``train(data=Interactions)`` runs it with this harness's configuration).
The synthetic positive-unlabeled and digits data sets stay: they carry the ground truth the
simulation-vs-training experiments (:mod:`negtheory.bridge.experiments`) need.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

from .._deprecation import renamed_keyword, warn_renamed
from .._docstrings import docstring
from .._rng import int_seed
from ..recsys.loop import train_loop
from . import functional as Fn
from .bprac_em import CredenceWeights
from .data import RecData, augment_digits, load_digits_views, synthetic_pu
from .device import resolve_device
from .probes import ProbeRecorder, summarize
from .recommend import _SCORE_ARGS, MF
from .samplers import ANSCallback, BNSSampler, boltzmann_sample, draw_negative_counts, uniform_items

if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "TrainConfig",
    "train",
    "REC_LOSSES",
    "DIGITS_LOSSES",
    "resolve_device",
    "TowerModel",
    "DigitsEncoder",
]

REC_LOSSES = (
    "infonce",
    "dcl",
    "hcl",
    "bcl",
    "bcl_norm",
    "bpr",
    "dpl",
    "bce",
    "relaxed_softmax",
    "bns",
    "bprac",
)
DIGITS_LOSSES = ("infonce", "dcl", "hcl", "bcl", "bcl_norm")


@dataclass
class TrainConfig:
    """Everything one run of :func:`train` needs; defaults are CPU-sized (seconds per epoch).

    The fields are the constructor's parameters (all keyword-friendly, with defaults) and are
    kept as attributes.

    Parameters
    ----------
    data : str, default "synthetic"
        "synthetic" (:func:`~negtheory.bridge.data.synthetic_pu`), "digits"
        (:func:`~negtheory.bridge.data.load_digits_views`); :func:`train` also takes a real split.
    model : {"mf", "mlp"}, default "mf"
        Matrix factorisation or two-tower MLP (recommendation); digits always use the MLP
        encoder :class:`DigitsEncoder`.
    loss : str, default "bpr"
        One of :data:`REC_LOSSES` (recommendation) or :data:`DIGITS_LOSSES` (digits).
    epochs : int >= 1, default 5
        Number of epochs.
    batch_size : int >= 2, default 256
        Positives (recommendation) or images (digits) per step.
    k : float, default 8.0
        Negatives per positive (recommendation); a real value is turned into integer counts by
        eq. 8 of Wu et al. (Rethinking InfoNCE) (InfoNCE only).
    dim : int, default 32
        Embedding dimension of the recommendation models.
    lr : float > 0, default 0.01
        Adam learning rate.
    weight_decay : float >= 0, default 0.0
        Adam's L2 weight decay.
    temperature : float > 0, optional
        Divides the scores. Default (None): 1.0 for recommendation (raw dot products), 0.5 for
        digits (cosine similarity).
    tau_plus : float in (0, 1), default 0.1
        Class prior of DCL, HCL, BCL and DPL.
    alpha : float in [1/2, 1], default 0.9
        BCL's encoder quality.
    beta : float in [0, 1], default 0.5
        BCL's hardness level (also passed to the probes).
    hcl_beta : float >= 0, default 1.0
        HCL's concentration.
    ans : bool, default False
        Follow the adaptive negative sampling schedule (:class:`~negtheory.bridge.samplers.ANSCallback`).
    k_opt : float, optional
        Peak K* of ANS (default: ``k``).
    ans_warmup : float in [0, 1], default 0.1
        Rising fraction of the ANS schedule.
    bns_candidates : int, default 10
        Candidate-set size of BNS (loss "bns").
    bns_lam : float >= 0, default 5.0
        lambda of the BNS criterion.
    rs_temperature : float, default 1.0
        Boltzmann temperature T of the Relaxed-Softmax negatives.
    topk : int, default 10
        List length k of Recall@k / NDCG@k.
    probe : bool, default True
        Record probes (:mod:`negtheory.bridge.probes`) where ground truth exists.
    probe_every : int, default 4
        Steps between two probes.
    probe_n : int, default 64
        Uniform negatives per anchor drawn by the recommendation probe.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to train (:func:`resolve_device`).
    rng : int, default 0
        Seed of the run (``seed``: deprecated since 0.1, removed in 0.2); :func:`train` turns a Generator or
        SeedSequence into an int.
    progress : bool, default True
        Show a progress bar over the epochs.
    out : str, optional
        Folder for ``results.json`` and ``probes.csv`` (None: write nothing).
    synthetic : dict, optional
        Keyword arguments of :func:`~negtheory.bridge.data.synthetic_pu` (default empty).

    Examples
    --------
    >>> from negtheory.bridge.train import TrainConfig
    >>> c = TrainConfig(loss="dcl", epochs=2)
    >>> c.loss, c.epochs, c.temperature is None
    ('dcl', 2, True)
    """

    data: str = "synthetic"
    model: str = "mf"
    loss: str = "bpr"
    epochs: int = 5
    batch_size: int = 256
    k: float = 8.0  # negatives per positive (rec); real values allowed (Wu et al. (Rethinking InfoNCE), eq. 8)
    dim: int = 32
    lr: float = 0.01
    weight_decay: float = 0.0
    temperature: float | None = (
        None  # None: 1.0 for rec (raw dot products), 0.5 for digits (cosine)
    )
    tau_plus: float = 0.1
    alpha: float = 0.9
    beta: float = 0.5
    hcl_beta: float = 1.0
    ans: bool = False
    k_opt: float | None = None  # ANS peak (default: k)
    ans_warmup: float = 0.1
    bns_candidates: int = 10
    bns_lam: float = 5.0
    rs_temperature: float = 1.0  # Boltzmann T for relaxed_softmax
    topk: int = 10
    probe: bool = True
    probe_every: int = 4
    probe_n: int = 64  # uniform negatives per anchor drawn by the rec probe
    device: str = "auto"
    rng: int = 0  # seed of the run (``seed``: deprecated since 0.1); train() turns a Generator / SeedSequence into an int
    progress: bool = True
    out: str | None = None
    synthetic: dict = field(default_factory=dict)  # keyword arguments of synthetic_pu

    @property
    def seed(self) -> int:
        """Deprecated alias of ``rng`` (deprecated since 0.1, removed in 0.2)."""
        warn_renamed("TrainConfig", "seed", "rng", what="attribute", stacklevel=3)
        return self.rng


TrainConfig.__init__ = renamed_keyword("seed", "rng")(TrainConfig.__init__)  # type: ignore[method-assign]


# --------------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------------


#: the replacement named by the deprecation warnings of this module


class TowerModel(MF):
    """Two-tower MLP: :class:`~negtheory.bridge.recommend.MF` embeddings followed by a 2-layer tower per side.

    Scores are <t_u(w_u), t_i(h_i)> with t(x) = W_2 ReLU(W_1 x + b_1) + b_2 (one tower per side).
    The embeddings start as :class:`~negtheory.bridge.recommend.MF`'s (Xavier normal).

    Parameters
    ----------
    n_users, n_items : int
        Numbers of users and items.
    dim : int
        Embedding dimension and width of both towers (dim -> dim -> dim, ReLU).
    generator : torch.Generator, optional
        Source of the Xavier-normal initial embeddings (None: torch's global generator); the
        towers use torch's default initialisation.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.train import TowerModel
    >>> m = TowerModel(5, 7, 4, generator=torch.Generator().manual_seed(0))
    >>> tuple(m(torch.tensor([0, 1]), torch.tensor([[2, 3, 4], [0, 1, 2]])).shape)
    (2, 3)
    >>> tuple(m.all_scores().shape)
    (5, 7)
    """

    def __init__(self, n_users, n_items, dim, generator=None):
        super().__init__(n_users, n_items, dim, generator)
        self.ut = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.it = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    @docstring(_SCORE_ARGS)
    def forward(self, users, items):
        """Scores x_ui = <t_u(w_u), t_i(h_i)> of K items for each of B users, through the towers.

        %(score_sections)s
        """
        return (self.ut(self.user(users))[:, None, :] * self.it(self.item(items))).sum(-1)

    @torch.no_grad()
    def all_scores(self):
        """Scores of every (user, item) pair, without gradient.

        Returns
        -------
        Tensor, shape [n_users, n_items]
            The full score matrix through the towers.
        """
        return self.ut(self.user.weight) @ self.it(self.item.weight).T


class DigitsEncoder(nn.Module):
    """MLP encoder f (64 -> 128 -> 64) and projection head g (64 -> 32), as in SimCLR.

    Parameters
    ----------
    hidden : int, default 128
        Width of the encoder's hidden layer.
    feat : int, default 64
        Dimension of the features f(x) (read by the linear probe).
    proj : int, default 32
        Dimension of the projections g(f(x)) fed to the contrastive loss.

    Examples
    --------
    >>> import torch
    >>> from negtheory.bridge.train import DigitsEncoder
    >>> tuple(DigitsEncoder()(torch.zeros(3, 64)).shape)
    (3, 32)
    """

    def __init__(self, hidden=128, feat=64, proj=32):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, feat))
        self.g = nn.Sequential(nn.ReLU(), nn.Linear(feat, proj))

    def forward(self, x):
        """Projections g(f(x)) of a batch of images.

        Parameters
        ----------
        x : Tensor, shape [B, 64]
            Flattened 8x8 images.

        Returns
        -------
        Tensor, shape [B, proj]
            The projection head's output (not normalised).
        """
        return self.g(self.f(x))


# --------------------------------------------------------------------------------------------
# losses on logits
# --------------------------------------------------------------------------------------------
def _loss_on_logits(cfg: TrainConfig, pos, neg, weight=None):
    name = cfg.loss
    if name == "infonce":
        return Fn.infonce(pos, neg)
    if name == "dcl":
        return Fn.dcl(pos, neg, cfg.tau_plus, floor=_floor(cfg))
    if name == "hcl":
        return Fn.hcl(pos, neg, cfg.tau_plus, cfg.hcl_beta, floor=_floor(cfg))
    if name in ("bcl", "bcl_norm"):
        return Fn.bcl(pos, neg, cfg.alpha, cfg.beta, cfg.tau_plus, normalize=name == "bcl_norm")
    if name in ("bpr", "bns", "bprac"):
        return Fn.bpr(pos, neg, weight=weight)
    if name == "dpl":
        return Fn.dpl(pos, neg, cfg.tau_plus)
    if name == "bce":
        return Fn.bce(pos, neg)
    if name == "relaxed_softmax":
        # eq. 5 as printed is unbounded below in s+; with Boltzmann negatives the model can
        # push s+ without limit, so train the bounded form (positive inside V)
        return Fn.relaxed_softmax(pos, neg, include_positive=True)
    raise ValueError(f"unknown loss {name!r}")


def _floor(cfg):
    # cosine similarity (digits): the released code's e^{-1/t}; raw dot products: none
    return math.exp(-1.0 / cfg.temperature) if cfg.data == "digits" else None


# --------------------------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------------------------


def linear_probe(encoder, data, device="cpu", steps=100):
    """Accuracy of a softmax regression (L-BFGS, full batch) on frozen, standardised features.

    Parameters
    ----------
    encoder : DigitsEncoder
        The encoder; its features ``encoder.f(x)`` are used (no gradient).
    data : DigitsData
        Images, labels and the train / test split.
    device : str or torch.device, default "cpu"
        Where the features and the regression are computed.
    steps : int, default 100
        L-BFGS iterations.

    Returns
    -------
    float
        Test accuracy in [0, 1].
    """
    encoder.eval()
    with torch.no_grad():
        feats = encoder.f(data.x.to(device)).double()
    encoder.train()
    tr, te = data.train_idx.to(device), data.test_idx.to(device)
    mu, sd = feats[tr].mean(0), feats[tr].std(0) + 1e-8
    z = (feats - mu) / sd
    w = torch.zeros(
        z.shape[1], data.n_classes, dtype=torch.float64, device=device, requires_grad=True
    )
    b = torch.zeros(data.n_classes, dtype=torch.float64, device=device, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=steps, line_search_fn="strong_wolfe")
    y = data.y.to(device)

    def closure():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(z[tr] @ w + b, y[tr]) + 1e-3 * (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        return float(((z[te] @ w + b).argmax(1) == y[te]).double().mean())


# --------------------------------------------------------------------------------------------
# training loops
# --------------------------------------------------------------------------------------------
def _load_rec(cfg: TrainConfig) -> RecData:
    if cfg.data == "synthetic":
        kw = dict(rng=cfg.rng)
        kw.update(cfg.synthetic)
        return synthetic_pu(**kw)
    raise ValueError(
        f"data must be 'synthetic', 'digits', an Interactions or a (train, test) pair, got {cfg.data!r}"
    )


class _TruthMetrics:
    """Callback of :func:`~negtheory.recsys.loop.train_loop` for the toy data: Wu's training AUC and precision vs truth.

    ``train_auc``: P(x_ui > x_uj) + P(x_ui = x_uj)/2 for a labeled training pair (u, i) against
    every item j of the catalog (Wu et al.'s eq. 7 at K = 1, the negative drawn uniformly), over
    at most ``max_auc_pairs`` training pairs drawn once. ``precision_true@k``: the fraction of the
    top-k unobserved items (training items masked) that belong to the ground-truth positive class
    (synthetic data only).
    """

    def __init__(self, data: RecData, topk: int, seed: int, max_auc_pairs: int = 4000):
        pairs = data.train.numpy()
        pick = np.random.default_rng(np.random.SeedSequence([seed, 2])).permutation(len(pairs))[
            :max_auc_pairs
        ]
        self.pairs = pairs[np.sort(pick)]
        self.train_mask = data.train_mask().numpy()
        self.relevant = data.relevant.numpy() if data.relevant is not None else None
        self.topk = topk

    def __call__(self, epoch: int, scores: Any) -> dict[str, float] | None:
        if epoch == 0:
            return None
        scores = np.asarray(scores)  # a ScoreMatrix: the toy data's dense matrix
        u, i = self.pairs[:, 0], self.pairs[:, 1]
        sp = scores[u, i][:, None]
        row = scores[u]
        out = {"train_auc": float(((row < sp).mean(1) + 0.5 * (row == sp).mean(1)).mean())}
        if self.relevant is not None:
            masked = np.where(self.train_mask, -np.inf, scores)
            top = np.argpartition(-masked, self.topk - 1, axis=1)[:, : self.topk]
            out[f"precision_true@{self.topk}"] = float(
                np.take_along_axis(self.relevant, top, 1).mean()
            )
        return out


def _pair_scores(model, u, i):
    """Scores of (u, i): ``i`` [B] -> [B], ``i`` [B, M] -> [B, M] (MF's forward takes [B, M])."""
    if i.ndim == 1:
        return model(u, i[:, None])[:, 0]
    return model(u, i)


class _RecRunner:
    """One epoch of the toy recommendation training (the :class:`~negtheory.recsys.loop.EpochRunner`).

    Mini-batches of observed pairs; per positive, K negatives drawn uniformly from the catalog
    (the unlabeled set; a real K by Wu et al.'s eq. 8, or the ANS schedule), one BNS negative
    (thesis eq. 4.26 with the popularity prior of eq. 4.16), or K Boltzmann negatives for Relaxed
    Softmax (Tanielian & Vasile, eq. 8); BPRAC weights the BPR terms by EM credences (eq. 3.28).
    """

    def __init__(self, cfg: TrainConfig, data: RecData, model, device, gen, recorder):
        self.cfg, self.data, self.model, self.device, self.gen, self.recorder = (
            cfg,
            data,
            model,
            device,
            gen,
            recorder,
        )
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.pairs = data.train.to(device)
        n = self.pairs.shape[0]
        total = math.ceil(n / cfg.batch_size) * cfg.epochs
        self.ans = (
            ANSCallback(total, cfg.k_opt or cfg.k, cfg.ans_warmup, generator=gen)
            if cfg.ans
            else None
        )
        self.bns = (
            BNSSampler(
                data.item_counts, data.n_users, cfg.bns_candidates, cfg.bns_lam, generator=gen
            )
            if cfg.loss == "bns"
            else None
        )
        self.cred = CredenceWeights(n) if cfg.loss == "bprac" else None
        self.relevant = data.relevant.to(device) if data.relevant is not None else None
        self.score = lambda u, i: _pair_scores(model, u, i)
        self.step = 0

    def run_epoch(self, epoch: int) -> dict[str, float]:
        cfg, model, device, gen, data = self.cfg, self.model, self.device, self.gen, self.data
        model.train()
        if self.cred is not None:
            self.cred.update(
                epoch,
                self.score,
                data.train,
                data.item_counts,
                cfg.dim,
                model.user.weight,
                model.item.weight,
            )
            weights = self.cred.weights.to(device)
        n = self.pairs.shape[0]
        perm = torch.randperm(n, generator=gen).to(device)
        t_model = cfg.temperature
        tot, cnt = 0.0, 0
        for s in range(0, n, cfg.batch_size):
            idx = perm[s : s + cfg.batch_size]
            u, i = self.pairs[idx, 0], self.pairs[idx, 1]
            b = u.shape[0]
            pos = self.score(u, i) / t_model
            w = None
            if self.bns is not None:
                j = self.bns.sample(self.score, u, pos.detach() * t_model)[:, None]
                neg = self.score(u, j) / t_model
            elif cfg.loss == "relaxed_softmax":
                full = model.all_scores()[u]
                j = boltzmann_sample(full, max(1, round(cfg.k)), cfg.rs_temperature, generator=gen)
                neg = self.score(u, j) / t_model
            else:
                if self.ans is not None:
                    counts = self.ans.counts(self.step, b).to(device)
                    kmax = int(counts.max())
                elif cfg.k != int(cfg.k):
                    counts = draw_negative_counts(cfg.k, (b,), gen).to(device)
                    kmax = int(counts.max())
                else:
                    counts, kmax = None, int(cfg.k)
                j = uniform_items(data.n_items, (b, kmax), gen).to(device)
                neg = self.score(u, j) / t_model
                if counts is not None:
                    # variable count per positive: padded slots get logit -inf (weight e^-inf = 0)
                    if cfg.loss != "infonce":
                        raise ValueError(
                            "a real-valued k or ANS is supported with loss='infonce' (Wu et al.'s setting)"
                        )
                    keep = torch.arange(kmax, device=device)[None, :] < counts[:, None]
                    neg = neg.masked_fill(~keep, -math.inf)
                if self.cred is not None:
                    w = weights[idx]
            loss = _loss_on_logits(cfg, pos, neg, weight=w)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if self.ans is not None:
                self.ans.on_step(self.step)
            tot += float(loss.detach()) * b
            cnt += b
            if (
                self.recorder is not None
                and self.relevant is not None
                and self.step % cfg.probe_every == 0
            ):
                with torch.no_grad():
                    jp = uniform_items(data.n_items, (b, cfg.probe_n), gen).to(device)
                    self.recorder.record(  # epochs 1-based in the probe rows too, as in the history
                        self.step,
                        epoch + 1,
                        pos.detach(),
                        self.score(u, jp) / t_model,
                        self.relevant[u[:, None], jp],
                    )
            self.step += 1
        return dict(loss=tot / cnt)

    def scores(self) -> np.ndarray:
        self.model.eval()
        out = self.model.all_scores().cpu().numpy()
        self.model.train()
        return out

    def score_block(self, users: np.ndarray) -> np.ndarray:
        return self.scores()[users]


def _train_rec(cfg: TrainConfig, device, gen, recorder):
    data = _load_rec(cfg)
    if cfg.loss not in REC_LOSSES:
        raise ValueError(
            f"loss must be one of {REC_LOSSES} for recommendation data, got {cfg.loss!r}"
        )
    cls = {"mf": MF, "mlp": TowerModel}.get(cfg.model)
    if cls is None:
        raise ValueError(f"model must be 'mf' or 'mlp', got {cfg.model!r}")
    model = cls(data.n_users, data.n_items, cfg.dim, generator=gen).to(device)
    runner = _RecRunner(cfg, data, model, device, gen, recorder)
    res = train_loop(
        runner,
        data.interactions(),
        epochs=cfg.epochs,
        topk=(cfg.topk,),
        eval_on=("test",),
        callbacks=[_TruthMetrics(data, cfg.topk, cfg.rng)],
        progress=cfg.progress,
        desc=f"train {cfg.loss}",
    )
    extra = {"data_params": data.params, "n_users": data.n_users, "n_items": data.n_items}
    if runner.ans is not None:
        extra["ans_k"] = [
            k for _, k in runner.ans.history[:: max(1, len(runner.ans.history) // 50)]
        ]
    if runner.cred is not None:
        extra["bprac_lambda"] = runner.cred.lam_history
        extra["bprac_mean_credence"] = float(runner.cred.weights.mean())
    return res["history"], extra


class _DigitsRunner:
    """One epoch of contrastive digits training: two augmented views, in-batch negatives (N = 2B - 2).

    Its statistics hold the linear-probe accuracy on frozen features (the task is not a ranking, so
    :func:`~negtheory.recsys.loop.train_loop` runs it with ``data=None``).
    """

    def __init__(self, cfg: TrainConfig, data, enc, device, gen, recorder):
        self.cfg, self.data, self.enc, self.device, self.gen, self.recorder = (
            cfg,
            data,
            enc,
            device,
            gen,
            recorder,
        )
        self.opt = torch.optim.Adam(enc.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.x_tr = data.x[data.train_idx]
        self.y_tr = data.y[data.train_idx]
        self.step = 0

    def run_epoch(self, epoch: int) -> dict[str, float]:
        from .losses import pair_logits

        cfg, enc, device, gen = self.cfg, self.enc, self.device, self.gen
        n = self.x_tr.shape[0]
        perm = torch.randperm(n, generator=gen)
        tot, cnt = 0.0, 0
        for s in range(0, n - 1, cfg.batch_size):
            idx = perm[s : s + cfg.batch_size]
            if idx.numel() < 2:
                continue
            x = self.x_tr[idx]
            v1 = augment_digits(x, gen).to(device)
            v2 = augment_digits(x, gen).to(device)
            z1 = nn.functional.normalize(enc(v1), dim=-1)
            z2 = nn.functional.normalize(enc(v2), dim=-1)
            pos, neg = pair_logits(z1, z2, temperature=cfg.temperature, symmetric=True)
            loss = _loss_on_logits(cfg, pos, neg)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            b = idx.numel()
            tot += float(loss.detach()) * b
            cnt += b
            if self.recorder is not None and self.step % cfg.probe_every == 0:
                # labels of the in-batch negatives, in pair_logits's order (self and partner removed)
                y2 = torch.cat([self.y_tr[idx], self.y_tr[idx]])
                same = y2[:, None] == y2[None, :]
                m = torch.ones_like(same)
                ar = torch.arange(2 * b)
                m[ar, ar] = False
                m[ar, (ar + b) % (2 * b)] = False
                self.recorder.record(
                    self.step, epoch + 1, pos.detach(), neg.detach(), same[m].view(2 * b, 2 * b - 2)
                )
            self.step += 1
        return dict(loss=tot / max(cnt, 1), probe_acc=linear_probe(enc, self.data, device))

    def scores(self) -> np.ndarray:  # pragma: no cover - train_loop asks only with callbacks
        raise NotImplementedError("the digits task has no score matrix")

    def score_block(self, users: np.ndarray) -> np.ndarray:  # pragma: no cover - as scores()
        raise NotImplementedError("the digits task has no score matrix")


def _train_digits(cfg: TrainConfig, device, gen, recorder):
    if cfg.loss not in DIGITS_LOSSES:
        raise ValueError(f"loss must be one of {DIGITS_LOSSES} for digits, got {cfg.loss!r}")
    if cfg.model != "mlp":
        raise ValueError(
            "digits needs model='mlp' (an image encoder); 'mf' is for recommendation data"
        )
    data = load_digits_views(rng=cfg.rng)
    enc = DigitsEncoder().to(device)
    runner = _DigitsRunner(cfg, data, enc, device, gen, recorder)
    res = train_loop(
        runner, None, epochs=cfg.epochs, eval_on=(), progress=cfg.progress, desc=f"train {cfg.loss}"
    )
    return res["history"], {"n_train": int(runner.x_tr.shape[0])}


def _train_split(cfg: TrainConfig, data) -> dict:
    """``train(data=(train, test) | Interactions, ...)``: mini-batch MF on an explicit split (:func:`negtheory.training.fit`)."""
    from ..recsys.interactions import Interactions, load_split
    from ..training import MF, RNS, Adam, Evaluation, fit
    from ..training.names import loss_spec

    if not isinstance(data, Interactions):
        if not (isinstance(data, (tuple, list)) and len(data) == 2):
            raise ValueError(
                "data must be a name ('synthetic', 'digits'), an Interactions or a (train, test) pair"
            )
        data = load_split(*data)
    if cfg.k != int(cfg.k):
        raise ValueError("a real-valued k is supported on the built-in data sets only")
    # the config's loss with its own hyper-parameters (M = 5 extra positives, DPL's clamp at its default)
    loss = loss_spec(
        cfg.loss,
        negatives=int(cfg.k),
        temperature=cfg.temperature or 1.0,
        tau_plus=cfg.tau_plus,
        hcl_beta=cfg.hcl_beta,
        alpha=cfg.alpha,
        beta=cfg.beta,
    )
    res = fit(
        data,
        model=MF(dim=cfg.dim),
        loss=loss,
        sampler=RNS(),
        optimizer=Adam(lr=cfg.lr, weight_decay=cfg.weight_decay, batch_size=cfg.batch_size),
        epochs=cfg.epochs,
        evaluation=Evaluation(ks=(cfg.topk,)),
        rng=cfg.rng,
        device=cfg.device,
        progress=cfg.progress,
    )
    return {
        "config": res.config,
        "specs": res.specs,
        "history": res.history,
        "final": res.history[-1],
        "model": res.model,
        "scores": res.scores,
        "best_epoch": res.best_epoch,
        "seconds": res.seconds,
        "data": data.summary(),
    }


@renamed_keyword("seed", "rng")
def train(config: TrainConfig | None = None, **overrides) -> dict:
    r"""Train one configuration and return its results (see the module notes).

    Parameters
    ----------
    config : TrainConfig, optional
        The run's configuration (None: the defaults of :class:`TrainConfig`).
    **overrides
        Fields of :class:`TrainConfig` (e.g. ``loss="bcl", epochs=1``). ``rng`` (``seed``: deprecated since 0.1, removed
        in 0.2) may be an int, a SeedSequence or a Generator: torch is seeded with the
        int, or with one 63-bit draw from the others (stored as the int in ``config``). ``data`` may also be an
        explicit split — a :class:`negtheory.recsys.Interactions` or a ``(train, test)`` pair of
        paths, arrays or DataFrames — trained by :func:`negtheory.training.fit` (mini-batch MF with
        Adam and this config's loss, epochs, batch size, lr, weight decay, ``k`` uniform negatives,
        ...); the result then also holds the run's ``specs``, the trained ``model`` and the final
        ``scores``.

    Returns
    -------
    dict
        ``config``, ``history`` (one dict per epoch, ``epoch`` 1-based as in every trainer of
        :func:`negtheory.recsys.loop.train_loop`: the loss; on recommendation data the test
        ranking metrics ``test_precision@k``, ``test_recall@k``, ``test_ndcg@k`` of
        :func:`negtheory.recsys.topk_metrics`, ``train_auc`` and, on synthetic data,
        ``precision_true@k``; on digits ``probe_acc``), ``final`` (the last
        epoch's metrics), ``probe`` (:func:`negtheory.bridge.probes.summarize` of the probe rows,
        when ground truth exists), ``device``, ``seconds``.

    Examples
    --------
    >>> from negtheory.bridge.train import train
    >>> r = train(data="synthetic", loss="bcl", epochs=1, progress=False, synthetic=dict(n_users=40, n_items=60))
    >>> sorted(r["final"])
    ['epoch', 'loss', 'precision_true@10', 'test_ndcg@10', 'test_precision@10', 'test_recall@10', 'train_auc']
    """
    data_override = overrides.pop("data", None)
    cfg = TrainConfig(**asdict(config)) if config is not None else TrainConfig()
    for k, v in overrides.items():
        if not hasattr(cfg, k):
            raise TypeError(f"unknown TrainConfig field {k!r}")
        setattr(cfg, k, v)
    if data_override is not None:
        if not isinstance(data_override, str):
            return _train_split(cfg, data_override)
        cfg.data = data_override
    if cfg.temperature is None:
        cfg.temperature = 0.5 if cfg.data == "digits" else 1.0
    if cfg.data == "digits" and cfg.model == "mf":
        cfg.model = "mlp"
    if cfg.epochs < 1 or cfg.batch_size < 2:
        raise ValueError("epochs must be >= 1 and batch_size >= 2")
    device = resolve_device(cfg.device)
    cfg.rng = int_seed("rng", cfg.rng)
    torch.manual_seed(cfg.rng)
    gen = torch.Generator().manual_seed(cfg.rng)
    recorder = ProbeRecorder(beta=cfg.beta, hcl_beta=cfg.hcl_beta) if cfg.probe else None
    t0 = time.perf_counter()
    if cfg.data == "digits":
        history, extra = _train_digits(cfg, device, gen, recorder)
    else:
        history, extra = _train_rec(cfg, device, gen, recorder)
    result = {
        "config": asdict(cfg),
        "device": str(device),
        "seconds": time.perf_counter() - t0,
        "history": history,
        "final": history[-1],
        **extra,
    }
    if recorder is not None and recorder.rows:
        result["probe"] = summarize(recorder.rows)
    if cfg.out:
        out = Path(cfg.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(result, indent=2, default=float))
        if recorder is not None and recorder.rows:
            recorder.frame().to_csv(out / "probes.csv", index=False)
        result["results_file"] = str(out / "results.json")
    result["probe_rows"] = recorder.rows if recorder is not None else []
    return result
