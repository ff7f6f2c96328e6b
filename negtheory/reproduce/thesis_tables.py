r"""``negtheory reproduce thesis-tables``: the MF rows of thesis Tables 4.2-4.5, 5.2, 5.3 and 6.3 (MovieLens-100K, -1M, Yahoo!-R3).

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
* Table 5.3 (``--tables 5.3``) — DPL against negative sampling, MF: its BPR, BNS and DPL rows
  repeat Tables 4.2 (RNS, BNS) and 5.2 (DPL) and share their runs; "DPL with Hard Samples" is DPL
  (mini-batch, as Table 5.2) whose N = 5 negatives are each the highest-scored of 5 uniform
  non-interacted candidates (DNS, ``fit_mf(sampler="dns")``), with τ⁺ = 0.3 (§5.6.2.3: 0.3 on
  MovieLens-100K, 0.25 on MovieLens-1M; the thesis gives no candidate count, 5 is its DNS / BNS
  setting); run key ``("mf", "dpl", "sampler=dns", "tau_plus=0.3")``;
* validation searches (``--tune PNS AOBPR BCL BCL-released``, :data:`TUNING`, issue 22) — for
  each method a stage-wise grid (:func:`validation_search`; ``--tune-grid`` replaces a method's
  stages): each candidate is one run (seed ``--tune-seed``) on train minus ``--valid-fraction`` of
  it, the test pairs removed from what the trainer receives, scored by validation NDCG@10 after
  the last epoch (variant ``valid-tuned``) or at its best evaluated epoch (``valid-tuned-es``);
  the chosen keywords become ``"name=value"`` items of the row's run key (those equal to the
  trainer's default are left out, so a default choice shares the untuned row's runs), run with
  every seed: ``valid-tuned`` on the whole training split reporting the last epoch,
  ``valid-tuned-es`` on train minus validation reporting the best validation epoch (its own
  ``protocol=valid`` item). Every candidate's score goes to ``OUT/tuning.csv`` and the markdown;
* LightGCN (``--models lightgcn``; thesis §4.5.1.2) — the same mini-batch trainer with
  :class:`~negtheory.bridge.recommend.LightGCN` and the thesis's LightGCN settings
  (:data:`~negtheory.bridge.recommend.LIGHTGCN_THESIS`): d = 32, one layer, Adam lr 0.01 multiplied
  by 0.1 every 20 epochs, reg 1e-5 as Adam's weight decay (as the MF code of ch. 5-6; the LightGCN
  release's batch L2 at 1e-5 overfits, :func:`~negtheory.bridge.recommend.fit_mf`), 100 epochs,
  batch 128 (the thesis's 1024 on MovieLens-1M is not switched automatically), and the losses' N,
  M, t, τ⁺, α, β of the MF runs. Table 4.2's RNS, PNS, DNS and BNS rows are mini-batch BPR with
  one negative per pair: uniform (RNS), ∝ pop^0.75 (PNS), the highest-scored of 5 uniform
  non-interacted candidates (DNS), or chosen by BNS among 5 (eq. 4.26, λ = 5, prior pop / |D|,
  eCDF over the user's non-interacted items); AOBPR and SRNS keep per-user state in the batch-1
  SGD kernels of the MF rows, which are MF-only, so they are not run for LightGCN. The
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

import dataclasses
import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .._cli_common import CommandError, default_output, input_file, integer, output_dir, real
from .._validation import int_scalar
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
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

    from .._typing import InteractionSource

HELP = (
    "thesis Tables 4.2 / 4.3 / 4.4 / 4.5 / 5.2 / 5.3 / 6.3 (MF rows, LightGCN rows with --models lightgcn) "
    "on a user-supplied MovieLens-100K, MovieLens-1M or Yahoo!-R3 split"
)

__all__ = [
    "HELP",
    "BNS_VARIANTS",
    "SRNS_VARIANTS",
    "TUNING",
    "TUNE_VARIANTS",
    "add_arguments",
    "run",
    "plan",
    "run_tables",
    "summarize",
    "verdicts",
    "verdicts_markdown",
    "TOLERANCE",
    "validation_search",
    "parse_tune_grid",
    "tuning_markdown",
]

TABLES = ("4.2", "4.3", "4.4", "4.5", "5.2", "5.3", "6.3")
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
#: τ⁺ of "DPL with Hard Samples" on MovieLens-100K (thesis §5.6.2.3, Table 5.3; 0.25 on MovieLens-1M)
DPL_HARD_TAU_PLUS = 0.3
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
#: hyper-parameter searches on validation (issue 22): method -> its row (table, setting), the run key
#: the candidates extend and the stages of the search (each stage a grid over the named keywords,
#: searched with the earlier stages' choices fixed; keywords of no stage keep their defaults)
TUNING: dict[str, dict[str, Any]] = {
    # PNS's exponent of pop^beta (thesis: 0.75, as word2vec); 0 is uniform over the items
    "PNS": dict(table="4.2", setting="BPR-MF SGD", base=("sgd", "pns", 5, "popularity"),
                stages=({"pns_power": (0.0, 0.25, 0.5, 0.75, 1.0)},)),
    # AOBPR's lambda of P(r) ∝ exp(-r / lambda), in items (log grid around |I| / 20 on MovieLens-100K)
    "AOBPR": dict(table="4.2", setting="BPR-MF SGD", base=("sgd", "aobpr", 5, "popularity"),
                  stages=({"rank_scale": (10.0, 30.0, 100.0, 300.0, 1000.0)},)),
    # BCL (eq. 6.48 and the released form): alpha x tau+ at beta = 0.6, then beta
    "BCL": dict(table="6.3", setting="MF", base=("mf", "bcl"),
                stages=({"alpha": (0.55, 0.7, 0.85), "tau_plus": (0.02, 0.06, 0.1)}, {"beta": (0.2, 0.4, 0.6, 0.8)})),
    "BCL-released": dict(table="6.3", setting="MF", base=("mf", "bcl_released"),
                         stages=({"alpha": (0.55, 0.7, 0.85), "tau_plus": (0.02, 0.06, 0.1)}, {"beta": (0.2, 0.4, 0.6, 0.8)})),
}  # fmt: skip
#: variants of a tuned row: name -> (the validation score of a candidate, the protocol of the reported runs):
#: ``valid-tuned`` scores validation NDCG@10 after the last epoch and reports the chosen value's
#: runs on the whole training split after their last epoch; ``valid-tuned-es`` (early stopping)
#: scores the best validation NDCG@10 over the evaluated epochs and reports the chosen value's runs
#: on train minus validation at their best validation epoch
TUNE_VARIANTS = {"valid-tuned": ("final", "fixed"), "valid-tuned-es": ("best", "valid")}
#: the validation metric of the searches
TUNE_METRIC = "valid_ndcg@10"


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
        help="E of Table 4.3's BNS-2 (RNS for E epochs, then BNS; the thesis states none), one row per value (default: 20)",
    )
    p.add_argument(
        "--user-file",
        default=None,
        help="MovieLens-100K's u.user (user|age|gender|occupation|zip): runs Table 4.3's BNS-4 (occupation prior; default: none, BNS-4 not run)",
    )
    p.add_argument(
        "--user-id-offset",
        type=int,
        default=0,
        help="raw user id of --train/--test = u.user id + this (-1 for 0-based interaction files; default: 0)",
    )
    p.add_argument(
        "--eval-every",
        type=integer(1),
        default=5,
        help="evaluate every this many epochs (the max-over-epochs convention uses these)",
    )
    p.add_argument(
        "--tune",
        nargs="*",
        default=[],
        choices=list(TUNING),
        help="add rows whose hyper-parameters are chosen by validation NDCG@10 (10%% of train held out, test never read); "
        "grids and scores in OUT/tuning.csv (default: none)",
    )
    p.add_argument(
        "--tune-variants",
        nargs="+",
        default=list(TUNE_VARIANTS),
        choices=list(TUNE_VARIANTS),
        help="valid-tuned: score after the last epoch, report runs on all of train; "
        "valid-tuned-es: score at the best epoch, report at the best validation epoch (default: both)",
    )
    p.add_argument(
        "--tune-grid",
        nargs="+",
        default=[],
        metavar="METHOD:NAME=V1,V2[:NAME=...]",
        help="one search stage per argument, e.g. BCL:alpha=0.55,0.7:tau_plus=0.02,0.06 BCL:beta=0.4,0.6; "
        "a method's stages given here replace its default ones (default: the grids of TUNING)",
    )
    p.add_argument("--tune-seed", type=integer(0), default=0, help="seed of the searches' runs and validation split (default: 0)")
    add_executor_arguments(p)
    p.add_argument(
        "--out",
        default=str(default_output("thesis_tables")),
        help="output folder for thesis_tables.csv / .md / .png and runs.csv; finished runs are kept in OUT/runs/ and reused",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: Table 4.2's RNS and BNS rows (unless --tables / --methods say otherwise), 1 seed, 2 epochs, "
        "into negtheory_output/thesis_tables_quick unless --out is given; its outputs say QUICK",
    )


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
        ``("lightgcn", loss, sampler)`` for LightGCN (None for a row not run: AOBPR and SRNS for
        LightGCN); ``variant`` is ``"-"`` outside Table 4.5 and SRNS's extra rows, and for
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
    if "5.3" in tables:
        # BPR, BNS and DPL repeat Tables 4.2 / 5.2 (same runs); DPL with hard samples: DNS negatives, tau+ = 0.3
        rows.append(("5.3", "BPR", "MF", "-", ("sgd", "rns", 5, "popularity")))
        rows.append(("5.3", "BNS", "MF", "-", ("sgd", "bns", 5, "popularity")))
        rows.append(("5.3", "DPL", "MF", "-", ("mf", "dpl")))
        rows.append(("5.3", "DPL-hard", "MF", "-", ("mf", "dpl", "sampler=dns", f"tau_plus={DPL_HARD_TAU_PLUS:g}")))
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
            # AOBPR and SRNS need the batch-1 kernels' per-user state (ranks, memories): MF only
            key = ("lightgcn", "bpr", name.lower()) if name in ("RNS", "PNS", "DNS", "BNS") else None
            rows.append(("4.2", name, "LightGCN", "-", key))
            if key is not None and name in ("RNS", "BNS"):
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

    key, over = _split_key(key)
    protocol = over.pop("protocol", protocol)
    if protocol in ("valid", "tune"):
        data = data.with_validation(valid_fraction, rng=seed)
    if protocol == "tune":  # a hyper-parameter search's run: the test split never reaches the trainer
        data = dataclasses.replace(data, test=data.test[:0])
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
            **over,
            epochs=epochs or 100,
            eval_every=eval_every,
            eval_on={"valid": "both", "tune": "valid"}.get(protocol, "test"),
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

        res = fit_mf(data, key[1], **over, epochs=epochs or 200, eval_every=eval_every, rng=seed, progress=progress)
    return task[0], seed, res["history"], time.perf_counter() - t0


def _split_key(key: tuple) -> tuple[tuple, dict[str, Any]]:
    """A run key without its ``"name=value"`` items, and those items as keyword arguments.

    Values are read as int, else float, else kept as strings; ``protocol=valid`` names the run's
    own protocol (the early-stopping rows of a validation search).
    """
    base, over = [], {}
    for x in key:
        if isinstance(x, str) and "=" in x:
            name, val = x.split("=", 1)
            for conv in (int, float):
                try:
                    val = conv(val)
                    break
                except ValueError:
                    pass
            over[name] = val
        else:
            base.append(x)
    return tuple(base), over


def _key_protocol(key: tuple, protocol: str) -> str:
    """The protocol of a run key: its ``protocol=...`` item, else the table's."""
    return _split_key(key)[1].get("protocol", protocol)


