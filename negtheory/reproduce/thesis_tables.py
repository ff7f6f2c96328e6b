r"""``negtheory reproduce thesis-tables``: the MF rows of thesis Tables 4.2-4.5, 5.2 and 6.3 (MovieLens-100K, -1M, Yahoo!-R3).

Protocol (thesis ch. 4-6 and its released code; every choice the thesis leaves open is an option):

* data — a user-supplied split (``--train FILE --test FILE``; the thesis's random 80/20 split of
  all ratings turned into implicit feedback, §4.5.1.1), ids kept consistent across the files, in
  any layout of :func:`negtheory.recsys.read_interactions` (``--format``: CSV / ``u.data``,
  MovieLens-1M ``ratings.dat``, Yahoo!-R3, LightGCN); ``--dataset ml-100k|ml-1m|yahoo-r3`` picks
  whose printed rows fill the ``thesis`` column (Table 4.5 is printed for MovieLens-100K only);
* Tables 4.2 and 4.5 — BPR-MF by batch-1 SGD (:func:`negtheory.recsys.fit_bpr_sgd`): d = 32,
  lr 0.01, reg 0.01, 100 epochs (thesis §4.5.1.2), one negative per pair from RNS, PNS, DNS,
  AOBPR, SRNS (the released run script's S1 = 8, S2 = 64, α = 5, warm-up 50 epochs, τ = 10,
  5-epoch window: the thesis states none; other readings as extra rows with ``--srns-variants``,
  :data:`SRNS_VARIANTS`) or BNS (λ = 5, |M_u| = 5, prior pop / N, eq. 4.16);
  Table 4.5 uses BNS with the oracle prior and growing |M_u|, in named readings (``variant``
  column, ``--bns-variants``; :data:`BNS_VARIANTS`): ``soft`` the thesis's text, P_fn =
  (label − 0.2)² = 0.64 / 0.04 and F over all non-interacted items; ``soft-Fcand`` F over the
  candidate set M_u; ``soft-tn0.001`` the true-negative prior 0.001 instead of 0.04; ``hard`` the
  label as prior (1 / 0), with which eq. 4.14 returns the label and eq. 4.26 picks the
  highest-scored candidate that is not a test item (at |M_u| = all: the optimal sampler h* of
  eq. 4.19 with the exact posterior). |M_u| = 1 is RNS in every reading (one row, variant ``-``),
  and ``soft-Fcand`` at |M_u| = all is ``soft`` (it reuses those runs). The BPR row of Table 5.2
  repeats the thesis's RNS row, so it reuses the RNS runs;
* Table 4.3 (BNS ablations, §4.5.2.3; printed for MovieLens-100K) — the same SGD runs with BNS
  changed in one part: BNS-1 the λ warm start λ_t = max(10 − 0.1 t, 2), t the 0-based epoch
  (:func:`negtheory.recsys.bns_lam_warm_start`); BNS-2 RNS for the first E epochs, then BNS (a
  warm start of the sample information; the thesis gives no E: E = 20 by default, variant
  ``E=20``, and ``--bns2-warm 20 50`` adds E = 50 as its own row); BNS-3 the uninformative prior
  P_fn(l) = 1 / |I| (1 / 1682 on MovieLens-100K); BNS-4 the occupation prior P_fn(u, l) =
  pop_l / N (1 + Δo_ul) (:func:`negtheory.recsys.bns_occupation_prior`), run only with
  MovieLens-100K's ``u.user`` (``--user-file``, ``--user-id-offset -1`` for 0-based interaction
  files), else reported as not run. Its RNS and BNS rows repeat Table 4.2's and reuse those runs;
* Table 4.4 (§4.5.2.4) — BPR, BCE and InfoNCE (N = 2 negatives) with RNS and with BNS, the same
  batch-1 SGD and hyper-parameters (``fit_bpr_sgd(loss=..., n_negatives=...)``); with BNS each
  negative is chosen by eq. 4.26 among its own 5 uniform candidates. The BPR rows reuse Table
  4.2's runs;
* Tables 5.2 and 6.3 — mini-batch MF (:func:`negtheory.bridge.recommend.fit_mf`) with the
  released code's settings: Adam lr 1e-3, weight decay 1e-5, batch 1024, N = 5 negatives,
  M = 5 extra positives, t = 1, τ⁺ = 0.06, HCL β = 0.5, BCL α = 0.55, β = 0.6, 200 epochs with
  the learning rate divided by 10 after epoch 100;
* LightGCN (``--models lightgcn``; thesis §4.5.1.2) — the same mini-batch trainer with
  :class:`~negtheory.bridge.recommend.LightGCN` and the thesis's LightGCN settings
  (:data:`~negtheory.bridge.recommend.LIGHTGCN_THESIS`): d = 32, one layer, Adam lr 0.01 multiplied
  by 0.1 every 20 epochs, reg 1e-5 as Adam's weight decay (as the MF code of ch. 5-6; the LightGCN
  release's batch L2 at 1e-5 overfits, :func:`~negtheory.bridge.recommend.fit_mf`), 100 epochs,
  batch 128 (the thesis's 1024 on MovieLens-1M is not switched automatically), and the losses' N,
  M, t, τ⁺, α, β of the MF runs. Table 4.2's RNS and BNS rows are mini-batch BPR with one
  negative per pair, uniform (RNS) or chosen by BNS among 5 uniform non-interacted candidates
  (eq. 4.26, λ = 5, prior pop / |D|, eCDF over the user's non-interacted items); the batch-1 SGD
  kernels of the MF rows are MF-only, and PNS, AOBPR, DNS and SRNS are not run for LightGCN. The
  BPR row of Table 5.2 repeats Table 4.2's RNS row and reuses its runs;
* evaluation — all items the user has not interacted with in training are ranked; P/R/NDCG at
  5, 10, 20 (:func:`negtheory.recsys.topk_metrics`) over users with test items;
* reported value (``--protocol``) — ``fixed``: the test metrics after the last epoch of a run on
  the whole training split (no choice depends on test); ``valid``: 10 % of the training pairs
  are held out, the epoch with the best validation NDCG@10 is selected, and the test metrics at
  that epoch are reported. Either way the released code's convention — the maximum of each
  test metric over the evaluated epochs, which selects on test — is written beside it with
  ``convention = max_test_over_epochs (released code)``.

Mean and 95 % t-interval over seeds for each cell. Each (run, seed) is one job, seeded by its seed
alone: ``--jobs N`` runs N local processes, ``--executor dask`` a local Dask cluster of N workers,
``--executor ADDRESS`` the Dask scheduler there; the CSV is the same in every case, and finished
jobs are kept in ``OUT/runs/`` and reused by a rerun.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .._cli_common import CommandError, default_output, input_file, integer, output_dir, real
from ._common import (
    DATA_FORMATS,
    add_executor_arguments,
    add_format_argument,
    connect_executor,
    run_jobs,
    t_half_width,
)
from .thesis_numbers import DATASETS

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

    from .._typing import InteractionSource

HELP = (
    "thesis Tables 4.2 / 4.3 / 4.4 / 4.5 / 5.2 / 6.3 (MF rows, LightGCN rows with --models lightgcn) "
    "on a user-supplied MovieLens-100K, MovieLens-1M or Yahoo!-R3 split"
)

__all__ = [
    "HELP",
    "BNS_VARIANTS",
    "SRNS_VARIANTS",
    "add_arguments",
    "run",
    "plan",
    "run_tables",
    "summarize",
    "verdicts",
    "verdicts_markdown",
    "TOLERANCE",
]

TABLES = ("4.2", "4.3", "4.4", "4.5", "5.2", "6.3")
DEFAULT_BNS_SIZES = ("1", "3", "5", "10", "20", "50", "100")
ALL_BNS_SIZES = ("1", "3", "5", "10", "20", "50", "100", "500", "all")
METRICS = ("precision", "recall", "ndcg")
#: recommenders of ``--models``
MODELS = ("mf", "lightgcn")
#: Table 4.5 readings: variant -> fit_bpr_sgd keywords (oracle prior; see the module docstring)
BNS_VARIANTS = {
    "soft": dict(oracle_levels=(0.64, 0.04), ecdf="negatives"),
    "soft-Fcand": dict(oracle_levels=(0.64, 0.04), ecdf="candidates"),
    "soft-tn0.001": dict(oracle_levels=(0.64, 0.001), ecdf="negatives"),
    "hard": dict(oracle_levels=(1.0, 0.0), ecdf="negatives"),
}
#: LightGCN readings beside the thesis's §4.5.1.2 settings: variant -> fit_mf keywords over LIGHTGCN_THESIS
LIGHTGCN_VARIANTS = {
    # the batch the thesis gives for MovieLens-1M (and its ch. 5-6 MF code) instead of 128: 8x fewer steps
    "batch1024": dict(batch_size=1024),
}
#: SRNS readings beside the default (the released run script): variant -> fit_bpr_sgd keywords
SRNS_VARIANTS = {
    # the released SRNS_main.py's argparse defaults (S1 = 20, S2 = S1, alpha = 1, warm-up 1 epoch, tau = 1)
    "code-defaults": dict(srns_memory=20, srns_candidates=20, srns_alpha=1.0, srns_warmup=1.0, srns_tau=1.0),
    # no variance term: the memory's highest sigma(x_uk - x_ui) (an ablation)
    "alpha0": dict(srns_alpha=0.0),
}


def _bns1_lam(epoch: int) -> float:
    """BNS-1's λ at the 0-based epoch: max(10 − 0.1 epoch, 2) (:func:`negtheory.recsys.bns_lam_warm_start`)."""
    from ..recsys.bpr_sgd import bns_lam_warm_start

    return bns_lam_warm_start(epoch)


