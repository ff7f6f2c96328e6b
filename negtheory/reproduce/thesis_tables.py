r"""``negtheory reproduce thesis-tables``: the MF and LightGCN rows of thesis Tables 4.2-4.5, 5.2, 5.3 and 6.3 (MovieLens-100K, -1M, Yahoo!-R3, Yelp2018, Gowalla).

Protocol (thesis ch. 4-6 and its released code; every choice the thesis leaves open is an option):

* data — a user-supplied split (``--train FILE --test FILE``; the thesis's random 80/20 split of
  all ratings turned into implicit feedback, §4.5.1.1), ids kept consistent across the files, in
  any layout of :func:`negtheory.recsys.read_interactions` (``--format``: CSV / ``u.data``,
  MovieLens-1M ``ratings.dat``, Yahoo!-R3, LightGCN); or ``--data DIR``: the data set's files as
  distributed, split as the thesis states by :func:`negtheory.recsys.datasets.thesis_split`
  (``--split-seed``, default 0; written to ``OUT/splits/``). ``--dataset
  ml-100k|ml-1m|yahoo-r3|yelp2018|gowalla`` picks whose printed rows fill the ``thesis`` column
  (:data:`~negtheory.reproduce.thesis_numbers.THESIS_BY_DATASET`; Table 4.5 is printed for
  MovieLens-100K only) and which tables run (:data:`~negtheory.reproduce.thesis_numbers.TABLES_BY_DATASET`:
  Tables 5.2 and 6.3 only on Yelp2018 and Gowalla, the only ones the thesis prints for them);
* Tables 4.2 and 4.5 — BPR-MF by batch-1 SGD (:func:`negtheory.training.fit` with ``optimizer=SGD()``): d = 32,
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
  batch-1 SGD and hyper-parameters (``loss=BCE()`` or ``loss=InfoNCE(negatives=2)``); with BNS each
  negative is chosen by eq. 4.26 among its own 5 uniform candidates. The BPR rows reuse Table
  4.2's runs;
* Tables 5.2 and 6.3 — mini-batch MF (:func:`negtheory.training.fit` with ``optimizer=Adam(...)``) with the
  released code's settings: Adam lr 1e-3, weight decay 1e-5, batch 1024, N = 5 negatives,
  M = 5 extra positives, t = 1, τ⁺ = 0.06, HCL β = 0.5, BCL α = 0.55, β = 0.6, 200 epochs with
  the learning rate divided by 10 after epoch 100;
* Table 5.3 (``--tables 5.3``) — DPL against negative sampling, MF: its BPR, BNS and DPL rows
  repeat Tables 4.2 (RNS, BNS) and 5.2 (DPL) and share their runs; "DPL with Hard Samples" is DPL
  (mini-batch, as Table 5.2) whose N = 5 negatives are each the highest-scored of 5 uniform
  non-interacted candidates (DNS, ``sampler=DNS()``), with the data set's τ⁺ (§5.6.2.3: 0.3 on
  MovieLens-100K, 0.25 on MovieLens-1M, ``--dataset``; the thesis gives no candidate count, 5 is its DNS / BNS
  setting); run key ``("mf", "dpl", "sampler=dns", "tau_plus=0.3")`` on MovieLens-100K;
* validation searches (``--tune PNS AOBPR BCL BCL-released BCL-LightGCN``, :data:`TUNING`, issue 22) — for
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
  (:data:`~negtheory.training.THESIS_LIGHTGCN`): d = 32, one layer, Adam lr 0.01 multiplied
  by 0.1 every 20 epochs, reg 1e-5 as Adam's weight decay (as the MF code of ch. 5-6; the LightGCN
  release's batch L2 at 1e-5 overfits, ``Adam(penalty="batch")``), 100 epochs,
  batch 128 (the thesis's 1024 on MovieLens-1M is not switched automatically), and the losses' N,
  M, t, τ⁺, α, β of the MF runs. Table 4.2's RNS, PNS, DNS and BNS rows are mini-batch BPR with
  one negative per pair: uniform (RNS), ∝ pop^0.75 (PNS), the highest-scored of 5 uniform
  non-interacted candidates (DNS), or chosen by BNS among 5 (eq. 4.26, λ = 5, prior pop / |D|,
  eCDF over the user's non-interacted items), or by AOBPR (a geometric rank among the scored
  non-interacted items, λ = 0.05 |I|) or SRNS (the MF rows' memory settings), both from the scores
  at each step's start (:mod:`negtheory.recsys.adaptive_samplers`). The
  BPR row of Table 5.2 repeats Table 4.2's RNS row and reuses its runs;
* evaluation — all items the user has not interacted with in training are ranked; P/R/NDCG at
  5, 10, 20 (:func:`negtheory.recsys.topk_metrics`) over users with test items;
* reported value (``--protocol``) — ``fixed``: the test metrics after the last epoch of a run on
  the whole training split (no choice depends on test); ``valid``: 10 % of the training pairs
  are held out, the epoch with the best validation NDCG@10 is selected, and the test metrics at
  that epoch are reported. Either way the released code's convention — the maximum of each
  test metric over the evaluated epochs, which selects on test — is written beside it with
  ``convention = max_test_over_epochs (released code)``.

Mean and 95 % t-interval over seeds for each cell. The tables are data
(:mod:`negtheory.reproduce.thesis_plan`): every row's run key becomes one
:class:`~negtheory.reproduce.engine.RunSpec` per seed, executed by the reproduce engine
(:func:`negtheory.reproduce.engine.execute`), seeded by its seed alone: ``--jobs N`` runs N local
processes, ``--executor dask`` a local Dask cluster of N workers, ``--executor ADDRESS`` the Dask
scheduler there; the CSV is the same in every case, and finished jobs are kept in ``OUT/runs/``
and reused by a rerun. ``--estimate`` runs nothing: it times one epoch of each distinct run
(:func:`estimate`) and prints runs x epochs x seconds per epoch, the core-hours and their share
per ``--jobs`` worker. The report (tidy CSV, markdown, verdicts, figure) is
:mod:`negtheory.reproduce.thesis_report`; the validation searches :mod:`negtheory.reproduce.thesis_tuning`.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from .._cli_common import CommandError, default_output, input_file, integer, output_dir, real
from .._validation import int_scalar
from . import _common
from ._common import (
    DATA_FORMATS,
    add_executor_arguments,
    add_format_argument,
    add_output_arguments,
    connect_executor,
)
from .engine import Plan, RunSpec, execute
from .thesis_numbers import DATASETS, TABLES_BY_DATASET
from .thesis_plan import (  # noqa: F401  (re-exported: the names of this module before issue 32)
    ABLATION_VARIANTS,
    ALL_BNS_SIZES,
    BNS2_WARM_EPOCHS,
    BNS_VARIANTS,
    BPR_VARIANTS,
    DEFAULT_BNS_SIZES,
    DPL_HARD_TAU_PLUS,
    LIGHTGCN_VARIANTS,
    METRICS,
    MODELS,
    SRNS_VARIANTS,
    TABLE44_LOSSES,
    TABLES,
    TAU_VARIANTS,
    TUNE_METRIC,
    TUNE_VARIANTS,
    TUNING,
    _cost_hint,
    _key_protocol,
    _split_key,
    _tuned_key,
    default_epochs,
    method_names,
    plan,
)
from .thesis_report import (  # noqa: F401
    AS_WRITTEN,
    TOLERANCE,
    _reported,
    figure,
    markdown,
    sampling_quality_table,
    summarize,
    verdicts,
    verdicts_markdown,
    write_report,
)
from .thesis_tuning import parse_tune_grid, tune_rows, tuning_markdown, validation_search  # noqa: F401

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any

    import pandas as pd

    from .._typing import InteractionSource

HELP = (
    "thesis Tables 4.2 / 4.3 / 4.4 / 4.5 / 5.2 / 5.3 / 6.3 (MF rows, LightGCN rows with --models lightgcn) "
    "on a MovieLens-100K, MovieLens-1M, Yahoo!-R3, Gowalla or Yelp2018 split"
)

__all__ = [
    "HELP",
    "BNS_VARIANTS",
    "SRNS_VARIANTS",
    "TUNING",
    "TUNE_VARIANTS",
    "TableOptions",
    "add_arguments",
    "run",
    "plan",
    "run_tables",
    "estimate",
    "summarize",
    "verdicts",
    "verdicts_markdown",
    "TOLERANCE",
    "validation_search",
    "parse_tune_grid",
    "tuning_markdown",
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce thesis-tables`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser; ``--train``, ``--test`` (or ``--data``, ``--split-seed``),
        ``--dataset``, ``--tables``, ``--models``, ``--methods``, ``--seeds``, ``--epochs``,
        ``--protocol``, ``--valid-fraction``, ``--bns-sizes``, ``--eval-every``, ``--jobs``,
        ``--out``, ``--quiet``, ``--estimate`` and the others are added to it in place.
    """
    _add_data_arguments(p)
    _add_row_arguments(p)
    _add_tune_arguments(p)
    add_executor_arguments(p)
    add_output_arguments(
        p, default_output("thesis_tables"), "thesis_tables.csv / .md / .png and runs.csv"
    )
    p.add_argument(
        "--estimate",
        action="store_true",
        help="run nothing: time one epoch of each distinct run of the plan on the data and print runs x epochs x "
        "seconds per epoch, the total core-hours and that total over --jobs workers (default: off, run the plan)",
    )
    p.add_argument(
        "--device",
        choices=_common.DEVICES,
        default="cpu",
        help="where the mini-batch MF and LightGCN runs train: cpu, cuda, or auto (cuda when torch sees a GPU); the "
        "batch-1 SGD runs always run on the CPU; a GPU run is cached apart from its CPU twin (default: cpu)",
    )
    p.add_argument(
        "--lightgcn-propagation",
        choices=("full", "batch"),
        default="full",
        help="LightGCN runs: propagate the whole graph at each step (full, as the LightGCN release) or only the "
        "last layer's rows of the step's users and items (batch: the same model to float32 rounding, 5-8x "
        "faster a step on Gowalla); batch runs are cached apart (default: full)",
    )
    p.add_argument(
        "--checkpoints",
        action="store_true",
        help="save each mini-batch MF / LightGCN run's training state at every evaluation in OUT/checkpoints: a run "
        "stopped part-way continues from its last evaluation when the command is run again (default: off)",
    )
    p.add_argument(
        "--finished-only",
        action="store_true",
        help="train nothing: report the runs of these options already finished in OUT/runs, each row over the seeds "
        "it has (of --seeds; a row with none is 'not run'), e.g. while long runs are still going (default: off)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: Table 4.2's RNS and BNS rows (unless --tables / --methods say otherwise), 1 seed, 2 epochs, "
        "into negtheory_output/thesis_tables_quick unless --out is given; its outputs say QUICK",
    )