def _tuned_key(base: tuple, params: Mapping[str, Any]) -> tuple:
    """``base`` extended by ``"name=value"`` items for the keywords that differ from the trainer's default.

    A candidate equal to the default run shares its run key, hence its runs and cached results.
    """
    import inspect

    if base[0] == "sgd":
        from negtheory.recsys import fit_bpr_sgd

        sig = inspect.signature(fit_bpr_sgd)
    else:  # torch only for the mini-batch trainer
        from negtheory.bridge.recommend import fit_mf

        sig = inspect.signature(fit_mf)
    defaults = {n: p.default for n, p in sig.parameters.items()}
    return base + tuple(_key_item(n, v) for n, v in sorted(params.items()) if n not in defaults or defaults[n] != v)


def _key_item(name: str, value: Any) -> str:
    """``"name=value"`` for a run key (floats in the shortest form that reads back equal; 1.0 as 1, so 1 and 1.0 share runs)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{name}={value!r}" if isinstance(value, float) else f"{name}={value}"


def parse_tune_grid(specs: Sequence[str]) -> dict[str, list[dict[str, tuple]]]:
    """``--tune-grid`` arguments -> ``{method: [stage, ...]}`` (one stage per argument, in order).

    Parameters
    ----------
    specs : sequence of str
        ``"METHOD:NAME=V1,V2[:NAME=V1,...]"``, METHOD a key of :data:`TUNING`; values are read as
        int, else float, else kept as strings.

    Returns
    -------
    dict
        Method -> its stages, each a dict keyword -> tuple of candidate values.

    Raises
    ------
    ValueError
        A malformed spec or an unknown method (the message names ``tune_grid``).

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import parse_tune_grid
    >>> parse_tune_grid(["BCL:alpha=0.55,0.7:tau_plus=0.06", "BCL:beta=0.6", "PNS:pns_power=0,1"])
    {'BCL': [{'alpha': (0.55, 0.7), 'tau_plus': (0.06,)}, {'beta': (0.6,)}], 'PNS': [{'pns_power': (0, 1)}]}
    """
    out: dict[str, list[dict[str, tuple]]] = {}
    for spec in specs:
        method, *parts = str(spec).split(":")
        if method not in TUNING or not parts:
            raise ValueError(f"tune_grid: expected METHOD:NAME=V1,V2 with METHOD among {tuple(TUNING)}, got {spec!r}")
        stage = {}
        for part in parts:
            name, eq, vals = part.partition("=")
            if not eq or not name or not vals:
                raise ValueError(f"tune_grid: expected NAME=V1,V2 in {spec!r}, got {part!r}")
            stage[name] = tuple(_split_key((f"{name}={v}",))[1][name] for v in vals.split(","))
        out.setdefault(method, []).append(stage)
    return out


def validation_search(
    evaluate: Callable[[list[dict[str, Any]]], Sequence[float]],
    stages: Sequence[Mapping[str, Sequence[Any]]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    r"""A stage-wise grid search: the candidate of largest validation score in each stage.

    Stage s evaluates every combination of its grids (the Cartesian product), each combined with
    the choices of stages 1 .. s - 1, and keeps

    .. math:: \theta_s = \arg\max_{\theta \in \Theta_s} \mathrm{score}(\theta)

    (the first in grid order on ties; a NaN score never wins unless all are NaN). ``evaluate``
    sees only the candidates, so what it trains on — train minus validation in
    :func:`run_tables`, never test — is its business.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(candidates) -> scores``: a list of keyword dicts in, one float per dict out
        (larger is better); called once per stage, so a stage's runs can go in parallel.
    stages : sequence of mapping
        Each stage a non-empty mapping keyword -> non-empty sequence of values.

    Returns
    -------
    chosen : dict
        The keywords of the last stage's winner (all stages' choices).
    records : list of dict
        One per candidate evaluated: ``stage`` (1-based), ``params`` (dict), ``score``, ``chosen``
        (the winner of its stage).

    Raises
    ------
    ValueError
        ``stages`` is empty, a stage or grid is empty, or ``evaluate`` returns the wrong number
        of scores.

    Examples
    --------
    >>> from negtheory.reproduce.thesis_tables import validation_search
    >>> f = lambda cands: [-(c["a"] - 2) ** 2 - (c.get("b", 0) - 1) ** 2 for c in cands]
    >>> validation_search(f, [{"a": [0, 1, 2, 3]}, {"b": [0, 1]}])[0]
    {'a': 2, 'b': 1}
    """
    import itertools

    if not stages:
        raise ValueError("stages must hold at least one stage")
    chosen: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    for n, stage in enumerate(stages, start=1):
        if not stage or any(len(list(v)) == 0 for v in stage.values()):
            raise ValueError(f"stages: stage {n} must map each keyword to a non-empty grid, got {dict(stage)!r}")
        names = list(stage)
        cands = [{**chosen, **dict(zip(names, vals))} for vals in itertools.product(*(list(stage[k]) for k in names))]
        scores = [float(x) for x in evaluate(cands)]
        if len(scores) != len(cands):
            raise ValueError(f"evaluate returned {len(scores)} scores for {len(cands)} candidates")
        best = max(
            range(len(cands)), key=lambda i: (not math.isnan(scores[i]), scores[i] if not math.isnan(scores[i]) else 0.0, -i)
        )
        chosen = cands[best]
        records += [dict(stage=n, params=c, score=sc, chosen=i == best) for i, (c, sc) in enumerate(zip(cands, scores))]
    return chosen, records


def _tune_score(history: list[dict[str, Any]], criterion: str) -> tuple[float, int]:
    """(validation NDCG@10, its epoch): after the last evaluation (``"final"``) or the best one (``"best"``)."""
    if criterion == "final":
        h = history[-1]
    else:
        h = max(history, key=lambda r: r.get(TUNE_METRIC, -math.inf))
    return float(h.get(TUNE_METRIC, math.nan)), int(h["epoch"])


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


def _cost_hint(task) -> float:
    """Rough minutes of a run on MovieLens-100K, used only to start the longest runs first.

    From ``benchmarks/bench_thesis_tables.py --estimate`` (minutes per run, one idle core): LightGCN
    3-4 (BNS 7), AOBPR / SRNS ~1.8, BNS with the oracle prior growing with |M_u| (``soft`` 0.8 at
    |M_u| = 3 to 2.8 at 100, ``hard`` 0.1-0.7), mini-batch MF ~1.2, RNS / PNS / DNS ~0.1. Longest
    first (LPT) keeps the last worker from finishing alone on a long run; the order changes no
    result (each task carries its seed).
    """
    key, over = _split_key(task[0])
    epochs = task[4]
    if key[0] == "lightgcn":
        base, default = (7.0 if key[2] == "bns" else 4.0), 100
    elif key[0] == "mf":
        base, default = (2.5 if over.get("sampler") == "dns" else 1.2), 200
    else:
        sampler, m, prior = key[1], key[2], key[3]
        variant = key[4] if len(key) > 4 else "soft"
        default = 100
        if sampler in ("aobpr", "srns"):
            base = 1.8
        elif sampler == "bns" and prior == "oracle":
            m = min(m, 2000)
            base = {"hard": 0.1 + m / 170, "soft-Fcand": 0.2 + m / 60}.get(variant, 0.8 + m / 50)
        elif sampler == "bns":
            base = 0.8
        else:
            base = 0.1
    return base * (epochs or default) / default


def _execute(tasks, *, train, test, format, cache_dir, executor, jobs, progress, desc):
    """Run the tasks not in ``cache_dir`` (storing each as it finishes); all as ``(key, seed, history, seconds)``."""
    import json

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
    if progress and tasks:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc=desc, unit="run")
    if todo:
        from negtheory.recsys import load_split

        todo.sort(key=_cost_hint, reverse=True)  # longest first (stable: equal hints keep the plan's order)

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
    return out


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
    tune: Sequence[str] = (),
    tune_variants: Sequence[str] = tuple(TUNE_VARIANTS),
    tune_stages: Mapping[str, Sequence[Mapping[str, Sequence[Any]]]] | None = None,
    tune_seed: int = 0,
    tuning_records: list[dict[str, Any]] | None = None,
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
    tune : sequence of str
        Methods (keys of :data:`TUNING`) whose hyper-parameters are chosen on validation: for each,
        :func:`validation_search` over its stages, each candidate one run (seed ``tune_seed``) on
        train minus ``valid_fraction`` of it (split seeded by ``tune_seed``; the test pairs are
        removed from what the trainer receives), scored by :data:`TUNE_METRIC`; then one row per
        variant of ``tune_variants`` (:data:`TUNE_VARIANTS`), whose run key carries the chosen
        keywords and is run with ``seeds`` seeds like any other (default: none).
    tune_variants : sequence of str
        Variants of the tuned rows (default both ``valid-tuned`` and ``valid-tuned-es``).
    tune_stages : mapping, optional
        Method -> stages replacing :data:`TUNING`'s (e.g. from :func:`parse_tune_grid`).
    tune_seed : int
        Seed of the searches' runs and validation split (default 0).
    tuning_records : list, optional
        If given, one dict per (method, variant, candidate) is appended: ``method, table, setting,
        variant, criterion, stage, params``, one column per keyword, ``valid_ndcg@10, epoch,
        chosen, seed, valid_fraction``.

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
        ``tables`` and ``methods`` select no row (and ``tune`` is empty), or a ``tune*`` argument
        is invalid.
    """
    import pandas as pd

    if format not in DATA_FORMATS:
        raise ValueError(f"format must be one of {', '.join(DATA_FORMATS)}, got {format!r}")
    bad = [m for m in tune if m not in TUNING]
    if bad:
        raise ValueError(f"tune must name methods among {tuple(TUNING)}, got {bad}")
    bad = [v for v in tune_variants if v not in TUNE_VARIANTS]
    if bad or (tune and not tune_variants):
        raise ValueError(f"tune_variants must be among {tuple(TUNE_VARIANTS)}, got {list(tune_variants)}")
    bad = [m for m in (tune_stages or {}) if m not in TUNING]
    if bad:
        raise ValueError(f"tune_stages must be keyed by methods among {tuple(TUNING)}, got {bad}")
    tune_seed = int_scalar("tune_seed", tune_seed, 0)
    rows = plan(tables, methods, bns_sizes, bns_variants, srns_variants, models, lightgcn_variants,
                bns2_warm=bns2_warm, occupation=user_file is not None)  # fmt: skip
    if not rows and not tune:
        raise ValueError(
            f"no row selected by tables {list(tables)}, methods {list(methods or [])} and models {list(models)}; "
            f"the methods of these tables are {', '.join(method_names(tables))}"
        )
    # epoch bars only when runs go one at a time in this process (workers would interleave them)
    local = executor is None or executor == "local"
    bars = progress and jobs == 1 and local
    ex = dict(train=train, test=test, format=format, cache_dir=cache_dir, executor=executor, jobs=jobs, progress=progress)
    for method in tune:
        spec = TUNING[method]
        stages = (tune_stages or {}).get(method) or spec["stages"]
        done: dict[tuple, list[dict[str, Any]]] = {}

        def evaluate(cands, criterion, base=spec["base"], done=done, method=method):
            keys = [_tuned_key(base, c) for c in cands]
            new = [k for k in dict.fromkeys(keys) if k not in done]
            tasks = [(k, tune_seed, str(train), str(test), epochs, "tune", valid_fraction, eval_every, bars, format) for k in new]
            for k, _, hist, _ in _execute(tasks, **ex, desc=f"{method} search"):
                done[k] = hist
            return [_tune_score(done[k], criterion)[0] for k in keys]

        for variant in tune_variants:
            criterion, proto = TUNE_VARIANTS[variant]

            def scores(cands, crit=criterion):
                return evaluate(cands, crit)

            chosen, recs_v = validation_search(scores, stages)
            key = _tuned_key(spec["base"], chosen)
            if proto != protocol:
                key += (f"protocol={proto}",)
            rows.append((spec["table"], method, spec["setting"], variant, key))
            for r in recs_v:
                k = _tuned_key(spec["base"], r["params"])
                score, epoch = _tune_score(done[k], criterion)
                rec = dict(method=method, table=spec["table"], setting=spec["setting"], variant=variant,
                           criterion="last epoch" if criterion == "final" else "best epoch", stage=r["stage"],
                           params=";".join(f"{n}={v}" for n, v in sorted(r["params"].items())), **r["params"],
                           **{TUNE_METRIC: score}, epoch=epoch, chosen=r["chosen"], seed=tune_seed,
                           valid_fraction=valid_fraction)  # fmt: skip
                if tuning_records is not None:
                    tuning_records.append(rec)
    keys = sorted({r[4] for r in rows if r[4] is not None}, key=str)
    tasks = [
        (k, s, str(train), str(test), epochs, protocol, valid_fraction, eval_every, bars, format)
        + ((str(user_file), int(user_id_offset)) if user_file is not None else ())
        for k in keys
        for s in range(seeds)
    ]
    out = _execute(tasks, **ex, desc="thesis-tables runs")
    recs = []
    out.sort(key=lambda r: (str(r[0]), r[1]))  # completion order does not matter
    for key, seed, hist, secs in out:
        rep, epoch, mx = _reported(hist, _key_protocol(key, protocol))
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

    lines = []
    for table, method, setting, variant, key in rows:
        own = protocol if key is None else _key_protocol(key, protocol)  # early-stopping rows: their own
        conv_label = {
            "reported": "final epoch" if own == "fixed" else "best validation epoch",
            "max_test_over_epochs (released code)": "max_test_over_epochs (released code)",
        }
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

    Raises
    ------
    ValueError
        ``metric`` is unknown, ``tol`` is negative or not finite, or ``df`` lacks a column of
        :func:`summarize`'s table.

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

    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    missing = {"table", "method", "setting", "variant", "metric", "k", "thesis", "mean", "n_seeds", "convention"} - set(df)
    if missing:
        raise ValueError(f"df must be the tidy table of summarize(); missing columns {sorted(missing)}")
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


