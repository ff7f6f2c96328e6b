r"""``negtheory reproduce gowalla-benchmark``: MF on the field's standard Gowalla split, beside the published ladder.

The recommendation literature reports on the Gowalla split released with NGCF / LightGCN
(29 858 users, 40 981 items, 810 128 training and 217 242 test pairs; ``train.txt`` /
``test.txt``, one line per user: the user id, then the item ids). Its metrics are recall@20 and
NDCG@20 over every test user, all items the user has not interacted with in training ranked
(the LightGCN release's evaluation: recall = hits / |test items|, NDCG with the ideal DCG over
min(|test items|, 20) positions) — the same definitions as :func:`negtheory.recsys.topk_metrics_csr`.

Published numbers on exactly these files (the ``PUBLISHED`` table):

=========================  ==========  ========  ==========================================
model                      recall@20   NDCG@20   source
=========================  ==========  ========  ==========================================
MF-BPR (1 negative)        0.1291      0.1109    NGCF paper (Wang et al. 2019), Table 2
MF-BPR (300 negatives)     0.1627      0.1378    BARS benchmark (Zhu et al. 2022)
MF-CCL                     0.1837      0.1493    SimpleX (Mao et al. 2021)
LightGCN                   0.1824      0.1547    LightGCN release (He et al. 2020)
=========================  ==========  ========  ==========================================

Protocol (every setting fixed here in advance, none tuned on the test split): MF with d = 64,
Adam (lr 1e-3, batch 2048, L2 1e-4 on the batch's embeddings, the LightGCN release's MF
setting), uniform negatives among the user's non-interacted items drawn on the model's device
(``RNS(on_device=True)``). A validation split of ``--valid-fraction`` (default 5 %) of the
training pairs is carved out with the run's seed and not trained on; every ``--eval-every``
epochs the validation and test splits are ranked (test with training and validation items
masked). Reported: test metrics at the epoch of best validation recall@20 (the protocol's
number) and, labelled as the released code's convention, the best test value over the
evaluations. ``--valid-fraction 0`` is the *refit* protocol: nothing is held out, every training
pair is trained on for the fixed ``--epochs`` (which must be chosen beforehand, e.g. the best
validation epoch of a run with a validation split), and the row reports the final epoch — no
choice is made on the test split either way. The rungs (:data:`RUNGS`): BPR with 1 and with 300
negatives on the inner product, and the package's InfoNCE, DCL, HCL and BCL on the cosine with t = 0.1 and N = 256 negatives per
pair (the thesis's defaults for τ⁺, β, α; DCL / HCL with M = 5 extra positives, as released).
Named ablations (:data:`ABLATIONS`, run only when ``--rungs`` names them) change one setting of a
rung: InfoNCE at t = 0.05 and 0.2, DCL / HCL with τ⁺ = 0.001, and InfoNCE and DCL (τ⁺ = 0.001) with
N = 1 024 negatives, and the ``-shared-`` ones, whose N negatives (256, 1 024, 4 096) are drawn
once per mini-batch from the whole catalogue and shared by its rows
(:class:`negtheory.training.SharedUniform`). A temperature is chosen by
validation recall@20 at a common epoch, never by the test split. The ablation ``lightgcn`` is the
ladder's top published rung itself: LightGCN as its release trains it here (3 layers, d = 64, BPR,
the optimiser above, 1 000 epochs; an epoch is a pass over the training pairs, where the release
draws its users uniformly).

A run may be cut by ``--time-budget`` seconds (it stops at the first evaluation past it; the
table says how many epochs each ran). Every (rung, seed) is one job of the reproduce engine
(``--jobs`` processes, or Dask), stored in ``OUT/runs/`` and reused by a rerun.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from .._cli_common import default_output, integer, real
from ._common import add_executor_arguments, add_output_arguments, connect_executor, t_half_width
from .engine import Plan, RunSpec, execute

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    import pandas as pd

HELP = "MF with BPR and the thesis's contrastive losses on Gowalla's standard split, beside the published ladder"

__all__ = [
    "HELP",
    "RUNGS",
    "LADDER",
    "ABLATIONS",
    "PUBLISHED",
    "add_arguments",
    "run",
    "benchmark",
    "rung_specs",
]

#: published (recall@20, NDCG@20, source) on the NGCF / LightGCN Gowalla split
PUBLISHED: dict[str, tuple[float, float, str]] = {
    "MF-BPR": (0.1291, 0.1109, "NGCF paper, Table 2"),
    "MF-BPR (300 neg., BARS)": (0.1627, 0.1378, "BARS benchmark"),
    "MF-CCL": (0.1837, 0.1493, "SimpleX paper"),
    "LightGCN": (0.1824, 0.1547, "LightGCN release"),
}

_DOT = {"kind": "MF", "dim": 64}
_COSINE = {"kind": "MF", "dim": 64, "similarity": "cosine"}
#: MF-CCL's released MF: cosine, dropout 0.1 on the user vector in training, initial entries N(0, 1e-4^2)
_MFCCL_MODEL = {**_COSINE, "init_std": 1e-4, "dropout": 0.1}

#: rung -> (model, loss, epochs, the published row it stands beside); every rung: RNS on the
#: device, Adam(lr 1e-3, batch 2048, batch L2 1e-4); the contrastive losses on the cosine with
#: t = 0.1 and N = 256 (their other hyper-parameters: the spec defaults, the thesis's)
RUNGS: dict[str, tuple[dict[str, Any], dict[str, Any], int, str]] = {
    "bpr": (_DOT, {"kind": "BPR"}, 400, "MF-BPR"),
    "bpr-300": (_DOT, {"kind": "BPR", "negatives": 300}, 150, "MF-BPR (300 neg., BARS)"),
    **{
        kind.lower(): (_COSINE, {"kind": kind, "negatives": 256, "temperature": 0.1}, 150, "MF-CCL")
        for kind in ("InfoNCE", "DCL", "HCL", "BCL")
    },
}


#: named ablations, run only when asked for (``--rungs``); each changes one setting of a ladder rung:
#: the temperature of InfoNCE (t = 0.05, 0.2 against the ladder's 0.1; compared on validation recall, never
#: on test) and the class prior of DCL / HCL (τ⁺ = 0.001, the order of Gowalla's share of a user's
#: positives among the items, 27 / 40 981 ≈ 0.0007 in training, against the thesis's 0.06)
def _variant(rung: str, **loss: Any) -> tuple[dict[str, Any], dict[str, Any], int, str]:
    """A ladder rung with some of its loss's settings changed (everything else as the rung)."""
    model, base, epochs, published = RUNGS[rung]
    return model, {**base, **loss}, epochs, published