def _add_data_arguments(p: argparse.ArgumentParser) -> None:
    """``--train``, ``--test``, ``--data``, ``--split-seed``, ``--format``, ``--dataset``, ``--tables``."""
    p.add_argument(
        "--train",
        default=None,
        help="training interactions: CSV user,item[,rating], MovieLens u.data or ratings.dat, Yahoo!-R3 (default: none; give --train and --test, or --data)",
    )
    p.add_argument(
        "--test",
        default=None,
        help="test interactions, same format; ids are matched to --train's (default: none)",
    )
    p.add_argument(
        "--data",
        default=None,
        metavar="DIR",
        help="instead of --train/--test: the --dataset's files as distributed (a folder; for ml-1m also ratings.dat "
        "itself), split as the thesis states (negtheory.recsys.datasets.thesis_split; written to OUT/splits/; default: none)",
    )
    p.add_argument(
        "--split-seed",
        type=integer(0),
        default=0,
        help="seed of the random 80/20 split of --data (default: 0)",
    )
    add_format_argument(p)
    p.add_argument(
        "--dataset",
        choices=DATASETS,
        default="ml-100k",
        help="whose printed rows fill the thesis column (ml-100k: every table; ml-1m, yahoo-r3: Tables 4.2, 5.2, 6.3 "
        "and ml-1m 5.3; yelp2018, gowalla: Tables 5.2 and 6.3 only, the only ones run on them)",
    )
    p.add_argument(
        "--tables",
        nargs="+",
        default=None,
        choices=TABLES,
        help="which tables to run (default: all the command runs on --dataset: every table, or 5.2 and 6.3 on "
        "yelp2018 / gowalla)",
    )