def tuning_markdown(records: Sequence[Mapping[str, Any]], valid_fraction: float = 0.1, tune_seed: int = 0) -> list[str]:
    """Markdown lines of the validation searches: per tuned row, every candidate's score and the choice.

    Parameters
    ----------
    records : sequence of mapping
        The ``tuning_records`` of :func:`run_tables`.
    valid_fraction : float
        The validation share, for the heading (default 0.1).
    tune_seed : int
        The searches' seed, for the heading (default 0; ``tune_seed`` of :func:`run_tables`).

    Returns
    -------
    list of str
        A section ``## Hyper-parameters chosen on validation`` (a table per method and variant).
    """
    lines = [
        "## Hyper-parameters chosen on validation",
        "",
        f"Each candidate: one run (seed {tune_seed}) on train minus {valid_fraction:g} of it (test never read), "
        f"scored by validation NDCG@10; the chosen value (**bold**) is then run with every seed and reported above "
        "under the variant's name.",
        "",
    ]
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["method"], r["variant"], r["criterion"]), []).append(r)
    for (method, variant, criterion), rs in groups.items():
        chosen = [r for r in rs if r["chosen"] and r["stage"] == max(x["stage"] for x in rs)][0]
        lines += [f"### {method}, {variant} (validation NDCG@10 at the {criterion}): chosen {chosen['params']}", ""]
        lines += ["| stage | candidate | valid NDCG@10 | epoch |", "|---|---|---|---|"]
        for r in rs:
            cell = f"**{r['params']}**" if r["chosen"] else r["params"]
            lines.append(f"| {r['stage']} | {cell} | {r[TUNE_METRIC]:.4f} | {r['epoch']} |")
        lines.append("")
    return lines