#: MF-CCL's own loss as released (margin 0.9, weight 150 by default; N = 800), beside the published MF-CCL row
def _ccl_n800(epochs: int) -> tuple[dict[str, Any], dict[str, Any], int, str]:
    """MF-CCL's loss rung with ``epochs`` default epochs."""
    return _COSINE, {"kind": "CCL", "negatives": 800}, epochs, "MF-CCL"


ABLATIONS: dict[str, tuple[dict[str, Any], dict[str, Any], int, str]] = {
    "infonce-t0.05": _variant("infonce", temperature=0.05),
    "infonce-t0.2": _variant("infonce", temperature=0.2),
    "dcl-tau0.001": _variant("dcl", tau_plus=0.001),
    "hcl-tau0.001": _variant("hcl", tau_plus=0.001),
    # four times the ladder's negatives, for the best rung (DCL, τ⁺ = 0.001) and InfoNCE: MF-CCL's paper (Mao et
    # al., CIKM 2021) credits its numbers to the loss "and a large negative sampling ratio"
    "infonce-n1024": _variant("infonce", negatives=1024),
    "dcl-tau0.001-n1024": _variant("dcl", tau_plus=0.001, negatives=1024),
    # the same number of negatives shared by a batch's rows (SharedUniform: catalogue-uniform, one [B, d] x [d, N]
    # product per step), which makes N = 1 024 - 4 096 affordable on a CPU: InfoNCE at 256 (to set beside the per-row
    # rung), 1 024 and 4 096, and the best thesis rung (DCL, τ⁺ = 0.001) at 4 096
    "infonce-shared-n256": _variant("infonce"),
    "infonce-shared-n1024": _variant("infonce", negatives=1024),
    "infonce-shared-n4096": _variant("infonce", negatives=4096),
    "dcl-tau0.001-shared-n4096": _variant("dcl", tau_plus=0.001, negatives=4096),
    # the published MF-CCL's own loss (SimpleX's CCL, margin 0.9, weight 150, N = 800 as its released Gowalla run) on
    # this pipeline: whether the gap to 0.1837 is the loss or the rest of the protocol (not a thesis loss)
    "ccl-shared-n800": _ccl_n800(150),
    # ... and with the released MF-CCL run's optimiser (Adam lr 1e-4, batch 256, embedding L2 1e-8) instead of the
    # ladder's, for CCL and for InfoNCE (t = 0.1) at the same N = 800: whether the optimiser is the gap
    "ccl-shared-n800-simplex-adam": _ccl_n800(150),
    "infonce-shared-n800-simplex-adam": _variant("infonce", negatives=800),
    # MF-CCL's whole training protocol for CCL and InfoNCE: its 800 negatives drawn per row (RNS, not shared), its
    # optimiser, and its learning-rate cut (tenfold; the released log cuts when the monitored metric stalls, from
    # epoch 19): here fixed in advance after epoch 20, so that the curve before the cut isolates the per-row draw
    # (beside the shared rungs above) and the epochs after it the cut; without the cut for runs of <= 20 epochs
    "ccl-n800-simplex-adam": _ccl_n800(30),
    "infonce-n800-simplex-adam": _variant("infonce", negatives=800),
    "ccl-n800-simplex-adam-decay20": _ccl_n800(30),
    "infonce-n800-simplex-adam-decay20": _variant("infonce", negatives=800),
    # the cut alone: the shared rung above, the same seed (so the same first 20 epochs), then lr 1e-5
    "infonce-shared-n800-simplex-adam-decay20": _variant("infonce", negatives=800),
}
# ... and MF-CCL's released model on top of its whole protocol: the user vector's dropout (0.1, after the
# normalisation) and the N(0, 1e-4^2) initialisation of its code (RecBox/DEEM MF, MF-CCL's Yelp18 config; the Gowalla
# config is not published), for CCL (the pipeline's control) and the thesis's InfoNCE: the -decay20 rung with its
# model replaced (30 epochs by default)
ABLATIONS.update(
    {
        f"{b}-released-model": (_MFCCL_MODEL, ABLATIONS[b][1], 30, ABLATIONS[b][3])
        for b in ("ccl-n800-simplex-adam-decay20", "infonce-n800-simplex-adam-decay20")
    }
)
# ... and the released run's whole learning-rate schedule and length, read off its public log (not chosen on any split
# of this pipeline): lr 1e-4 for epochs 1-19, 1e-5 for 20-30, 1e-6 from 31, 40 epochs (its best test epoch is 39);
# the -released-model rungs with their single cut after epoch 20 replaced by the log's two cuts
ABLATIONS.update(
    {
        f"{b}-cut19-30-released-model": (_MFCCL_MODEL, ABLATIONS[b][1], 40, ABLATIONS[b][3])
        for b in ("ccl-n800-simplex-adam", "infonce-n800-simplex-adam")
    }
)