def _add_row_arguments(p: argparse.ArgumentParser) -> None:
    """The options that choose and set up the rows: ``--models``, ``--methods``, ``--seeds``, ``--epochs``, ... ``--eval-every``."""
    p.add_argument(
        "--models",
        nargs="+",
        default=["mf"],
        choices=MODELS,
        help="recommenders: mf (all four tables) and/or lightgcn (Tables 4.2, 5.2, 6.3; thesis §4.5.1.2 settings)",
    )
    p.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="only these methods (e.g. RNS BNS DPL; case-insensitive; default: all)",
    )
    p.add_argument(
        "--seeds",
        type=integer(1),
        default=3,
        help="number of seeds (0 .. N-1); mean and 95%% interval over them",
    )
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
    # the named readings beside the thesis's text, each reported as its own rows: option -> (nargs, choices, default, help)
    readings: dict[str, tuple[str, Any, list, str]] = {
        "--bns-variants": (
            "+",
            BNS_VARIANTS,
            list(BNS_VARIANTS),
            "readings of Table 4.5's oracle prior (default: all)",
        ),
        "--srns-variants": (
            "*",
            SRNS_VARIANTS,
            [],
            "extra SRNS rows of Table 4.2 with other hyper-parameters (default: "
            "none; the released run script's)",
        ),
        "--lightgcn-variants": (
            "*",
            LIGHTGCN_VARIANTS,
            [],
            "extra LightGCN rows with other settings, one per reading "
            "beside every LightGCN row run (Tables 4.2, 5.2, 6.3), e.g. batch-l2 (default: none)",
        ),
        "--bpr-variants": (
            "*",
            BPR_VARIANTS,
            [],
            "extra readings of Table 5.2's BPR row: minibatch (the ch. 5-6 code's "
            "mini-batch BPR instead of Table 4.2's SGD RNS run; default: none)",
        ),
        "--tau-variants": (
            "*",
            TAU_VARIANTS,
            [],
            "readings of the class prior of Tables 5.2 / 6.3: density (τ⁺ = the "
            "data set's density of Table 5.1, beside every DCL / HCL / DPL / BCL row; default: none)",
        ),
        "--bns2-warm": (
            "+",
            BNS2_WARM_EPOCHS,
            [20],
            "E of Table 4.3's BNS-2 (RNS for E epochs, then BNS; the thesis "
            "states none), one row per value (default: 20)",
        ),
    }
    for option, (nargs, choices, default, text) in readings.items():
        kind = int if option == "--bns2-warm" else str
        p.add_argument(
            option, nargs=nargs, type=kind, default=default, choices=list(choices), help=text
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


def _add_tune_arguments(p: argparse.ArgumentParser) -> None:
    """``--tune``, ``--tune-variants``, ``--tune-grid``, ``--tune-seed``: the validation searches."""
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
    p.add_argument(
        "--tune-seed",
        type=integer(0),
        default=0,
        help="seed of the searches' runs and validation split (default: 0)",
    )
    p.add_argument(
        "--tune-only",
        action="store_true",
        help="run only the searches of --tune and their chosen rows, not the rows --tables / --methods select as "
        "written (already run elsewhere); --tables / --methods still say which tables the report names (default: off)",
    )


# ------------------------------------------------------------------------------------------
# what to run
# ------------------------------------------------------------------------------------------
def _job(data, task):
    """Worker: one (run_key, seed) on the loaded split -> ``{"run", "seed", "history", "seconds"}``.

    Top level, so that worker processes and Dask workers import it; torch is imported only for 'mf'.
    """
    key, seed, _train, _test, epochs, protocol, valid_fraction, eval_every, progress = task[:9]
    device = (
        task[10] if len(task) > 10 else "cpu"
    )  # a task of ten fields (made by hand) trains on the CPU
    # --checkpoints: the mini-batch runs' training state, saved at every evaluation, named after the run's cache file
    ck_dir = task[11] if len(task) > 11 else None
    checkpoint = (
        os.path.join(ck_dir, _cache_name(task)[: -len(".json")] + ".pt")
        if ck_dir and key[0] != "sgd"
        else None
    )
    from negtheory.training import fit

    from ._run_keys import LIGHTGCN_KEYWORDS, minibatch_fit_args, sgd_fit_args

    key, over = _split_key(key)
    protocol = over.pop("protocol", protocol)
    if protocol in ("valid", "tune"):
        data = data.with_validation(valid_fraction, rng=seed)
    if (
        protocol == "tune"
    ):  # a hyper-parameter search's run: the test split never reaches the trainer
        data = dataclasses.replace(data, test=data.test[:0])
    t0 = time.perf_counter()
    if key[0] == "sgd":
        _, sampler, cand, prior, *variant = key
        if (
            prior == "occupation"
        ):  # BNS-4 (Table 4.3): the prior of the u.user file carried by the task
            from negtheory.recsys import bns_occupation_prior, read_user_occupations

            user_file, id_offset = task[12], task[13]
            prior = bns_occupation_prior(
                data, read_user_occupations(user_file, data.user_ids, id_offset)
            )
        args = sgd_fit_args(
            sampler=sampler,
            candidates=cand,
            prior=prior,
            **(
                {**BNS_VARIANTS, **SRNS_VARIANTS, **ABLATION_VARIANTS}[variant[0]]
                if variant
                else {}
            ),
            **over,
            epochs=epochs or 100,
            eval_every=eval_every,
            eval_on={"valid": "both", "tune": "valid"}.get(protocol, "test"),
        )
        res = fit(data, **args, rng=seed, progress=progress)
    elif key[0] == "lightgcn":
        cfg = dict(LIGHTGCN_KEYWORDS, **(LIGHTGCN_VARIANTS[key[3]] if len(key) > 3 else {}))
        cfg.update(
            over
        )  # a validation search's keywords (TUNING "BCL-LightGCN": alpha, tau_plus, beta)
        cfg["epochs"] = epochs or cfg["epochs"]
        args = minibatch_fit_args(loss=key[1], **cfg, sampler=key[2], eval_every=eval_every)
        res = fit(data, **args, rng=seed, progress=progress, device=device, checkpoint=checkpoint)
    else:
        args = minibatch_fit_args(loss=key[1], **over, epochs=epochs or 200, eval_every=eval_every)
        res = fit(data, **args, rng=seed, progress=progress, device=device, checkpoint=checkpoint)
    return {
        "run": str(task[0]),
        "seed": seed,
        "history": res.history,
        "seconds": time.perf_counter() - t0,
    }


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
        + (
            (Path(task[12]).name, Path(task[12]).stat().st_size, task[13])
            if key[3:4] == ("occupation",)
            else ()
        )
        # a GPU run apart from its CPU twin (CPU names unchanged: the SGD runs never leave the CPU)
        + (("device", task[10]) if len(task) > 10 and task[10] != "cpu" and key[0] != "sgd" else ())
    )
    return (
        "_".join(str(x) for x in key)
        + f"_seed{seed}_"
        + hashlib.sha1(ident.encode()).hexdigest()[:10]
        + ".json"
    )