def figure(df: pd.DataFrame, metric: str = "ndcg", k: int = 10, dataset: str = "ml-100k", note: str | None = None) -> Figure:
    """negtheory (mean, 95 % interval) against the thesis's printed value, one panel per table.

    The legend says when there is no interval (rows of one seed).

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
    note : str, optional
        A second title line, e.g. "QUICK smoke run" or the settings that differ from the thesis's.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    from matplotlib.figure import Figure

    sub = df[(df.metric == metric) & (df.k == k) & (~df.convention.str.startswith("max_test"))]
    seeds = sub["n_seeds"].dropna() if "n_seeds" in sub else sub["mean"].iloc[:0]
    if len(seeds) and (seeds < 2).all():
        interval_label = "negtheory (1 seed: no interval)"
    elif len(seeds) and (seeds < 2).any():
        interval_label = "negtheory (mean, 95 % CI; none for 1-seed rows)"
    else:
        interval_label = "negtheory (mean, 95 % CI)"
    tables = list(dict.fromkeys(sub.table))
    # at most four panels a row: seven tables side by side leave no room for the row labels
    ncols = min(4, len(tables))
    nrows = -(-len(tables) // ncols)
    width = 3.2 * ncols + 1 if nrows == 1 else 4.6 * ncols
    fig = Figure(figsize=(width, 3.8 if nrows == 1 else 4.4 * nrows), layout="constrained")
    grid = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in grid[len(tables) :]:
        ax.set_axis_off()
    axes = grid[: len(tables)]
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
                label=interval_label,
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
    fig.suptitle(f"{names.get(dataset, dataset)}, {model}: negtheory vs thesis" + (f"\n{note}" if note else ""))
    return fig


def _apply_quick(args: argparse.Namespace) -> None:
    """``--quick``: Table 4.2's RNS and BNS rows, 1 seed, 2 epochs, a ``_quick`` output folder (what was given stays)."""
    if args.tables == list(TABLES):
        args.tables = ["4.2"]
        if not args.methods:
            args.methods = ["RNS", "BNS"]
    args.seeds = 1
    if args.epochs is None:
        args.epochs = 2
    if args.out == str(default_output("thesis_tables")):
        args.out = str(default_output("thesis_tables", True))