# ... and the released code's gradient clipping (total norm <= 10 before each step; the BaseModel of RecBox/DEEM) on
# the two -released-model schedules: active at the start, where this model's tiny initial entries (N(0, 1e-4^2)) and
# the cosine make the gradient's norm about 100 (measured: above 10 for most of the first 1 100 of 3 165 steps)
ABLATIONS.update(
    {
        f"{b}-clip10": ABLATIONS[b]
        for b in (
            "ccl-n800-simplex-adam-decay20-released-model",
            "infonce-n800-simplex-adam-decay20-released-model",
            "ccl-n800-simplex-adam-cut19-30-released-model",
            "infonce-n800-simplex-adam-cut19-30-released-model",
        )
    }
)

# ... and the released code's sampler on the full released protocol (model, clipping, schedule): each row's 800
# negatives drawn i.i.d. uniformly from the whole catalogue, the user's training items (the row's positive among
# them) not removed -- the RecBox/DEEM data generator's np.random.choice(num_items, ...) with its ignore_pos_items
# option unset, as in the released configuration (CatalogueUniform); every other rung draws RNS, which removes them
ABLATIONS.update(
    {
        f"{b}-released-sampler": ABLATIONS[b]
        for b in (
            "ccl-n800-simplex-adam-cut19-30-released-model-clip10",
            "infonce-n800-simplex-adam-cut19-30-released-model-clip10",
        )
    }
)
# ... and, on top, the released code's positive term relu(1 - s) (CCL(positive_hinge=True)): the same as 1 - s on a
# cosine, but the released model's inverted dropout of the user vector lets a positive's score exceed 1, where the
# hinge stops pulling it
#: the suffix of the whole released protocol (model, clipping, schedule, sampler), shared by its rungs
_RS_PROTOCOL = "n800-simplex-adam-cut19-30-released-model-clip10-released-sampler"
_RS = f"ccl-{_RS_PROTOCOL}"
ABLATIONS[f"{_RS}-hinge"] = (
    ABLATIONS[_RS][0],
    {**ABLATIONS[_RS][1], "positive_hinge": True},
    *ABLATIONS[_RS][2:],
)
# ... and the thesis's other contrastive losses under that whole released protocol (the InfoNCE rung above with its
# loss replaced): DCL and HCL at tau+ = 0.001 (the order of Gowalla's share of a user's positives among the items, fixed
# from the training data before any run; the thesis's 0.06 collapses both here) and BCL at its thesis defaults, each
# at the released run's 800 negatives a row
_RS_INFONCE = ABLATIONS[f"infonce-{_RS_PROTOCOL}"]
ABLATIONS.update(
    {
        f"{b}-{_RS_PROTOCOL}": (
            _RS_INFONCE[0],
            {**(ABLATIONS[b] if b in ABLATIONS else RUNGS[b])[1], "negatives": 800},
            *_RS_INFONCE[2:],
        )
        for b in ("dcl-tau0.001", "hcl-tau0.001", "bcl")
    }
)
# ... and the ladder's top published rung itself: LightGCN as its release trains it on this split (3 layers, d = 64,
# initial entries N(0, 0.1^2), BPR with one uniform negative, Adam lr 1e-3, batch 2048, the L2 1e-4 of the batch's
# layer-0 embeddings, 1 000 epochs: the release's defaults and its Gowalla command), the whole graph propagated at every
# step. One difference is kept: an epoch here is a shuffled pass over the training pairs, where the release draws as many
# (user, positive) pairs with the user uniform, so a heavy user is drawn no more often than a light one
ABLATIONS["lightgcn"] = (
    {"kind": "LightGCN", "dim": 64, "layers": 3},
    {"kind": "BPR"},
    1000,
    "LightGCN",
)
#: rungs whose negatives are drawn per row from the whole catalogue (CatalogueUniform, the released MF-CCL sampler)
CATALOGUE: frozenset[str] = frozenset(r for r in ABLATIONS if "-released-sampler" in r)