@dataclasses.dataclass(frozen=True)
class TableOptions:
    r"""What :func:`run_tables` runs and how each run is set up (the options of the command).

    Parameters
    ----------
    tables : sequence of str
        Tables among ``"4.2"``, ``"4.3"``, ``"4.4"``, ``"4.5"``, ``"5.2"``, ``"5.3"``, ``"6.3"``
        (default: all).
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
        Validation share of train for ``protocol="valid"`` and the searches, in (0, 1) (default 0.1).
    bns_sizes : sequence of str
        :math:`|\mathcal{M}_u|` of Table 4.5 (:func:`plan`).
    eval_every : int
        Evaluate every this many epochs (default 5; the max-over-epochs convention uses these).
    format : str
        Layout of the ``train`` / ``test`` files (:func:`negtheory.recsys.read_interactions`;
        default ``"auto"``: recognised from the content).
    bns_variants, srns_variants, lightgcn_variants, bpr_variants, tau_variants : sequence of str
        Readings of Table 4.5's oracle prior (default: all), extra SRNS rows of Table 4.2,
        extra LightGCN rows, extra readings of Table 5.2's BPR row and of the τ⁺ of Tables 5.2 / 6.3
        (default: none); :func:`plan`.
    models : sequence of {"mf", "lightgcn"}
        The recommenders whose rows are run (:func:`plan`; default MF only).
    bns2_warm : sequence of int
        The E of Table 4.3's BNS-2 rows (:func:`plan`; default 20).
    user_file : str or os.PathLike, optional
        MovieLens' ``u.user``: runs Table 4.3's BNS-4 row (default None: not run).
    user_id_offset : int
        Raw user id of the split = id in ``user_file`` + this (default 0).
    tune : sequence of str
        Methods (keys of :data:`TUNING`) whose hyper-parameters are chosen on validation
        (:func:`negtheory.reproduce.thesis_tuning.tune_rows`; default: none).
    tune_variants : sequence of str
        Variants of the tuned rows (default both ``valid-tuned`` and ``valid-tuned-es``).
    tune_stages : mapping, optional
        Method -> stages replacing :data:`TUNING`'s (e.g. from :func:`parse_tune_grid`).
    tune_seed : int
        Seed of the searches' runs and validation split (default 0).
    tune_only : bool
        Run only the rows of the searches (``tune``), not the rows ``tables`` / ``methods`` select
        as written: for a search added to a report whose plain rows are already run (default False).
    dataset : str
        The data set (:data:`~negtheory.reproduce.thesis_numbers.DATASETS`): whose per-data-set
        settings the runs take (:func:`plan`) and whose printed rows fill the thesis column
        (default ``"ml-100k"``).
    device : {"cpu", "cuda", "auto"}
        Where the mini-batch MF and LightGCN runs train (:func:`negtheory.training.fit`'s ``device``;
        ``"auto"``: CUDA when torch sees a GPU). The batch-1 SGD runs are numba kernels and always
        run on the CPU. A run on a GPU is cached apart from the same run on the CPU (default ``"cpu"``).
    lightgcn_propagation : {"full", "batch"}
        How the LightGCN runs propagate at each step (:class:`negtheory.bridge.recommend.LightGCN`):
        ``"full"`` (default) the whole graph, as the LightGCN release; ``"batch"`` the last layer for the
        step's nodes only, the same model to float32 rounding and 5-8x faster a step on Gowalla. A
        ``"batch"`` run is cached apart (its key ends in ``propagation=batch``).
    checkpoints : bool
        Save each mini-batch MF and LightGCN run's training state at every evaluation in
        ``OUT/checkpoints`` (:mod:`negtheory.training.checkpoint`), named after its cache file: a run
        stopped part-way continues from its last evaluation when the command is run again, with the
        same result (default False). The batch-1 SGD runs are not checkpointed.
    finished_only : bool
        Train nothing: only the (run, seed) pairs of these options (seeds ``0 .. seeds - 1``) whose
        result is already stored in the cache are read and reported, each row over the seeds it has;
        a row with none is reported as not run (default False). Needs a cache; not with ``tune``.
    """

    tables: Sequence[str] = TABLES
    methods: Sequence[str] | None = None
    seeds: int = 3
    epochs: int | None = None
    protocol: str = "fixed"
    valid_fraction: float = 0.1
    bns_sizes: Sequence[str] = DEFAULT_BNS_SIZES
    eval_every: int = 5
    format: str = "auto"
    bns_variants: Sequence[str] = tuple(BNS_VARIANTS)
    srns_variants: Sequence[str] = ()
    models: Sequence[str] = ("mf",)
    lightgcn_variants: Sequence[str] = ()
    bpr_variants: Sequence[str] = ()
    tau_variants: Sequence[str] = ()
    bns2_warm: Sequence[int] = (20,)
    user_file: str | os.PathLike[str] | None = None
    user_id_offset: int = 0
    tune: Sequence[str] = ()
    tune_variants: Sequence[str] = tuple(TUNE_VARIANTS)
    tune_stages: Mapping[str, Sequence[Mapping[str, Sequence[Any]]]] | None = None
    tune_seed: int = 0
    tune_only: bool = False
    dataset: str = "ml-100k"
    device: str = "cpu"
    lightgcn_propagation: str = "full"
    checkpoints: bool = False
    finished_only: bool = False

    def rows(self) -> list[tuple[str, str, str, str, tuple | None]]:
        """The rows these options select.

        Returns
        -------
        list of tuple
            ``(table, method, setting, variant, run_key)`` per row (:func:`plan`); none with ``tune_only``.
        """
        if self.tune_only:
            return []
        return plan(
            self.tables,
            self.methods,
            self.bns_sizes,
            self.bns_variants,
            self.srns_variants,
            self.models,
            self.lightgcn_variants,
            bns2_warm=self.bns2_warm,
            occupation=self.user_file is not None,
            dataset=self.dataset,
            bpr_variants=self.bpr_variants,
            tau_variants=self.tau_variants,
        )

    def check(self) -> None:
        """ValueError naming the option for an invalid value."""
        if self.format not in DATA_FORMATS:
            raise ValueError(
                f"format must be one of {', '.join(DATA_FORMATS)}, got {self.format!r}"
            )
        bad = [m for m in self.tune if m not in TUNING]
        if bad:
            raise ValueError(f"tune must name methods among {tuple(TUNING)}, got {bad}")
        bad = [v for v in self.tune_variants if v not in TUNE_VARIANTS]
        if bad or (self.tune and not self.tune_variants):
            raise ValueError(
                f"tune_variants must be among {tuple(TUNE_VARIANTS)}, got {list(self.tune_variants)}"
            )
        bad = [m for m in (self.tune_stages or {}) if m not in TUNING]
        if bad:
            raise ValueError(
                f"tune_stages must be keyed by methods among {tuple(TUNING)}, got {bad}"
            )
        int_scalar("tune_seed", self.tune_seed, 0)
        if self.tune_only and not self.tune:
            raise ValueError("tune_only needs at least one search in tune")
        _common.resolve_device(self.device)
        if self.lightgcn_propagation not in ("full", "batch"):
            raise ValueError(
                f"lightgcn_propagation must be 'full' or 'batch', got {self.lightgcn_propagation!r}"
            )

    def run_device(self) -> str:
        """The device the mini-batch runs take: ``device`` with ``"auto"`` resolved (``"cuda"`` or ``"cpu"``).

        Returns
        -------
        str
            ``"cuda"`` or ``"cpu"``.
        """
        return _common.resolve_device(self.device)