#: E of BNS-2 (RNS for the first E epochs, then BNS): the thesis states none; 20 is the default row
BNS2_WARM_EPOCHS = (20, 50)
#: Tables 4.3 / 4.4 runs: variant -> fit_bpr_sgd keywords (BNS-3 and BNS-4 are priors, in the run key)
ABLATION_VARIANTS = {
    "lam-warm": dict(lam_schedule=_bns1_lam),  # BNS-1
    **{f"rns-warm{e}": dict(warm_rns_epochs=e) for e in BNS2_WARM_EPOCHS},  # BNS-2
    "bce": dict(loss="bce"),  # Table 4.4, one negative per pair
    "infonce": dict(loss="infonce", n_negatives=2),  # Table 4.4, N = 2 negatives per pair
}
#: Table 4.4's losses: printed name -> variant of ABLATION_VARIANTS (None: BPR, Table 4.2's runs)
TABLE44_LOSSES = {"BPR": None, "BCE": "bce", "InfoNCE": "infonce"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce thesis-tables`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser; ``--train``, ``--test``, ``--tables``, ``--models``, ``--methods``,
        ``--seeds``, ``--epochs``, ``--protocol``, ``--valid-fraction``, ``--bns-sizes``,
        ``--eval-every``, ``--jobs``, ``--out`` and ``--quiet`` are added to it in place.
    """
    p.add_argument(
        "--train", required=True, help="training interactions: CSV user,item[,rating], MovieLens u.data or ratings.dat, Yahoo!-R3"
    )
    p.add_argument("--test", required=True, help="test interactions, same format; ids are matched to --train's")
    add_format_argument(p)
    p.add_argument(
        "--dataset",
        choices=DATASETS,
        default="ml-100k",
        help="whose printed rows fill the thesis column (Tables 4.2, 5.2, 6.3; Table 4.5 is printed for ml-100k only)",
    )
    p.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES, help="which tables to run")
    p.add_argument(
        "--models",
        nargs="+",
        default=["mf"],
        choices=MODELS,
        help="recommenders: mf (all four tables) and/or lightgcn (Tables 4.2 RNS / BNS, 5.2, 6.3; thesis §4.5.1.2 settings)",
    )
    p.add_argument(
        "--methods", nargs="+", default=None, help="only these methods (e.g. RNS BNS DPL; case-insensitive; default: all)"
    )
    p.add_argument("--seeds", type=integer(1), default=3, help="number of seeds (0 .. N-1); mean and 95%% interval over them")
    p.add_argument(
        "--epochs",
        type=integer(1),
        default=None,
        help="override the epochs of every run (default: 100 SGD, 200 mini-batch MF, 100 LightGCN)",
    )
    p.add_argument(
        "--protocol",
        choices=["fixed", "valid"],
        default="fixed",
        help="fixed: test after the last epoch; valid: test at the epoch of best validation NDCG@10 (10%% of train held out)",
    )
    p.add_argument(
        "--valid-fraction",
        type=real(0.0, 1.0, lo_open=True, hi_open=True),
        default=0.1,
        help="validation share of train for --protocol valid",
    )
    p.add_argument(
        "--bns-sizes",
        nargs="+",
        default=list(DEFAULT_BNS_SIZES),
        choices=ALL_BNS_SIZES,
        help="|M_u| of Table 4.5 (500 and 'all' cost O(|I|) exponentials per SGD step: 7-14 min per run on ML-100K)",
    )
    p.add_argument(
        "--bns-variants",
        nargs="+",
        default=list(BNS_VARIANTS),
        choices=list(BNS_VARIANTS),
        help="readings of Table 4.5's oracle prior, each reported as its own rows (default: all)",
    )
    p.add_argument(
        "--srns-variants",
        nargs="*",
        default=[],
        choices=list(SRNS_VARIANTS),
        help="extra SRNS rows of Table 4.2 with other hyper-parameters (default: none; the released run script's)",
    )
    p.add_argument(
        "--lightgcn-variants",
        nargs="*",
        default=[],
        choices=list(LIGHTGCN_VARIANTS),
        help="extra LightGCN rows of Table 4.2 (RNS, BNS) with other settings, e.g. batch1024 (default: none)",
    )
    p.add_argument(
        "--bns2-warm",
        nargs="+",
        type=int,
        default=[20],
        choices=list(BNS2_WARM_EPOCHS),
        help="E of Table 4.3's BNS-2 (RNS for E epochs, then BNS; the thesis states none), one row per value",
    )
    p.add_argument(
        "--user-file",
        default=None,
        help="MovieLens-100K's u.user (user|age|gender|occupation|zip): runs Table 4.3's BNS-4 (occupation prior)",
    )
    p.add_argument(
        "--user-id-offset",
        type=int,
        default=0,
        help="raw user id of --train/--test = u.user id + this (-1 for 0-based interaction files)",
    )
    p.add_argument(
        "--eval-every",
        type=integer(1),
        default=5,
        help="evaluate every this many epochs (the max-over-epochs convention uses these)",
    )
    add_executor_arguments(p)
    p.add_argument(
        "--out",
        default=str(default_output("thesis_tables")),
        help="output folder for thesis_tables.csv / .md / .png and runs.csv; finished runs are kept in OUT/runs/ and reused",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")


# ------------------------------------------------------------------------------------------
# what to run
# ------------------------------------------------------------------------------------------
def plan(
    tables: Sequence[str] = TABLES,
    methods: Sequence[str] | None = None,
    bns_sizes: Sequence[str] = DEFAULT_BNS_SIZES,
    bns_variants: Sequence[str] = tuple(BNS_VARIANTS),
    srns_variants: Sequence[str] = (),
    models: Sequence[str] = ("mf",),
    lightgcn_variants: Sequence[str] = (),
    bns2_warm: Sequence[int] = (20,),
    occupation: bool = False,
) -> list[tuple[str, str, str, str, tuple | None]]:
    r"""Rows to report: a list of ``(table, method, setting, variant, run_key)``; equal run keys share runs.

    Parameters
    ----------
    tables : sequence of str
        Tables among ``"4.2"``, ``"4.3"``, ``"4.4"``, ``"4.5"``, ``"5.2"``, ``"6.3"`` (default: all).
    methods : sequence of str, optional
        Keep only the rows of these methods (case-insensitive, e.g. ``["RNS", "BNS"]``; default
        None: every row).
    bns_sizes : sequence of str
        The :math:`|\mathcal{M}_u|` of Table 4.5's rows (``"1"`` .. ``"500"`` or ``"all"``;
        default 1 to 100).
    bns_variants : sequence of str
        Readings of Table 4.5's oracle prior (keys of :data:`BNS_VARIANTS`; default: all).
    srns_variants : sequence of str
        Extra SRNS rows of Table 4.2 (keys of :data:`SRNS_VARIANTS`; default: none).
    models : sequence of {"mf", "lightgcn"}
        The recommenders (default MF only): ``"lightgcn"`` adds the rows of setting
        ``"LightGCN"`` of Tables 4.2, 5.2 and 6.3.
    lightgcn_variants : sequence of str
        Extra LightGCN rows (Table 4.2's RNS and BNS) with other settings (keys of
        :data:`LIGHTGCN_VARIANTS`; default: none).
    bns2_warm : sequence of int
        The E of Table 4.3's BNS-2 rows (RNS for the first E epochs, then BNS; among
        :data:`BNS2_WARM_EPOCHS`, default 20 only), each row with variant ``"E=<E>"``.
    occupation : bool
        Whether Table 4.3's BNS-4 row (occupation prior) is run: it needs MovieLens' ``u.user``
        (``--user-file``); default False, the row is listed as not run (run key None).

    Returns
    -------
    list of tuple
        ``(table, method, setting, variant, run_key)`` per row: ``run_key`` is ``("sgd", sampler,
        candidates, prior[, variant])`` for BPR-MF SGD, ``("mf", loss)`` for mini-batch MF or
        ``("lightgcn", loss, sampler)`` for LightGCN (None for a row not run: PNS, AOBPR, DNS and
        SRNS for LightGCN); ``variant`` is ``"-"`` outside Table 4.5 and SRNS's extra rows, and for
        the |M_u| = 1 row (RNS in every reading).

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import plan
    >>> plan(["4.2"], ["rns", "bns"])
    [('4.2', 'RNS', 'BPR-MF SGD', '-', ('sgd', 'rns', 5, 'popularity')), ('4.2', 'BNS', 'BPR-MF SGD', '-', ('sgd', 'bns', 5, 'popularity'))]
    """
    rows: list[tuple[str, str, str, str, tuple | None]] = []
    if "4.2" in tables:
        for name in ("RNS", "PNS", "AOBPR", "DNS", "SRNS", "BNS"):
            rows.append(("4.2", name, "BPR-MF SGD", "-", ("sgd", name.lower(), 5, "popularity")))
            if name == "SRNS":
                for v in srns_variants:
                    if v not in SRNS_VARIANTS:
                        raise ValueError(f"srns_variants must be among {tuple(SRNS_VARIANTS)}, got {v!r}")
                    rows.append(("4.2", name, "BPR-MF SGD", v, ("sgd", "srns", 5, "popularity", v)))
    if "4.3" in tables or "4.4" in tables:
        rows += _ablation_rows(tables, bns2_warm, occupation)
    if "4.5" in tables:
        bad = [v for v in bns_variants if v not in BNS_VARIANTS]
        if bad or not bns_variants:
            raise ValueError(f"bns_variants must be among {tuple(BNS_VARIANTS)}, got {list(bns_variants)!r}")
        for size in bns_sizes:
            m = 10**9 if size == "all" else int(size)
            if m == 1:
                rows.append(("4.5", "BNS-oracle", f"|M_u|={size}", "-", ("sgd", "rns", 1, "popularity")))
                continue
            for v in bns_variants:
                # F over M_u is F over all negatives when M_u holds all of them: the soft runs
                code = "soft" if (v == "soft-Fcand" and size == "all") else v
                key = ("sgd", "bns", m, "oracle") if code == "soft" else ("sgd", "bns", m, "oracle", code)
                rows.append(("4.5", "BNS-oracle", f"|M_u|={size}", v, key))
    if "5.2" in tables:
        rows.append(("5.2", "BPR", "MF", "-", ("sgd", "rns", 5, "popularity")))
        for name in ("InfoNCE", "DCL", "HCL", "DPL"):
            rows.append(("5.2", name, "MF", "-", ("mf", name.lower())))
    if "6.3" in tables:
        for name in ("InfoNCE", "DCL", "HCL", "BCL"):
            rows.append(("6.3", name, "MF", "-", ("mf", name.lower())))
        # the released recommendation code trains BCL as -ln sigma(s+ - sum omega e^s), not eq. 6.48
        rows.append(("6.3", "BCL-released", "MF", "-", ("mf", "bcl_released")))
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ValueError(f"models must be among {MODELS}, got {bad}")
    if "mf" not in models:
        rows = []
    if "lightgcn" in models:
        rows += _lightgcn_rows(tables, lightgcn_variants)
    if methods:
        want = {m.lower() for m in methods}
        rows = [r for r in rows if r[1].lower() in want]
    return rows


def _ablation_rows(
    tables: Sequence[str], bns2_warm: Sequence[int], occupation: bool
) -> list[tuple[str, str, str, str, tuple | None]]:
    """The MF rows of Table 4.3 (BNS ablations) and Table 4.4 (BPR / BCE / InfoNCE, each with RNS and BNS).

    Table 4.3's RNS and BNS rows, and Table 4.4's BPR rows, repeat Table 4.2's: they reuse its runs.
    BNS-1 is the λ warm start (variant ``lam-warm``), BNS-2 RNS for E epochs then BNS
    (``rns-warm<E>``), BNS-3 the uniform prior 1 / |I| (prior ``"uniform"`` in the key), BNS-4 the
    occupation prior (prior ``"occupation"``, run only with a ``u.user`` file).
    """
    rows: list[tuple[str, str, str, str, tuple | None]] = []
    setting = "BPR-MF SGD"
    if "4.3" in tables:
        bad = [e for e in bns2_warm if e not in BNS2_WARM_EPOCHS]
        if bad or not bns2_warm:
            raise ValueError(f"bns2_warm must be among {BNS2_WARM_EPOCHS}, got {list(bns2_warm)!r}")
        rows.append(("4.3", "RNS", setting, "-", ("sgd", "rns", 5, "popularity")))
        rows.append(("4.3", "BNS", setting, "-", ("sgd", "bns", 5, "popularity")))
        rows.append(("4.3", "BNS-1", setting, "-", ("sgd", "bns", 5, "popularity", "lam-warm")))
        for e in bns2_warm:
            rows.append(("4.3", "BNS-2", setting, f"E={e}", ("sgd", "bns", 5, "popularity", f"rns-warm{e}")))
        rows.append(("4.3", "BNS-3", setting, "-", ("sgd", "bns", 5, "uniform")))
        rows.append(("4.3", "BNS-4", setting, "-", ("sgd", "bns", 5, "occupation") if occupation else None))
    if "4.4" in tables:
        for loss, v in TABLE44_LOSSES.items():
            for name in ("RNS", "BNS"):
                key = ("sgd", name.lower(), 5, "popularity") + ((v,) if v else ())
                rows.append(("4.4", name, loss, "-", key))
    return rows


def _lightgcn_rows(tables: Sequence[str], variants: Sequence[str] = ()) -> list[tuple[str, str, str, str, tuple | None]]:
    """The LightGCN rows of Tables 4.2, 5.2 and 6.3 (mini-batch BPR with RNS / BNS negatives, the losses)."""
    bad = [v for v in variants if v not in LIGHTGCN_VARIANTS]
    if bad:
        raise ValueError(f"lightgcn_variants must be among {tuple(LIGHTGCN_VARIANTS)}, got {bad}")
    rows: list[tuple[str, str, str, str, tuple | None]] = []
    if "4.2" in tables:
        for name in ("RNS", "PNS", "AOBPR", "DNS", "SRNS", "BNS"):
            key = ("lightgcn", "bpr", name.lower()) if name in ("RNS", "BNS") else None
            rows.append(("4.2", name, "LightGCN", "-", key))
            if key is not None:
                rows += [("4.2", name, "LightGCN", v, (*key, v)) for v in variants]
    if "5.2" in tables:
        rows.append(("5.2", "BPR", "LightGCN", "-", ("lightgcn", "bpr", "rns")))
        for name in ("InfoNCE", "DCL", "HCL", "DPL"):
            rows.append(("5.2", name, "LightGCN", "-", ("lightgcn", name.lower(), "rns")))
    if "6.3" in tables:
        for name in ("InfoNCE", "DCL", "HCL", "BCL"):
            rows.append(("6.3", name, "LightGCN", "-", ("lightgcn", name.lower(), "rns")))
        rows.append(("6.3", "BCL-released", "LightGCN", "-", ("lightgcn", "bcl_released", "rns")))
    return rows


def method_names(tables: Sequence[str] = TABLES) -> list[str]:
    """The method names ``--methods`` accepts for ``tables`` (case-insensitive), in plan order."""
    return list(dict.fromkeys(r[1] for r in plan(tables, None, DEFAULT_BNS_SIZES)))


def _job(data, task):
    """Worker: one (run_key, seed) on the loaded split -> (key, seed, per-evaluation history, seconds).

    Top level, so that worker processes and Dask workers import it; torch is imported only for 'mf'.
    """
    key, seed, _train, _test, epochs, protocol, valid_fraction, eval_every, progress = task[:9]
    from negtheory.recsys import fit_bpr_sgd

    if protocol == "valid":
        data = data.with_validation(valid_fraction, rng=seed)
    t0 = time.perf_counter()
    if key[0] == "sgd":
        _, sampler, cand, prior, *variant = key
        if prior == "occupation":  # BNS-4 (Table 4.3): the prior of the u.user file carried by the task
            from negtheory.recsys import bns_occupation_prior, read_user_occupations

            user_file, id_offset = task[10], task[11]
            prior = bns_occupation_prior(data, read_user_occupations(user_file, data.user_ids, id_offset))
        res = fit_bpr_sgd(
            data,
            sampler,
            candidates=cand,
            prior=prior,
            **({**BNS_VARIANTS, **SRNS_VARIANTS, **ABLATION_VARIANTS}[variant[0]] if variant else {}),
            epochs=epochs or 100,
            eval_every=eval_every,
            eval_on="both" if protocol == "valid" else "test",
            rng=seed,
            progress=progress,
        )
    elif key[0] == "lightgcn":
        from negtheory.bridge.recommend import LIGHTGCN_THESIS, fit_mf

        cfg = dict(LIGHTGCN_THESIS, **(LIGHTGCN_VARIANTS[key[3]] if len(key) > 3 else {}))
        cfg["epochs"] = epochs or cfg["epochs"]
        res = fit_mf(data, key[1], **cfg, sampler=key[2], eval_every=eval_every, rng=seed, progress=progress)
    else:
        from negtheory.bridge.recommend import fit_mf

        res = fit_mf(data, key[1], epochs=epochs or 200, eval_every=eval_every, rng=seed, progress=progress)
    return key, seed, res["history"], time.perf_counter() - t0


def _reported(history, protocol):
    """(value dict at the reported epoch, the epoch, max-over-epochs dict)."""
    if protocol == "valid":
        best = max(history, key=lambda h: h.get("valid_ndcg@10", -math.inf))
    else:
        best = history[-1]
    rep = {k[5:]: v for k, v in best.items() if k.startswith("test_")}
    mx = {}
    for h in history:
        for k, v in h.items():
            if k.startswith("test_"):
                mx[k[5:]] = max(mx.get(k[5:], -math.inf), v)
    return rep, best["epoch"], mx


def _cache_name(task):
    key, seed, train, test, epochs, protocol, valid_fraction, eval_every, _, fmt = task[:10]
    import hashlib

    ident = repr(
        ((fmt,) if fmt != "auto" else ())  # an explicit --format may read the same file otherwise
        + (
            key,
            seed,
            epochs,
            protocol,
            valid_fraction,
            eval_every,
            Path(train).name,
            Path(train).stat().st_size,
            Path(test).name,
            Path(test).stat().st_size,
        )
        # BNS-4's occupation file (other runs' names do not depend on it)
        + ((Path(task[10]).name, Path(task[10]).stat().st_size, task[11]) if key[3:4] == ("occupation",) else ())
    )
    return "_".join(str(x) for x in key) + f"_seed{seed}_" + hashlib.sha1(ident.encode()).hexdigest()[:10] + ".json"


def run_tables(
    train: InteractionSource,
    test: InteractionSource,
    tables: Sequence[str] = TABLES,
    methods: Sequence[str] | None = None,
    seeds: int = 3,
    epochs: int | None = None,
    protocol: str = "fixed",
    valid_fraction: float = 0.1,
    bns_sizes: Sequence[str] = DEFAULT_BNS_SIZES,
    eval_every: int = 5,
    jobs: int = 1,
    progress: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    format: str = "auto",
    executor: Any = "local",
    bns_variants: Sequence[str] = tuple(BNS_VARIANTS),
    srns_variants: Sequence[str] = (),
    models: Sequence[str] = ("mf",),
    lightgcn_variants: Sequence[str] = (),
    bns2_warm: Sequence[int] = (20,),
    user_file: str | os.PathLike[str] | None = None,
    user_id_offset: int = 0,
) -> tuple[list[tuple[str, str, str, str, tuple | None]], pd.DataFrame, dict[tuple, list[dict[str, Any]]]]:
    r"""Run every needed (run, seed); return ``(rows, runs, histories)``.

    With ``cache_dir`` each finished run's history is stored there (one JSON file named after the
    run, the seed and a hash of the settings and input files) and reused by a later call, so an
    interrupted reproduction resumes and a second table reuses the first one's runs.

    Parameters
    ----------
    train, test : str or os.PathLike
        The split's files (:func:`negtheory.recsys.load_split`; paths, since worker processes
        and the cache read them).
    tables : sequence of str
        Tables among ``"4.2"``, ``"4.3"``, ``"4.4"``, ``"4.5"``, ``"5.2"``, ``"6.3"`` (default: all).
    methods : sequence of str, optional
        Only these methods (case-insensitive; default None: all).
    seeds : int
        Seeds 0 .. seeds - 1 per run (default 3).
    epochs : int, optional
        Epochs of every run (default None: 100 for SGD, 200 for mini-batch MF, 100 for LightGCN,
        the thesis's).
    protocol : {"fixed", "valid"}
        The reported value: test metrics after the last epoch (``"fixed"``), or at the epoch of
        best validation NDCG@10 with ``valid_fraction`` of train held out (``"valid"``).
    valid_fraction : float
        Validation share of train for ``protocol="valid"``, in (0, 1) (default 0.1).
    bns_sizes : sequence of str
        :math:`|\mathcal{M}_u|` of Table 4.5 (:func:`plan`).
    eval_every : int
        Evaluate every this many epochs (default 5; the max-over-epochs convention uses these).
    jobs : int
        Worker processes (default 1: runs one after the other, with epoch bars).
    progress : bool
        Show progress bars (default True).
    cache_dir : str or os.PathLike, optional
        Folder of finished runs to store and reuse (default None: no cache).
    format : str
        Layout of the ``train`` / ``test`` files (:func:`negtheory.recsys.read_interactions`;
        default ``"auto"``: recognised from the content).
    executor : str, Client or Executor
        Where the runs go: ``"local"`` (``jobs`` processes), ``"dask"`` (a local Dask cluster of
        ``jobs`` workers), a scheduler address, a ``distributed.Client`` or a
        ``concurrent.futures.Executor`` (:func:`negtheory.reproduce._common.run_jobs`). Every run
        is seeded by its own seed and its history goes through JSON before use, so the result is
        the same wherever and in whatever order the runs finish.
    bns_variants : sequence of str
        Readings of Table 4.5's oracle prior (keys of :data:`BNS_VARIANTS`; default: all).
    srns_variants : sequence of str
        Extra SRNS rows of Table 4.2 (keys of :data:`SRNS_VARIANTS`; default: none).
    models : sequence of {"mf", "lightgcn"}
        The recommenders whose rows are run (:func:`plan`; default MF only).
    lightgcn_variants : sequence of str
        Extra LightGCN rows with other settings (:data:`LIGHTGCN_VARIANTS`; default: none).
    bns2_warm : sequence of int
        The E of Table 4.3's BNS-2 rows (:func:`plan`; default 20).
    user_file : str or os.PathLike, optional
        MovieLens' ``u.user`` (``user id|age|gender|occupation|zip``): runs Table 4.3's BNS-4
        row (:func:`negtheory.recsys.bns_occupation_prior`); default None: that row is not run.
    user_id_offset : int
        Raw user id of the split = id in ``user_file`` + this (default 0; -1 for 0-based
        interaction files, :func:`negtheory.recsys.read_user_occupations`).

    Returns
    -------
    rows : list of tuple
        The plan (:func:`plan`).
    runs : pandas.DataFrame
        Tidy per-seed metrics: ``run, seed, convention`` (``reported`` or
        ``max_test_over_epochs (released code)``), ``metric, k, value, epoch, seconds``.
    histories : dict
        ``(run_key, seed)`` -> the run's per-evaluation records (e.g. its TNR / INF).

    Raises
    ------
    ValueError
        ``tables`` and ``methods`` select no row.
    """
    import json

    import pandas as pd

    if format not in DATA_FORMATS:
        raise ValueError(f"format must be one of {', '.join(DATA_FORMATS)}, got {format!r}")
    rows = plan(tables, methods, bns_sizes, bns_variants, srns_variants, models, lightgcn_variants,
                bns2_warm=bns2_warm, occupation=user_file is not None)  # fmt: skip
    if not rows:
        raise ValueError(
            f"no row selected by tables {list(tables)}, methods {list(methods or [])} and models {list(models)}; "
            f"the methods of these tables are {', '.join(method_names(tables))}"
        )
    keys = sorted({r[4] for r in rows if r[4] is not None}, key=str)
    # epoch bars only when runs go one at a time in this process (workers would interleave them)
    local = executor is None or executor == "local"
    tasks = [
        (k, s, str(train), str(test), epochs, protocol, valid_fraction, eval_every, progress and jobs == 1 and local, format)
        + ((str(user_file), int(user_id_offset)) if user_file is not None else ())
        for k in keys
        for s in range(seeds)
    ]
    out = []
    todo = []
    cache = Path(cache_dir) if cache_dir is not None else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    for t in tasks:
        f = cache / _cache_name(t) if cache is not None else None
        if f is not None and f.exists():
            rec = json.loads(f.read_text())
            out.append((t[0], t[1], rec["history"], rec["seconds"]))
        else:
            todo.append(t)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc="thesis-tables runs", unit="run")
    if todo:
        from negtheory.recsys import load_split

        data = load_split(train, test, format=format)
        for i, (key, seed, hist, secs) in run_jobs(_job, data, todo, executor=executor, jobs=jobs):
            # through JSON whether stored or not: a fresh, a resumed and a remote run give the same numbers
            text = json.dumps({"run": str(key), "seed": seed, "history": hist, "seconds": secs})
            if cache is not None:
                tmp = cache / (_cache_name(todo[i]) + ".tmp")
                tmp.write_text(text)
                tmp.replace(cache / _cache_name(todo[i]))
            rec = json.loads(text)
            out.append((todo[i][0], todo[i][1], rec["history"], rec["seconds"]))
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    recs = []
    out.sort(key=lambda r: (str(r[0]), r[1]))  # completion order does not matter
    for key, seed, hist, secs in out:
        rep, epoch, mx = _reported(hist, protocol)
        for conv, vals in (("reported", rep), ("max_test_over_epochs (released code)", mx)):
            for name, v in vals.items():
                metric, k = name.split("@")
                recs.append(
                    dict(
                        run=str(key),
                        seed=seed,
                        convention=conv,
                        metric=metric,
                        k=int(k),
                        value=v,
                        epoch=epoch if conv == "reported" else None,
                        seconds=secs,
                    )
                )
    histories = {(key, seed): hist for key, seed, hist, _ in out}  # per-epoch records, e.g. TNR/INF
    return rows, pd.DataFrame(recs), histories


def sampling_quality_table(
    rows: Sequence[tuple[str, str, str, str, tuple | None]], histories: dict[tuple, list[dict[str, Any]]]
) -> pd.DataFrame:
    """Mean TNR and INF (eq. 4.27-4.28) over the evaluated epochs of each SGD sampler run, mean over seeds.

    Parameters
    ----------
    rows : sequence of tuple
        The plan (:func:`plan`); rows without an SGD run are skipped.
    histories : dict
        ``(run_key, seed)`` -> per-evaluation records with ``tnr`` and ``inf``
        (:func:`run_tables`).

    Returns
    -------
    pandas.DataFrame
        One row per (method, setting) run: ``table, method, setting, tnr, inf, n_seeds``.
    """
    import numpy as np
    import pandas as pd

    recs = []
    for table, method, setting, variant, key in rows:
        if key is None or key[0] != "sgd":
            continue
        hs = [h for (k, _), h in histories.items() if k == key]
        if not hs:
            continue
        tnr = [np.mean([e["tnr"] for e in h]) for h in hs]
        inf = [np.mean([e["inf"] for e in h]) for h in hs]
        recs.append(
            dict(
                table=table,
                method=method,
                setting=setting,
                variant=variant,
                tnr=float(np.mean(tnr)),
                inf=float(np.mean(inf)),
                n_seeds=len(hs),
            )
        )
    return pd.DataFrame(recs).drop_duplicates(subset=["method", "setting", "variant", "tnr", "inf"])


def summarize(
    rows: Sequence[tuple[str, str, str, str, tuple | None]],
    runs: pd.DataFrame,
    protocol: str = "fixed",
    dataset: str = "ml-100k",
) -> pd.DataFrame:
    """The tidy table: one line per (table, method, setting, variant, metric, k, convention).

    Parameters
    ----------
    rows : sequence of tuple
        The plan (:func:`plan`).
    runs : pandas.DataFrame
        The per-seed metrics of :func:`run_tables`.
    protocol : {"fixed", "valid"}
        How the reported value was chosen (names the convention: ``final epoch`` or ``best
        validation epoch``; default ``"fixed"``).
    dataset : str
        Whose printed values fill ``thesis``: one of
        :data:`negtheory.reproduce.thesis_numbers.DATASETS` (default ``"ml-100k"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``table, method, setting, variant, metric, k, thesis`` (the printed value, NaN
        when none), ``mean, ci_low, ci_high`` (95 % t-interval over seeds), ``n_seeds``,
        ``convention``; a row not run has NaN values and 0 seeds.
    """
    import numpy as np
    import pandas as pd

    from .thesis_numbers import thesis_value

    conv_label = {
        "reported": "final epoch" if protocol == "fixed" else "best validation epoch",
        "max_test_over_epochs (released code)": "max_test_over_epochs (released code)",
    }
    lines = []
    for table, method, setting, variant, key in rows:
        for conv in ("reported", "max_test_over_epochs (released code)"):
            for metric in METRICS:
                for k in (5, 10, 20):
                    th = thesis_value(table, "BCL" if method == "BCL-released" else method, setting, metric, k, dataset)
                    if key is None:  # a row not run: NaN mean and interval, 0 seeds
                        v = np.empty(0)
                    else:
                        sel = runs[(runs.run == str(key)) & (runs.convention == conv) & (runs.metric == metric) & (runs.k == k)]
                        v = sel.value.to_numpy(dtype=float)
                    n = len(v)
                    mean = float(v.mean()) if n else np.nan
                    half = t_half_width(v)
                    lines.append(
                        dict(
                            table=table,
                            method=method,
                            setting=setting,
                            variant=variant,
                            metric=metric,
                            k=k,
                            thesis=th,
                            mean=mean,
                            ci_low=mean - half,
                            ci_high=mean + half,
                            n_seeds=n,
                            convention=conv_label[conv],
                        )
                    )
    return pd.DataFrame(lines)


def markdown(df: pd.DataFrame, metric: str = "ndcg", k: int = 10) -> str:
    """A markdown table of one metric: thesis vs negtheory (mean [95 % interval]) for both conventions.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`summarize`.
    metric : {"precision", "recall", "ndcg"}
        The metric shown (default ``"ndcg"``).
    k : int
        Its list length, 5, 10 or 20 (default 10).

    Returns
    -------
    str
        The markdown table (one line per row of the plan; ``Δ (first)`` is negtheory's mean under
        the first convention minus the thesis's value).
    """
    sub = df[(df.metric == metric) & (df.k == k)]
    convs = list(dict.fromkeys(sub.convention))
    head = (
        f"| table | method | setting | variant | thesis {metric.upper()}@{k} | "
        + " | ".join(f"negtheory ({c})" for c in convs)
        + " | Δ (first) |"
    )
    lines = [head, "|" + "---|" * (6 + len(convs))]
    for (table, method, setting, variant), g in sub.groupby(["table", "method", "setting", "variant"], sort=False):
        cells = []
        for c in convs:
            if not (g.convention == c).any():  # a table merged from runs of another protocol
                cells.append("—")
                continue
            r = g[g.convention == c].iloc[0]
            if r.n_seeds == 0:
                cells.append("not run")
            elif r.n_seeds == 1:
                cells.append(f"{r['mean']:.4f} (1 seed)")
            else:
                cells.append(f"{r['mean']:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]")
        first = g.iloc[0]
        delta = "" if first.n_seeds == 0 or math.isnan(first.thesis) else f"{first['mean'] - first.thesis:+.4f}"
        th = "" if math.isnan(g.thesis.iloc[0]) else f"{g.thesis.iloc[0]:.4f}"
        setting = setting.replace("|", "\\|")
        lines.append(f"| {table} | {method} | {setting} | {variant} | {th} | " + " | ".join(cells) + f" | {delta} |")
    return "\n".join(lines)


#: tolerance of a reproduced row (NDCG@10, absolute)
TOLERANCE = 0.015
#: the variant names that are the thesis's text as written (every other variant is a named reading)
AS_WRITTEN = ("-", "soft")


def verdicts(df: pd.DataFrame, metric: str = "ndcg", k: int = 10, tol: float = TOLERANCE) -> pd.DataFrame:
    r"""One verdict per printed row: reproduced as written, by a named variant, or not at all.

    For every (table, method, setting) with a printed value, the rows of ``df`` reported at the final
    epoch or at the best validation epoch (never the released code's max over test epochs, which
    selects on test) are compared with the thesis: :math:`\Delta = \bar m -
    m_{\text{thesis}}` for the reading as written (variant ``-``, or ``soft`` in Table 4.5, under the first
    convention in ``df``) and for every named variant (the method's other rows, e.g.
    ``BCL-released`` for BCL, or a row reported under the other convention).

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`summarize`.
    metric : {"precision", "recall", "ndcg"}
        The metric judged (default ``"ndcg"``).
    k : int
        Its list length (default 10).
    tol : float
        The largest :math:`|\Delta|` of a reproduced row (default :data:`TOLERANCE`, 0.015).

    Returns
    -------
    pandas.DataFrame
        ``table, method, setting, thesis, as_written, delta, n_seeds, best_variant, best_delta,
        verdict``: ``verdict`` is ``"reproduced"`` (:math:`|\Delta| \le` ``tol`` as written),
        ``"reproduced by <variant>"`` (a named variant within ``tol``, the closest one), ``"not
        reproduced"`` (no reading within ``tol``; ``best_variant`` the closest) or ``"not run"``;
        ``" (n seeds)"`` is appended when fewer than 3 seeds back the judged row.

    Examples
    --------
    >>> import pandas as pd
    >>> from negtheory.reproduce.thesis_tables import verdicts
    >>> df = pd.DataFrame(dict(table="4.5", method="BNS-oracle", setting="|M_u|=3", variant=["soft", "hard"],
    ...                        metric="ndcg", k=10, thesis=0.4942, mean=[0.431, 0.501], n_seeds=3,
    ...                        convention="final epoch"))
    >>> verdicts(df).verdict.tolist()
    ['reproduced by hard']
    """
    import numpy as np
    import pandas as pd

    sub = df[(df.metric == metric) & (df.k == k)]
    # never the released code's max over test epochs: it selects on test
    sub = sub[~sub.convention.str.startswith("max_test")]
    first = sub.convention.iloc[0] if len(sub) else ""
    out = []
    # a method's named variants include its sibling rows (BCL-released for BCL)
    sub = sub.assign(base=sub.method.str.replace("-released", "", regex=False)).reset_index(drop=True)
    for (table, base, setting), g in sub.groupby(["table", "base", "setting"], sort=False):
        th = g.thesis.iloc[0]
        if np.isnan(th):
            continue
        g = g.assign(delta=g["mean"] - th)
        is_written = (g.method == base) & g.variant.isin(AS_WRITTEN) & (g.convention == first)
        written = g[is_written]
        w = written.iloc[0] if len(written) else None
        ran = g[g.n_seeds > 0]
        others = g[~is_written & (g.n_seeds > 0)]
        best = others.loc[others.delta.abs().idxmin()] if len(others) else None

        def label(r, base=base):
            name = r.variant if r.method == base else (r.method if r.variant == "-" else f"{r.method} {r.variant}")
            return name if r.convention == first else f"{name} ({r.convention})"

        if w is not None and w.n_seeds > 0 and abs(w.delta) <= tol:
            verdict, judged = "reproduced", w
        elif best is not None and abs(best.delta) <= tol:
            verdict, judged = f"reproduced by {label(best)}", best
        elif len(ran):
            verdict = "not reproduced"
            judged = w if w is not None and w.n_seeds > 0 else best
        else:
            verdict, judged = "not run", None
        if judged is not None and judged.n_seeds < 3:
            verdict += f" ({int(judged.n_seeds)} seed{'s' if judged.n_seeds != 1 else ''})"
        out.append(
            dict(
                table=table,
                method=base,
                setting=setting,
                thesis=th,
                as_written=np.nan if w is None or w.n_seeds == 0 else w["mean"],
                delta=np.nan if w is None or w.n_seeds == 0 else w.delta,
                n_seeds=0 if w is None else int(w.n_seeds),
                best_variant="" if best is None else label(best),
                best_delta=np.nan if best is None else best.delta,
                verdict=verdict,
            )
        )
    return pd.DataFrame(out)


def verdicts_markdown(v: pd.DataFrame) -> str:
    """The verdicts of :func:`verdicts` as a markdown table.

    Parameters
    ----------
    v : pandas.DataFrame
        The output of :func:`verdicts`.

    Returns
    -------
    str
        One line per printed row: thesis, as written (Δ), the closest named variant (Δ), verdict.
    """
    lines = [
        "| table | method | setting | thesis | as written (Δ) | closest named variant (Δ) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in v.itertuples():
        aw = "not run" if math.isnan(r.as_written) else f"{r.as_written:.4f} ({r.delta:+.4f})"
        bv = "—" if not r.best_variant else f"{r.best_variant} ({r.best_delta:+.4f})"
        setting = r.setting.replace("|", "\\|")
        lines.append(f"| {r.table} | {r.method} | {setting} | {r.thesis:.4f} | {aw} | {bv} | {r.verdict} |")
    return "\n".join(lines)


def figure(df: pd.DataFrame, metric: str = "ndcg", k: int = 10, dataset: str = "ml-100k") -> Figure:
    """negtheory (mean, 95 % interval) against the thesis's printed value, one panel per table.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy table of :func:`summarize`.
    metric : {"precision", "recall", "ndcg"}
        The metric shown (default ``"ndcg"``).
    k : int
        Its list length, 5, 10 or 20 (default 10).
    dataset : str
        Whose printed values are drawn (default ``"ml-100k"``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    from matplotlib.figure import Figure

    sub = df[(df.metric == metric) & (df.k == k) & (~df.convention.str.startswith("max_test"))]
    tables = list(dict.fromkeys(sub.table))
    fig = Figure(figsize=(3.2 * len(tables) + 1, 3.8), layout="constrained")
    axes = fig.subplots(1, len(tables), squeeze=False)[0]
    for ax, table in zip(axes, tables):
        g = sub[sub.table == table]
        if table == "4.5":  # one x per |M_u|, one series per variant (|M_u| = 1, variant "-", in each)
            settings = list(dict.fromkeys(g.setting))
            labels = [st.replace("|M_u|=", "") for st in settings]
            pos = {st: n for n, st in enumerate(settings)}
            variants = [v for v in dict.fromkeys(g.variant) if v != "-"] or ["-"]
            for n, v in enumerate(variants):
                gv = g[(g.variant == v) | (g.variant == "-")]
                xv = [pos[st] + 0.08 * (n - (len(variants) - 1) / 2) for st in gv.setting]
                ax.errorbar(xv, gv["mean"], yerr=[gv["mean"] - gv.ci_low, gv.ci_high - gv["mean"]], fmt="o-", ms=3,
                            color=f"C{n}", capsize=2, label=f"negtheory {v}")  # fmt: skip
            th = g.drop_duplicates("setting")
            ax.plot([pos[st] for st in th.setting], th.thesis, "x", color="k", ms=8, mew=2, label="thesis (printed)")
            ax.set_xticks(range(len(settings)), labels)
            ax.legend(loc="upper left", fontsize=6)
        else:
            labels = [
                f"{m} (LightGCN)" if st == "LightGCN" else (f"{st} {m}" if table == "4.4" else m)
                for m, st in zip(g.method, g.setting)
            ]
            labels = [lab if v == "-" else f"{lab} [{v}]" for lab, v in zip(labels, g.variant)]
            x = range(len(g))
            ax.errorbar(
                x,
                g["mean"],
                yerr=[g["mean"] - g.ci_low, g.ci_high - g["mean"]],
                fmt="o",
                color="C0",
                capsize=3,
                label="negtheory (mean, 95% CI)",
            )
            ax.plot(x, g.thesis, "x", color="C3", ms=8, mew=2, label="thesis (printed)")
            ax.set_xticks(list(x), labels, rotation=45, ha="right")
        ax.set_title(f"Table {table}" + (" (|M_u|)" if table == "4.5" else ""))
        ax.set_ylabel(f"{metric.upper()}@{k} (test)")
        ax.grid(alpha=0.3)
    # one legend for all panels, below them: inside a panel it would hide markers
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8, frameon=False)
    names = {"ml-100k": "MovieLens-100K", "ml-1m": "MovieLens-1M", "yahoo-r3": "Yahoo!-R3"}
    model = "MF and LightGCN" if (sub.setting == "LightGCN").any() and (sub.setting != "LightGCN").any() else "MF"
    model = "LightGCN" if (sub.setting == "LightGCN").all() else model
    fig.suptitle(f"{names.get(dataset, dataset)}, {model}: negtheory vs thesis")
    return fig


def run(args: argparse.Namespace) -> int:
    """Entry point of ``negtheory reproduce thesis-tables``: run the tables, write CSV, markdown and figure.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of :func:`add_arguments`.

    Returns
    -------
    int
        The process's exit code: 0 on success (errors raise).
    """
    # every input checked before any output or progress bar: one clear line for a bad option or file
    if args.methods:
        valid = method_names(args.tables)
        unknown = [m for m in args.methods if m.lower() not in {v.lower() for v in valid}]
        if unknown:
            raise CommandError(
                f"--methods: unknown for tables {' '.join(args.tables)}: {' '.join(unknown)}; valid: {' '.join(valid)}"
            )
    from ..recsys import load_split

    input_file(args.train, "--train")
    input_file(args.test, "--test")
    split = load_split(args.train, args.test, format=args.format)  # a malformed file fails here, before any folder or run
    user_file = getattr(args, "user_file", None)
    if user_file is not None:
        from ..recsys import read_user_occupations

        input_file(user_file, "--user-file")
        try:
            read_user_occupations(user_file, split.user_ids, getattr(args, "user_id_offset", 0))
        except ValueError as e:
            raise CommandError(f"--user-file: {e} (--user-id-offset)") from None
    out = output_dir(args.out, "--out")
    if args.seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {args.seeds}")
    if args.epochs is not None and args.epochs < 1:
        raise ValueError(f"--epochs must be >= 1, got {args.epochs}")
    if args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise ValueError(f"--out {out} is not writable")
    executor, close = connect_executor(args)
    t0 = time.perf_counter()
    try:
        rows, runs, histories = run_tables(
            args.train,
            args.test,
            args.tables,
            args.methods,
            args.seeds,
            args.epochs,
            args.protocol,
            args.valid_fraction,
            args.bns_sizes,
            args.eval_every,
            args.jobs,
            progress=not args.quiet,
            cache_dir=out / "runs",
            format=args.format,
            executor=executor,
            bns_variants=args.bns_variants,
            srns_variants=args.srns_variants,
            models=getattr(args, "models", ["mf"]),
            lightgcn_variants=getattr(args, "lightgcn_variants", []),
            bns2_warm=getattr(args, "bns2_warm", [20]),
            user_file=user_file,
            user_id_offset=getattr(args, "user_id_offset", 0),
        )
    finally:
        close()
    df = summarize(rows, runs, args.protocol, args.dataset)
    cols = ["table", "method", "setting", "variant", "metric", "k", "thesis", "mean", "ci_low", "ci_high", "n_seeds"]
    cols.append("convention")
    df[cols].to_csv(out / "thesis_tables.csv", index=False)
    runs.to_csv(out / "runs.csv", index=False)
    md = [
        f"# Thesis tables on {args.train} / {args.test} (thesis column: {args.dataset})",
        "",
        f"protocol: {args.protocol}; models: {', '.join(getattr(args, 'models', ['mf']))}; seeds: {args.seeds}; "
        f"epochs: {args.epochs or 'default (100 SGD / 200 mini-batch MF / 100 LightGCN)'}; "
        f"eval every {args.eval_every} epochs; wall time {time.perf_counter() - t0:.0f} s",
        "",
    ]
    for metric, k in (("ndcg", 10), ("precision", 10), ("recall", 10)):
        md += [f"## {metric.upper()}@{k}", "", markdown(df, metric, k), ""]
    v = verdicts(df)
    if len(v):
        v.to_csv(out / "verdicts.csv", index=False)
        md += [
            f"## Verdicts (NDCG@10, {df.convention.iloc[0]}; reproduced = within ±{TOLERANCE} of the printed value)",
            "",
            verdicts_markdown(v),
            "",
        ]
    sq = sampling_quality_table(rows, histories)
    if len(sq):
        sq.to_csv(out / "sampling_quality.csv", index=False)
        md += [
            "## Sampling quality of the SGD samplers (eq. 4.27-4.28, mean over evaluated epochs and seeds)",
            "",
            "| table | method | setting | variant | TNR | INF |",
            "|---|---|---|---|---|---|",
        ]
        md += [
            f"| {r.table} | {r.method} | {r.setting.replace('|', chr(92) + '|')} | {r.variant} | {r.tnr:.4f} | {r.inf:.4f} |"
            for r in sq.itertuples()
        ]
        md.append("")
    (out / "thesis_tables.md").write_text("\n".join(md))
    figure(df, dataset=args.dataset).savefig(out / "thesis_tables.png", dpi=110)
    print(markdown(df, "ndcg", 10))
    print(f"wrote {out / 'thesis_tables.csv'}, {out / 'thesis_tables.md'}, {out / 'thesis_tables.png'}")
    return 0