def _settings_note(args: argparse.Namespace, quick: bool) -> str:
    """What differs from the thesis's protocol, said beside the verdicts and on the figure ("" when nothing does)."""
    parts = ["QUICK smoke run: not a result"] if quick else []
    if args.epochs is not None:
        parts.append(f"epochs overridden to {args.epochs} (thesis: 100 SGD / 200 mini-batch MF / 100 LightGCN)")
    if args.seeds < 2:
        parts.append("1 seed: no interval")
    return "; ".join(parts)


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
    quick = bool(getattr(args, "quick", False))
    if quick:
        _apply_quick(args)
    if args.methods:
        valid = method_names(args.tables)
        unknown = [m for m in args.methods if m.lower() not in {v.lower() for v in valid}]
        if unknown:
            raise CommandError(
                f"--methods: unknown for tables {' '.join(args.tables)}: {' '.join(unknown)}; valid: {' '.join(valid)}"
            )
    from ..recsys import load_split

    try:
        tune_stages = parse_tune_grid(getattr(args, "tune_grid", []))
    except ValueError as e:
        raise CommandError(f"--tune-grid: {e}") from None
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
    started = time.time() - 1.0  # files written from here on are this run's (mtime resolution)
    note = _settings_note(args, quick)
    tuning: list[dict[str, Any]] = []
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
            tune=getattr(args, "tune", []),
            tune_variants=getattr(args, "tune_variants", list(TUNE_VARIANTS)),
            tune_stages=tune_stages,
            tune_seed=getattr(args, "tune_seed", 0),
            tuning_records=tuning,
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
            f"## Verdicts (NDCG@10, {df.convention.iloc[0]}; reproduced = within ±{TOLERANCE} of the printed value)"
            + (f" — {note}" if note else ""),
            "",
            verdicts_markdown(v),
            "",
        ]
        from .thesis_numbers import THESIS_BY_DATASET
        from .verdicts import strict_markdown, strict_verdicts

        sv = strict_verdicts(df, printed=THESIS_BY_DATASET[args.dataset])
        sv.to_csv(out / "verdicts_strict.csv", index=False)
        md += [strict_markdown(sv, lenient=v, title="Strict verdicts (distinct rows, every printed metric)"), ""]
    if tuning:
        import pandas as pd

        pd.DataFrame(tuning).to_csv(out / "tuning.csv", index=False)
        md += tuning_markdown(tuning, args.valid_fraction, getattr(args, "tune_seed", 0))
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
    figure(df, dataset=args.dataset, note=note).savefig(out / "thesis_tables.png", dpi=110)
    print(markdown(df, "ndcg", 10))
    if note:
        print(f"note: {note}")
    names = ["thesis_tables.csv", "thesis_tables.md", "thesis_tables.png", "runs.csv", "verdicts.csv", "verdicts_strict.csv",
             "tuning.csv", "sampling_quality.csv"]  # fmt: skip
    written = [str(out / n) for n in names if (out / n).exists() and (out / n).stat().st_mtime >= started]
    print(f"wrote {', '.join(written)} (finished runs kept in {out / 'runs'})")
    return 0