#: the positional parameters of run_tables before issue 32 (train, test, then these)
_LEGACY_POSITIONAL = (
    "tables",
    "methods",
    "seeds",
    "epochs",
    "protocol",
    "valid_fraction",
    "bns_sizes",
    "eval_every",
    "jobs",
    "progress",
    "cache_dir",
)


class _Runner:
    """Turns run keys into engine plans on one split (the files' paths: workers and the cache read them)."""

    def __init__(self, train, test, o: TableOptions, *, cache_dir, executor, jobs, progress):
        self.train, self.test, self.o = str(train), str(test), o
        self.cache_dir, self.executor, self.jobs, self.progress = (
            cache_dir,
            executor,
            jobs,
            progress,
        )
        # epoch bars only when runs go one at a time in this process (workers would interleave them)
        self.bars = progress and jobs == 1 and (executor is None or executor == "local")
        self.device = o.run_device()
        # --checkpoints: OUT/checkpoints beside the run cache (OUT/runs)
        self.checkpoint_dir = (
            str(Path(cache_dir).parent / "checkpoints") if o.checkpoints and cache_dir else None
        )
        if self.checkpoint_dir is not None:
            os.makedirs(self.checkpoint_dir, exist_ok=True)

    def task(
        self,
        key: tuple,
        seed: int,
        protocol: str,
        epochs: int | None = None,
        eval_every: int | None = None,
    ) -> tuple:
        o = self.o
        extra = (
            (str(o.user_file), int(o.user_id_offset))
            if o.user_file is not None and protocol != "tune"
            else ()
        )
        if (
            key[0] == "lightgcn" and o.lightgcn_propagation != "full"
        ):  # a run of its own (LightGCN.propagation)
            key = (*key, _PROPAGATION + o.lightgcn_propagation)
        return (
            key,
            seed,
            self.train,
            self.test,
            o.epochs if epochs is None else epochs,
            protocol,
            o.valid_fraction,
            o.eval_every if eval_every is None else eval_every,
            self.bars,
            o.format,
            self.device,
            self.checkpoint_dir,
            *extra,
        )

    def plan(self, tasks: Sequence[tuple], desc: str, cache: bool = True) -> Plan:
        from negtheory.recsys import load_split

        specs = tuple(
            RunSpec(
                key=t[0],
                replicate=t[1],
                task=t,
                name=_cache_name(t) if cache else None,
                cost=_cost_hint(t),
            )
            for t in tasks
        )
        return Plan(
            specs, _job, lambda: load_split(self.train, self.test, format=self.o.format), desc=desc
        )

    def histories(self, tasks: Sequence[tuple], desc: str) -> list[tuple[tuple, int, list, float]]:
        """``(key, seed, history, seconds)`` of every task, run or read from the cache."""
        recs = execute(
            self.plan(tasks, desc),
            cache_dir=self.cache_dir,
            executor=self.executor,
            jobs=self.jobs,
            progress=self.progress,
        )
        return [(_row_key(t[0]), t[1], r["history"], r["seconds"]) for t, r in zip(tasks, recs)]


#: the run-key item of ``lightgcn_propagation`` (not part of the row's key: the same row, computed faster)
_PROPAGATION = "propagation="


def _row_key(key: tuple) -> tuple:
    """A task's run key without its ``propagation=`` item: the key of the row it fills."""
    return tuple(x for x in key if not (isinstance(x, str) and x.startswith(_PROPAGATION)))


def _options(args: tuple, kwargs: dict, options: TableOptions | None) -> tuple[TableOptions, dict]:
    """The TableOptions of a call of run_tables in the form before issue 32, and its run keywords."""
    if len(args) > len(_LEGACY_POSITIONAL):
        raise TypeError(
            f"run_tables takes at most {2 + len(_LEGACY_POSITIONAL)} positional arguments"
        )
    given = dict(zip(_LEGACY_POSITIONAL, args))
    dup = set(given) & set(kwargs)
    if dup:
        raise TypeError(f"run_tables got multiple values for {sorted(dup)}")
    given.update(kwargs)
    fields = {f.name for f in dataclasses.fields(TableOptions)}
    run_kw = {k: given.pop(k) for k in ("jobs", "progress", "cache_dir") if k in given}
    unknown = sorted(set(given) - fields)
    if unknown:
        raise TypeError(f"run_tables got unexpected keyword arguments {unknown}")
    caller = sys._getframe(2).f_globals.get("__name__", "")
    if given and not caller.startswith("negtheory."):
        warnings.warn(
            "run_tables(train, test, tables, ..., name=value) is deprecated: pass "
            "options=TableOptions(...)",
            DeprecationWarning,
            stacklevel=3,
        )
    return dataclasses.replace(options or TableOptions(), **given), run_kw