#: rungs trained with another optimiser than the ladder's (the keys it changes)
_SIMPLEX_ADAM = {"lr": 1e-4, "batch_size": 256, "weight_decay": 1e-8}
_OPTIMIZER_OF: dict[str, dict[str, Any]] = {
    r: {**_SIMPLEX_ADAM, "milestones": (20,)}
    if "-decay20" in r
    else {**_SIMPLEX_ADAM, "milestones": (19, 30)}
    if "-cut19-30" in r
    else _SIMPLEX_ADAM
    for r in ABLATIONS
    if "-simplex-adam" in r
}
_OPTIMIZER_OF.update(
    {r: {**o, "max_grad_norm": 10.0} for r, o in _OPTIMIZER_OF.items() if "-clip10" in r}
)

#: rungs whose negatives are shared by a batch's rows (every other rung: RNS on the model's device)
SHARED: frozenset[str] = frozenset(r for r in ABLATIONS if "-shared-" in r)

#: the ladder run by default (the ablations are opt-in)
LADDER: tuple[str, ...] = tuple(RUNGS)
RUNGS.update(ABLATIONS)

_OPTIMIZER = {
    "kind": "Adam",
    "lr": 1e-3,
    "batch_size": 2048,
    "weight_decay": 1e-4,
    "penalty": "batch",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce gowalla-benchmark`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (options added in place).
    """
    p.add_argument(
        "--data",
        required=True,
        help="folder with the release's train.txt and test.txt (or .gz): one line per user, user id then item ids",
    )
    p.add_argument(
        "--rungs",
        nargs="+",
        choices=list(RUNGS),
        default=list(LADDER),
        help=f"the rungs to run (default: the ladder, {' '.join(LADDER)}; the ablations "
        f"{', '.join(ABLATIONS)} only when named)",
    )
    p.add_argument(
        "--seeds", type=integer(1), default=3, help="seeds per rung (mean and 95%% interval)"
    )
    p.add_argument(
        "--epochs",
        type=integer(1),
        default=None,
        help="override every rung's epochs (defaults: bpr 400, the others 150)",
    )
    p.add_argument(
        "--eval-every",
        type=integer(1),
        default=5,
        help="rank validation and test every this many epochs",
    )
    p.add_argument(
        "--valid-fraction",
        type=real(0.0, 1.0, hi_open=True),
        default=0.05,
        help="share of the training pairs held out for model selection; 0: the refit protocol "
        "(train on every training pair for the fixed --epochs, report the final epoch)",
    )
    p.add_argument(
        "--time-budget",
        type=real(0.0, lo_open=True),
        default=None,
        help="seconds per run: stop at the first evaluation past it (default: none)",
    )
    p.add_argument(
        "--device", default="auto", help="cpu, cuda or auto (default auto: cuda when available)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 2 epochs per rung, 1 seed, dim 8, 8 negatives",
    )
    p.add_argument(
        "--checkpoints",
        action="store_true",
        help="keep each run's training state in OUT/checkpoints (saved at every evaluation): rerunning the "
        "command resumes a stopped run, and with a larger --epochs continues a finished one",
    )
    add_executor_arguments(p)
    add_output_arguments(
        p, default_output("gowalla-benchmark"), "gowalla_benchmark.csv / .md / .png"
    )


def rung_specs(rung: str, quick: bool = False) -> dict[str, Any]:
    """The specs of one rung as :func:`negtheory.training.fit` arguments.

    Parameters
    ----------
    rung : str
        A key of :data:`RUNGS`.
    quick : bool
        The smoke-run sizes (dim 8, at most 8 negatives, batch 256).

    Returns
    -------
    dict
        ``model``, ``loss``, ``sampler`` and ``optimizer`` specs.
    """
    from ..training.specs import spec_from_dict

    if rung not in RUNGS:
        raise ValueError(f"rung must be one of {', '.join(RUNGS)}, got {rung!r}")
    model, loss, _, _ = RUNGS[rung]
    model, loss, opt = dict(model), dict(loss), {**_OPTIMIZER, **_OPTIMIZER_OF.get(rung, {})}
    if quick:
        model["dim"] = 8
        loss["negatives"] = min(loss.get("negatives", 1), 8)
        opt["batch_size"] = 256
    sampler = (
        {"kind": "SharedUniform"}
        if rung in SHARED
        else {"kind": "CatalogueUniform", "on_device": True}
        if rung in CATALOGUE
        else {"kind": "RNS", "on_device": True}
    )
    return dict(
        model=spec_from_dict(model),
        loss=spec_from_dict(loss),
        sampler=spec_from_dict(sampler),
        optimizer=spec_from_dict(opt),
    )


def _job(base, task) -> dict[str, Any]:
    """Worker: one (rung, seed) -> its row (top level, for worker processes)."""
    import resource

    import torch

    from ..recsys.loop import TimeBudget
    from ..training.fit import fit
    from ..training.specs import Evaluation

    rung, seed, epochs, every, valid_fraction, budget, device, quick, ck_dir = task
    data = base.with_validation(valid_fraction, rng=seed)
    # valid_fraction 0 (the refit protocol): nothing held out, so no selection; the final epoch is the row.
    ev = Evaluation(
        every=every, ks=(20,), on="both" if valid_fraction > 0 else "test", monitor="recall@20"
    )
    cbs = [TimeBudget(budget)] if budget else []
    if device != "cpu" and torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    # a run's state file, shared by every --epochs of the same (rung, seed, split): a longer run continues a shorter one
    ck = (
        os.path.join(ck_dir, f"{rung}_seed{seed}_v{valid_fraction}{'_quick' if quick else ''}.pt")
        if ck_dir
        else None
    )
    res = fit(
        data,
        **rung_specs(rung, quick),
        epochs=epochs,
        evaluation=ev,
        rng=seed,
        callbacks=cbs,
        device=device,
        checkpoint=ck,
    )
    wall = time.perf_counter() - t0
    hist = res.history  # one row per evaluation, each with the test metrics
    best_epoch = res.best_epoch if res.best_epoch is not None else hist[-1]["epoch"]
    best = next(h for h in hist if h["epoch"] == best_epoch)
    top = max(hist, key=lambda h: h["test_recall@20"])
    last = hist[-1]
    cuda = str(res.config.get("device", "")).startswith("cuda")
    return dict(
        rung=rung,
        seed=seed,
        epochs_run=last["epoch"],
        epochs_planned=epochs,
        best_epoch=best_epoch,
        valid_fraction=valid_fraction,
        time_budget_hit=bool(last.get("time_budget_hit", False)),
        valid_recall20=best.get("valid_recall@20", float("nan")),
        recall20=best["test_recall@20"],
        ndcg20=best["test_ndcg@20"],
        max_recall20=top["test_recall@20"],
        max_ndcg20=max(h["test_ndcg@20"] for h in hist),
        final_recall20=last["test_recall@20"],
        final_ndcg20=last["test_ndcg@20"],
        # the epochs trained in this call: a resumed run's earlier epochs ran in another process
        seconds=wall,
        seconds_per_epoch=wall / max(last["epoch"] - res.resumed_from, 1),
        resumed_from=res.resumed_from,
        device=res.config.get("device"),
        peak_gpu_gb=torch.cuda.max_memory_allocated() / 2**30 if cuda else None,
        peak_rss_gb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        # (epoch, valid recall@20, test recall@20, that epoch's mean training loss) per evaluation
        curve=[
            (
                h["epoch"],
                h.get("valid_recall@20", float("nan")),
                h["test_recall@20"],
                h.get("loss", float("nan")),
            )
            for h in hist
        ],
    )


def benchmark(
    data_dir: str | os.PathLike[str],
    rungs: Sequence[str] = LADDER,
    seeds: int = 3,
    *,
    epochs: int | None = None,
    eval_every: int = 5,
    valid_fraction: float = 0.05,
    time_budget: float | None = None,
    device: str = "auto",
    quick: bool = False,
    executor: Any = "local",
    jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
    checkpoint_dir: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Run the ladder: every (rung, seed) through the reproduce engine; one row per run.

    Parameters
    ----------
    data_dir : str or Path
        Folder with ``train.txt`` / ``test.txt`` (or ``.gz``) in the LightGCN release's format.
    rungs : sequence of str
        Keys of :data:`RUNGS` (default: :data:`LADDER`; the :data:`ABLATIONS` only when named).
    seeds : int
        Seeds 0 .. seeds - 1 per rung (each also draws its validation split).
    epochs : int, optional
        Override every rung's epochs.
    eval_every : int
        Evaluate every this many epochs.
    valid_fraction : float
        Share of the training pairs held out for validation, in [0, 1); 0 is the refit protocol
        (every training pair trained on for the fixed ``epochs``, the final epoch reported).
    time_budget : float, optional
        Seconds per run (:class:`negtheory.recsys.loop.TimeBudget`).
    device : {"auto", "cpu", "cuda"}
        Where the runs train.
    quick : bool
        Smoke sizes (:func:`rung_specs`).
    executor, jobs, cache_dir, progress
        As :func:`negtheory.reproduce.engine.execute`.
    checkpoint_dir : str or Path, optional
        Keep each run's training state here, one file per (rung, seed, validation fraction), saved
        after every evaluation (:mod:`negtheory.training.checkpoint`): a run stopped part-way resumes
        from its last evaluation, and a later call with more ``epochs`` continues it. The folder
        must be one every worker can reach.

    Returns
    -------
    pandas.DataFrame
        One row per (rung, seed): epochs run, best epoch, test recall@20 / NDCG@20 at the best
        validation epoch, their maxima over the evaluations, final values, seconds, peak memory.
    """
    import pandas as pd

    from ..recsys.datasets import thesis_split

    for r in rungs:
        if r not in RUNGS:
            raise ValueError(f"rungs must be among {', '.join(RUNGS)}, got {r!r}")
    specs = []
    for r in rungs:
        n_ep = epochs if epochs is not None else (2 if quick else RUNGS[r][2])
        for s in range(seeds):
            task = (
                r,
                s,
                n_ep,
                eval_every,
                valid_fraction,
                time_budget,
                device,
                quick,
                None if checkpoint_dir is None else os.fspath(checkpoint_dir),
            )
            name = f"{r}_seed{s}_ep{n_ep}_ev{eval_every}_v{valid_fraction}_b{time_budget}{'_quick' if quick else ''}.json"
            specs.append(RunSpec(key=(r,), replicate=s, task=task, name=name, cost=float(n_ep)))
    plan = Plan(
        tuple(specs),
        _job,
        lambda: thesis_split("gowalla-lightgcn", data_dir),
        desc="Gowalla ladder",
    )
    rows = execute(plan, cache_dir=cache_dir, executor=executor, jobs=jobs, progress=progress)
    return pd.DataFrame(rows)


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and 95 % t-interval half-width per rung, beside the published row it stands with.

    Parameters
    ----------
    df : pandas.DataFrame
        :func:`benchmark`'s rows.

    Returns
    -------
    pandas.DataFrame
        One row per rung.
    """
    import pandas as pd

    out = []
    for rung, g in df.groupby("rung", sort=False):
        pub = RUNGS[rung][3]
        pr, pn, src = PUBLISHED[pub]
        row = dict(
            rung=rung,
            seeds=len(g),
            epochs_run=f"{g.epochs_run.min()}-{g.epochs_run.max()}",
            published=pub,
            published_recall20=pr,
            published_ndcg20=pn,
            source=src,
        )
        for col in ("recall20", "ndcg20", "max_recall20", "max_ndcg20", "seconds_per_epoch"):
            row[col] = float(g[col].mean())
            row[col + "_ci"] = t_half_width(g[col]) if len(g) > 1 else float("nan")
        row["relative_gap"] = row["recall20"] / pr - 1.0
        gpu = g.peak_gpu_gb.dropna() if "peak_gpu_gb" in g else []
        row["peak_gpu_gb"] = float(max(gpu)) if len(gpu) else float("nan")
        row["peak_rss_gb"] = float(g.peak_rss_gb.max())
        out.append(row)
    return pd.DataFrame(out)


def _cell(m: float, h: float) -> str:
    return f"{m:.4f}" if h != h else f"{m:.4f} [{m - h:.4f}, {m + h:.4f}]"


def _memory(r: Any) -> str:
    """Peak GPU memory of a rung's runs, or (trained on the CPU) their peak host RSS, in GB."""
    if r.peak_gpu_gb == r.peak_gpu_gb:  # not NaN: a GPU run
        return f"{r.peak_gpu_gb:.2f}"
    return f"{r.peak_rss_gb:.2f} (RSS, CPU)"


def markdown(summary: pd.DataFrame, args_line: str, refit: bool = False) -> str:
    """The ladder as a markdown table (recall@20 / NDCG@20, mean [95 % CI]) with the published rows.

    ``refit``: the rows come from the refit protocol (``--valid-fraction 0``: final epoch, nothing held out).
    """
    how = (
        [
            "Test metrics at the final epoch of a fixed count, trained on every training pair (the refit protocol,",
            "--valid-fraction 0: nothing held out, no selection);",
        ]
        if refit
        else [
            "Test metrics at the epoch of best validation recall@20 (validation carved from train, not trained on);"
        ]
    )
    lines = [
        "# MF on Gowalla's standard split (NGCF / LightGCN release) beside the published ladder",
        "",
        f"`{args_line}`",
        "",
        *how,
        "'max over evals' is the best test value over the evaluations (the released code's convention, for",
        "comparison only). Mean [95 % t-interval] over seeds.",
        "",
        "| rung | seeds | epochs | recall@20 | NDCG@20 | recall@20 max over evals | published (recall / NDCG) | gap (recall) | s / epoch | peak GB (GPU, else host RSS) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in summary.iterrows():
        lines.append(
            f"| {r.rung} | {r.seeds} | {r.epochs_run} | {_cell(r.recall20, r.recall20_ci)} | {_cell(r.ndcg20, r.ndcg20_ci)} | "
            f"{_cell(r.max_recall20, r.max_recall20_ci)} | {r.published}: {r.published_recall20:.4f} / {r.published_ndcg20:.4f} | "
            f"{100 * r.relative_gap:+.1f} % | {r.seconds_per_epoch:.2f} | {_memory(r)} |"
        )
    lines += [
        "",
        "Published: "
        + "; ".join(f"{k} {v[0]:.4f} / {v[1]:.4f} ({v[2]})" for k, v in PUBLISHED.items()),
    ]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """``negtheory reproduce gowalla-benchmark``: the ladder, then its CSV, markdown table and figure.

    Parameters
    ----------
    args : argparse.Namespace
        The options of :func:`add_arguments`: ``--data``, ``--rungs``, ``--seeds``, ``--epochs``,
        ``--eval-every``, ``--valid-fraction``, ``--time-budget``, ``--device``, ``--quick``,
        ``--checkpoints``, the executor options and ``--out``.

    Returns
    -------
    int
        0 once ``gowalla_benchmark.csv``, ``gowalla_benchmark_runs.csv``, ``.md`` and ``.png`` are
        written to ``--out``.

    Raises
    ------
    ValueError
        ``--data`` is not a folder.
    """
    from pathlib import Path

    from matplotlib.figure import Figure

    from .._cli_common import output_dir

    data = Path(args.data)
    if not data.is_dir():
        raise ValueError(
            f"--data: {data} is not a folder (it must hold the release's train.txt and test.txt)"
        )
    out = output_dir(args.out, "--out")
    seeds = 1 if args.quick else args.seeds
    ck_dir = None
    if getattr(args, "checkpoints", False):
        ck_dir = out / "checkpoints"
        ck_dir.mkdir(exist_ok=True)
    executor, close = connect_executor(args)
    try:
        df = benchmark(
            data,
            args.rungs,
            seeds,
            epochs=args.epochs,
            eval_every=args.eval_every,
            valid_fraction=args.valid_fraction,
            time_budget=args.time_budget,
            device=args.device,
            quick=args.quick,
            executor=executor,
            jobs=args.jobs,
            cache_dir=out / "runs",
            progress=not args.quiet,
            checkpoint_dir=ck_dir,
        )
    finally:
        close()
    df.drop(columns=["curve"]).to_csv(out / "gowalla_benchmark_runs.csv", index=False)
    summ = summarise(df)
    summ.to_csv(out / "gowalla_benchmark.csv", index=False)
    line = (
        f"negtheory reproduce gowalla-benchmark --rungs {' '.join(args.rungs)} --seeds {seeds} --eval-every {args.eval_every} "
        f"--valid-fraction {args.valid_fraction}"
        + (f" --epochs {args.epochs}" if args.epochs else "")
        + (f" --time-budget {args.time_budget:g}" if args.time_budget else "")
        + (" --quick" if args.quick else "")
    )
    refit = args.valid_fraction == 0
    text = markdown(summ, line, refit)
    (out / "gowalla_benchmark.md").write_text(text)
    fig = Figure(figsize=(9, 4), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    x = range(len(summ))
    ci = summ.recall20_ci
    band = "mean ± 95 % CI" if ci.notna().any() else "1 seed: no interval"
    ax1.bar(
        x,
        summ.recall20,
        yerr=ci.fillna(0) if ci.notna().any() else None,
        capsize=3,
        color="C0",
        label=f"measured at the {'final' if refit else 'best validation'} epoch ({band})",
    )
    ax1.scatter(
        x, summ.published_recall20, marker="_", s=600, color="C3", zorder=3, label="published"
    )
    ax1.set_ylim(0, 1.25 * max(summ.published_recall20.max(), summ.recall20.max()))
    ax1.set_xticks(list(x), summ.rung, rotation=30)
    ax1.set_ylabel("test recall@20")
    ax1.set_title("Gowalla (LightGCN split): MF ladder")
    ax1.legend(fontsize=8, loc="upper center", ncols=1)
    for rung, g in df.groupby("rung", sort=False):
        ep, va, te = list(zip(*g.iloc[0].curve))[
            :3
        ]  # runs stored before the loss was recorded have 3 columns
        (line,) = ax2.plot(ep, te, label=f"{rung} (seed {g.iloc[0].seed})")
        ax2.plot(ep, va, ls="--", color=line.get_color(), lw=0.8)
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("test recall@20")
    ax2.set_title("test recall@20 (solid), validation (dashed)")
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
    fig.savefig(out / "gowalla_benchmark.png", dpi=110)
    print(text)
    print(
        f"wrote {out / 'gowalla_benchmark.csv'}, {out / 'gowalla_benchmark_runs.csv'}, {out / 'gowalla_benchmark.md'}, "
        f"{out / 'gowalla_benchmark.png'} (finished runs kept in {out / 'runs'})"
    )
    return 0