def run_tables(
    train: InteractionSource,
    test: InteractionSource,
    options: TableOptions | Sequence[str] | None = None,
    *legacy: Any,
    jobs: int = 1,
    progress: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    executor: Any = "local",
    tuning_records: list[dict[str, Any]] | None = None,
    **legacy_options: Any,
) -> tuple[
    list[tuple[str, str, str, str, tuple | None]], pd.DataFrame, dict[tuple, list[dict[str, Any]]]
]:
    r"""Run every needed (run, seed) through the reproduce engine; return ``(rows, runs, histories)``.

    The rows of the options' tables (:func:`plan`, plus the rows of the validation searches of
    ``options.tune``) become a :class:`~negtheory.reproduce.engine.Plan` of one spec per (run key,
    seed), executed by :func:`negtheory.reproduce.engine.execute`. With ``cache_dir`` each finished
    run's history is stored there (one JSON file named after the run, the seed and a hash of the
    settings and input files) and reused by a later call, so an interrupted reproduction resumes
    and a second table reuses the first one's runs.

    Parameters
    ----------
    train, test : str or os.PathLike
        The split's files (:func:`negtheory.recsys.load_split`; paths, since worker processes
        and the cache read them).
    options : TableOptions, optional
        What to run (default ``TableOptions()``: every table, MF, 3 seeds). The form before
        issue 32 — ``tables`` here, then ``methods, seeds, epochs, ...`` positionally or
        ``name=value`` for any field of :class:`TableOptions` — still works, with a
        DeprecationWarning.
    *legacy : object
        Only for the call before issue 32: ``methods, seeds, epochs, protocol, valid_fraction,
        bns_sizes, eval_every, jobs, progress, cache_dir`` after ``tables``.
    jobs : int
        Worker processes (default 1: runs one after the other, with epoch bars).
    progress : bool
        Show progress bars (default True).
    cache_dir : str or os.PathLike, optional
        Folder of finished runs to store and reuse (default None: no cache). With
        ``options.checkpoints`` the runs' checkpoints go to ``checkpoints/`` beside it.
    executor : str, Client or Executor
        Where the runs go: ``"local"`` (``jobs`` processes), ``"dask"`` (a local Dask cluster of
        ``jobs`` workers), a scheduler address, a ``distributed.Client`` or a
        ``concurrent.futures.Executor`` (:func:`negtheory.reproduce._common.run_jobs`). Every run
        is seeded by its own seed and its history goes through JSON before use, so the result is
        the same wherever and in whatever order the runs finish.
    tuning_records : list, optional
        If given, one dict per (method, variant, candidate) of the searches is appended
        (:func:`negtheory.reproduce.thesis_tuning.tune_rows`).
    **legacy_options : object
        Only for the call before issue 32: fields of :class:`TableOptions` by name (with a
        DeprecationWarning; an unknown name raises TypeError).

    Returns
    -------
    rows : list of tuple
        The plan (:func:`plan`) and the tuned rows.
    runs : pandas.DataFrame
        Tidy per-seed metrics: ``run, seed, convention`` (``reported`` or
        ``max_test_over_epochs (released code)``), ``metric, k, value, epoch, seconds``.
    histories : dict
        ``(run_key, seed)`` -> the run's per-evaluation records (e.g. its TNR / INF).

    Raises
    ------
    ValueError
        The options select no row (and ``tune`` is empty), or an option is invalid (the
        message names it).
    """

    if options is not None and not isinstance(
        options, TableOptions
    ):  # the tables, positionally (before issue 32)
        legacy = (options, *legacy)
        options = None
    o, run_kw = (
        _options(legacy, legacy_options, options)
        if (legacy or legacy_options)
        else (options or TableOptions(), {})
    )
    jobs, progress, cache_dir = (
        run_kw.get("jobs", jobs),
        run_kw.get("progress", progress),
        run_kw.get("cache_dir", cache_dir),
    )
    o.check()
    if o.checkpoints and cache_dir is None:
        raise ValueError(
            "checkpoints needs a cache_dir: the checkpoints go beside it, in its parent's checkpoints/"
        )
    if o.finished_only and cache_dir is None:
        raise ValueError("finished_only needs a cache_dir: it reports the runs stored there")
    if o.finished_only and o.tune:
        raise ValueError(
            "finished_only trains nothing, so it cannot run the validation searches of tune"
        )
    rows = o.rows()
    if not rows and not o.tune:
        raise ValueError(
            f"no row selected by tables {list(o.tables)}, methods {list(o.methods or [])} and models {list(o.models)}; "
            f"the methods of these tables are {', '.join(method_names(o.tables))}"
        )
    runner = _Runner(
        train, test, o, cache_dir=cache_dir, executor=executor, jobs=jobs, progress=progress
    )
    rows += tune_rows(runner, o, tuning_records)
    keys = sorted({r[4] for r in rows if r[4] is not None}, key=str)
    tasks = [runner.task(k, s, o.protocol) for k in keys for s in range(o.seeds)]
    if (
        o.finished_only
    ):  # the stored results only: nothing is trained (a row without one is reported as not run)
        tasks = [
            t
            for t in tasks
            if cache_dir is not None and (Path(cache_dir) / _cache_name(t)).exists()
        ]
        if not tasks:
            raise ValueError(f"finished_only: none of these rows' runs is finished in {cache_dir}")
    out = runner.histories(tasks, "thesis-tables runs")
    return rows, _tidy_runs(out, o.protocol), {(key, seed): hist for key, seed, hist, _ in out}


def _tidy_runs(out: list[tuple[tuple, int, list, float]], protocol: str) -> pd.DataFrame:
    """Per-seed metrics of every run, under both conventions (the ``runs`` of :func:`run_tables`)."""
    import pandas as pd

    recs = []
    for key, seed, hist, secs in sorted(
        out, key=lambda r: (str(r[0]), r[1])
    ):  # completion order does not matter
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
    return pd.DataFrame(recs)


#: the clock of :func:`estimate`: CPU seconds of this process (all its threads), i.e. core-seconds, which other
#: work on a busy machine does not inflate as it does wall-clock time
_cpu_clock = time.process_time


def estimate(
    train: InteractionSource,
    test: InteractionSource,
    options: TableOptions | None = None,
    *,
    jobs: int = 1,
    progress: bool = False,
    repeats: int = 1,
) -> pd.DataFrame:
    r"""The cost of a plan without running it: timed epochs of each distinct run, extrapolated.

    Each distinct run of the plan (seed 0) is trained on the given split, in this process and in
    this order: one epoch to warm up the compiled kernels, then ``repeats`` times one epoch with
    its evaluation (:math:`T_1`) and two epochs with one evaluation (:math:`T_2`), interleaved;
    :math:`T_1, T_2` are the minima over the repeats (as ``timeit`` does: noise only adds time).
    Each is the CPU time of this process over the run (``time.process_time``: the core-seconds
    of all its threads), so other work on a busy machine does not inflate it, as it would a
    wall-clock time. A run on a GPU (``options.device``) is timed by the wall clock instead: its
    CPU waits on the device, and CPU time would undercount it.
    An epoch's training costs :math:`t = T_2 - T_1` and an evaluation :math:`e = 2 T_1 - T_2`
    (each at least 0; :math:`e` also carries the run's fixed set-up), so a run of E epochs
    evaluated every ``eval_every`` costs :math:`E\,(t + e / \text{eval\_every})`: on a large
    catalog the evaluation (all items ranked for every test user) can cost more than an epoch,
    and is not paid every epoch. The timed runs are not handed to the engine, whose scheduler
    starts the longest runs first and would time a two-epoch run before its warm-up. Validation
    searches (``options.tune``) are not included: their candidates are known only as the search
    goes.

    Parameters
    ----------
    train, test : str or os.PathLike
        The split's files.
    options : TableOptions, optional
        The plan (default ``TableOptions()``).
    jobs : int
        The workers the total is divided over (default 1).
    progress : bool
        A progress bar over the timed runs (default False).
    repeats : int
        How many times :math:`T_1` and :math:`T_2` are timed (default 1; more on a busy machine).

    Returns
    -------
    pandas.DataFrame
        One row per distinct run: ``run, runs`` (seeds), ``epochs``, ``train_seconds`` (t, one
        epoch), ``eval_seconds`` (e, one evaluation), ``seconds_per_epoch`` (t + e / eval_every),
        ``core_hours`` (runs x epochs x seconds per epoch / 3600); ``df.attrs`` holds
        ``core_hours`` (the total), ``jobs`` and ``wall_hours`` (the total over ``jobs``
        workers, assuming they stay busy).

    Raises
    ------
    ValueError
        ``jobs`` or ``repeats`` is below 1, or an option is invalid.
    """
    import pandas as pd

    o = options or TableOptions()
    o.check()
    jobs = int_scalar("jobs", jobs, 1)
    repeats = int_scalar("repeats", repeats, 1)
    keys = list(dict.fromkeys(r[4] for r in o.rows() if r[4] is not None))
    runner = _Runner(train, test, o, cache_dir=None, executor="local", jobs=1, progress=False)
    data = runner.plan([], "").load()
    clock = _cpu_clock if runner.device == "cpu" else time.perf_counter
    bar = None
    if progress and keys:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(keys) * (1 + 2 * repeats), desc="timing epochs per run", unit="run")
    rows = []
    for k in keys:
        # a warm-up epoch (compiles the kernels), then T1 (1 epoch, 1 evaluation) and T2 (2 epochs,
        # 1 evaluation) interleaved, strictly in this order
        timed: dict[int, list[float]] = {1: [], 2: []}
        for n, e in enumerate([1] + [1, 2] * repeats):
            start = clock()
            _job(data, runner.task(k, 0, o.protocol, epochs=e, eval_every=e))
            seconds = clock() - start
            if n:
                timed[e].append(seconds)
            if bar is not None:
                bar.update()
        t1, t2 = min(timed[1]), min(timed[2])
        train_s, eval_s = max(t2 - t1, 0.0), max(2.0 * t1 - t2, 0.0)
        rows.append(
            dict(
                run=str(k),
                runs=o.seeds,
                epochs=o.epochs or default_epochs(k),
                train_seconds=train_s,
                eval_seconds=eval_s,
                seconds_per_epoch=train_s + eval_s / o.eval_every,
            )
        )
    if bar is not None:
        bar.close()
    df = pd.DataFrame(rows)
    if len(df):
        df["core_hours"] = df.runs * df.epochs * df.seconds_per_epoch / 3600
    total = float(df.core_hours.sum()) if len(df) else 0.0
    df.attrs.update(core_hours=total, jobs=jobs, wall_hours=total / jobs)
    return df


def _apply_quick(args: argparse.Namespace) -> None:
    """``--quick``: 1 seed, 2 epochs, a ``_quick`` output folder, and unless ``--tables`` / ``--methods`` say otherwise
    Table 4.2's RNS and BNS rows (Table 5.2's BPR and DPL on a data set without Table 4.2)."""
    if args.tables is None:
        first = TABLES_BY_DATASET[args.dataset][0]
        args.tables = [first]
        if not args.methods:
            args.methods = ["RNS", "BNS"] if first == "4.2" else ["BPR", "DPL"]
    args.seeds = 1
    if args.epochs is None:
        args.epochs = 2
    if args.out == str(default_output("thesis_tables")):
        args.out = str(default_output("thesis_tables", True))


def _settings_note(args: argparse.Namespace, quick: bool) -> str:
    """What differs from the thesis's protocol, said beside the verdicts and on the figure ("" when nothing does)."""
    parts = ["QUICK smoke run: not a result"] if quick else []
    if args.epochs is not None:
        parts.append(
            f"epochs overridden to {args.epochs} (thesis: 100 SGD / 200 mini-batch MF / 100 LightGCN)"
        )
    if args.seeds < 2:
        parts.append("1 seed: no interval")
    if getattr(args, "finished_only", False):
        parts.append(
            f"finished runs only (--finished-only): each row over the seeds it has of {args.seeds}"
        )
    if getattr(args, "device", "cpu") != "cpu":
        parts.append(
            f"mini-batch runs on --device {args.device} (float32 kernels: not bit-identical to the CPU's)"
        )
    if getattr(args, "lightgcn_propagation", "full") != "full" and "lightgcn" in getattr(
        args, "models", ["mf"]
    ):
        parts.append(
            "LightGCN propagated over each step's rows only (--lightgcn-propagation batch: the same model to "
            "float32 rounding)"
        )
    return "; ".join(parts)


def _check_args(args: argparse.Namespace) -> tuple[TableOptions, str]:
    """Every option checked before any output or progress bar (CommandError: one clear line); the options and the
    data's label."""
    allowed = TABLES_BY_DATASET[args.dataset]
    if args.tables is None:
        args.tables = list(allowed)
    outside = [t for t in args.tables if t not in allowed]
    if outside:
        raise CommandError(
            f"--tables: the thesis prints only Tables {' '.join(allowed)} for {args.dataset}, "
            f"got {' '.join(outside)}"
        )
    if args.methods:
        valid = method_names(args.tables)
        unknown = [m for m in args.methods if m.lower() not in {v.lower() for v in valid}]
        if unknown:
            raise CommandError(
                f"--methods: unknown for tables {' '.join(args.tables)}: {' '.join(unknown)}; valid: {' '.join(valid)}"
            )
    try:
        _common.resolve_device(getattr(args, "device", "cpu"), "--device")
    except ValueError as e:
        raise CommandError(str(e)) from None
    if getattr(args, "tune_only", False) and not getattr(args, "tune", []):
        raise CommandError("--tune-only: give the searches to run with --tune")
    try:
        tune_stages = parse_tune_grid(getattr(args, "tune_grid", []))
    except ValueError as e:
        raise CommandError(f"--tune-grid: {e}") from None
    if args.data is not None:
        if args.train is not None or args.test is not None:
            raise CommandError("give either --data DIR or --train FILE --test FILE, not both")
        label = f"{args.dataset} from {args.data} (split seed {args.split_seed})"
    elif args.train is None or args.test is None:
        raise CommandError("give --train FILE --test FILE, or --data DIR (with --dataset)")
    else:
        input_file(args.train, "--train")
        input_file(args.test, "--test")
        label = f"{args.train} / {args.test}"
    o = TableOptions(
        tables=args.tables,
        methods=args.methods,
        seeds=args.seeds,
        epochs=args.epochs,
        protocol=args.protocol,
        valid_fraction=args.valid_fraction,
        bns_sizes=args.bns_sizes,
        eval_every=args.eval_every,
        format=args.format,
        bns_variants=args.bns_variants,
        srns_variants=args.srns_variants,
        models=getattr(args, "models", ["mf"]),
        lightgcn_variants=getattr(args, "lightgcn_variants", []),
        bns2_warm=getattr(args, "bns2_warm", [20]),
        user_file=getattr(args, "user_file", None),
        user_id_offset=getattr(args, "user_id_offset", 0),
        tune=getattr(args, "tune", []),
        tune_variants=getattr(args, "tune_variants", list(TUNE_VARIANTS)),
        tune_stages=tune_stages,
        tune_seed=getattr(args, "tune_seed", 0),
        tune_only=getattr(args, "tune_only", False),
        dataset=getattr(args, "dataset", "ml-100k"),
        bpr_variants=getattr(args, "bpr_variants", []),
        tau_variants=getattr(args, "tau_variants", []),
        device=getattr(args, "device", "cpu"),
        lightgcn_propagation=getattr(args, "lightgcn_propagation", "full"),
        checkpoints=getattr(args, "checkpoints", False),
        finished_only=getattr(args, "finished_only", False),
    )
    return o, label


def _prepare_split(args: argparse.Namespace, out: Path) -> tuple[str, str]:
    """``--data``: the split of :func:`negtheory.recsys.datasets.thesis_split`, written to
    ``OUT/splits/<dataset>_seed<S>_{train,test}.csv`` (file names that keep the runs of each data set and split seed
    apart in ``OUT/runs``)."""
    from ..recsys.datasets import thesis_split, write_split

    try:
        data = thesis_split(args.dataset, args.data, args.split_seed)
    except ValueError as e:
        raise CommandError(f"--data: {e}") from None
    folder = out / "splits"
    paths = []
    for f in write_split(data, folder):
        target = folder / f"{args.dataset}_seed{args.split_seed}_{f.name}"
        f.replace(target)
        paths.append(str(target))
    return paths[0], paths[1]


def _print_estimate(df: pd.DataFrame) -> None:
    lines = [
        "| run | runs | epochs | s / epoch (train) | s / evaluation | s / epoch (with evaluations) | core-hours |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.run} | {r.runs} | {r.epochs} | {r.train_seconds:.3f} | {r.eval_seconds:.3f} | {r.seconds_per_epoch:.3f} | "
        f"{r.core_hours:.3f} |"
        for r in df.itertuples()
    ]
    a = df.attrs
    lines += [
        "",
        f"total: {int(df.runs.sum()) if len(df) else 0} runs, {a['core_hours']:.2f} core-hours; "
        f"over {a['jobs']} workers: {a['wall_hours']:.2f} h (validation searches not included)",
    ]
    print("\n".join(lines))


def run(args: argparse.Namespace) -> int:
    """``negtheory reproduce thesis-tables``: the plan of the options through the engine, then the report.

    Parameters
    ----------
    args : argparse.Namespace
        The data (``--train`` / ``--test`` or ``--data``), the rows (``--tables``, ``--methods``, ...), where they run
        and ``--estimate``: :func:`add_arguments`.

    Returns
    -------
    int
        0 after the report (or the estimate) is written; a bad option raises CommandError.
    """
    quick = bool(getattr(args, "quick", False))
    if quick:
        _apply_quick(args)
    o, label = _check_args(args)
    if args.data is None:
        from ..recsys import load_split

        split = load_split(
            args.train, args.test, format=args.format
        )  # a malformed file fails here, before any folder
        if o.user_file is not None:
            from ..recsys import read_user_occupations

            input_file(o.user_file, "--user-file")
            try:
                read_user_occupations(o.user_file, split.user_ids, o.user_id_offset)
            except ValueError as e:
                raise CommandError(f"--user-file: {e} (--user-id-offset)") from None
    out = output_dir(args.out, "--out")
    out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK):
        raise ValueError(f"--out {out} is not writable")
    train, test = (args.train, args.test) if args.data is None else _prepare_split(args, out)
    if args.data is not None:
        o = dataclasses.replace(o, format="auto")  # the CSV files written by write_split
    if getattr(args, "estimate", False):
        _print_estimate(estimate(train, test, o, jobs=args.jobs, progress=not args.quiet))
        return 0
    executor, close = connect_executor(args)
    t0 = time.perf_counter()
    tuning: list[dict[str, Any]] = []
    try:
        rows, runs, histories = run_tables(
            train,
            test,
            o,
            jobs=args.jobs,
            progress=not args.quiet,
            cache_dir=out / "runs",
            executor=executor,
            tuning_records=tuning,
        )
    finally:
        close()
    meta = dict(
        title=label,
        dataset=args.dataset,
        protocol=o.protocol,
        models=o.models,
        seeds=o.seeds,
        epochs=o.epochs,
        eval_every=o.eval_every,
        seconds=time.perf_counter() - t0,
        note=_settings_note(args, quick),
        valid_fraction=o.valid_fraction,
        tune_seed=o.tune_seed,
    )
    written = write_report(out, (rows, runs, histories, tuning), meta)
    print(
        f"wrote {', '.join(str(out / n) for n in written)} (finished runs kept in {out / 'runs'})"
    )
    return 0
