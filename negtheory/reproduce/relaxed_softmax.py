r"""``negtheory reproduce relaxed-softmax``: the synthetic experiments of Tanielian & Vasile (Relaxed Softmax, §2.3.2, §3.1-3.2.1).

Four experiments on the discretised mixture of Gaussians of §2.3.2 / §3.1, trained with
:func:`negtheory.bridge.relaxed_softmax_training.train_density` (model G(i, j) = ⟨u_i, v_j⟩,
embedding size 32, Adam lr 0.01, N(0, 0.1²) initialisation — the paper states none of these).
The negatives of the RS loss are drawn from the paper's Boltzmann distribution (eq. 8) of
energy G, degeneracy :math:`D_i` and temperature T,

.. math::
    Q_i(j) = B_{(G, D_i, T)}(j) = \frac{D_i(j)\, \exp(G(i, j) / T)}{\sum_{j'} D_i(j')\, \exp(G(i, j') / T)}:

* **Fig. 2** — KL(P ‖ Pop(I) × g) against the Boltzmann temperature T (log grid) for the
  degeneracies D = 1/P_i, U(J) and Pop(J), RS loss with 5 negatives; CSV
  ``relaxed_softmax_temperature.csv`` (``degeneracy, temperature, seed, kl_joint``);
* **Fig. 3 / 4** — MLE against RS with B(G, 1/P_i, T = 0.75) and 5 negatives, against the batch
  size (fixed number of epochs) and the training-set size (fixed number of steps); train
  KL(P̂_i ‖ g_i) and test KL(P_i ‖ g_i) averaged over the training contexts; CSV
  ``relaxed_softmax_regularisation.csv``;
* **Fig. 5** — the six methods of §3.2 (MLE, SS with 50 popularity negatives, RS with US, PS,
  UBS, PBS and 5 negatives) on mixtures of 10, 50 and 90 components; CSV
  ``relaxed_softmax_methods.csv`` (``n_components, method, seed, kl, mpr, prec_at_k``; ``kl`` is
  the joint KL of Fig. 2). UBS / PBS use the temperature of the paper's grid
  [0.5, 1, 3, 6, 12, 36] with the lowest validation NLL on held-out pairs (mean over seeds;
  never the KL, MPR or Prec@k); rows ``ubs@T=5`` and ``pbs@T=7.5`` use the paper's T* of Fig. 5.

* **T* ablation** (``--t-star-ablation``, :func:`run_t_star_ablation`) — Fig. 2's sweep one factor
  at a time (card(I) = card(J) at a fixed number of pairs per cell, embedding size, RS negatives);
  CSV ``relaxed_softmax_tstar_ablation.csv`` (``factor, value, degeneracy, temperature, seed,
  kl_joint``), the argmin T* per level (:func:`t_star_ablation_summary`) and a figure.

A markdown summary beside the paper's statements (means and 95 % t-intervals over seeds, paired
differences) goes to ``relaxed_softmax_summary.md``; figures ``relaxed_softmax_*.png``.

Each stack of runs (one loss, degeneracy and size; its seeds x temperatures) is one
:class:`~negtheory.reproduce.engine.RunSpec` executed by the reproduce engine: ``--jobs N`` runs N local processes,
``--executor dask|ADDRESS`` a Dask cluster; a stack is seeded by its seeds and ``--task-seed`` alone, so the CSVs are
the same wherever it runs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import TYPE_CHECKING

from .._cli_common import (
    OUTPUT_ROOT,
    CommandError,
    committed_dir,
    default_output,
    integer,
    output_dir,
    real,
)
from ._common import add_executor_arguments, connect_executor
from .relaxed_softmax_report import (  # noqa: F401  (re-exported: the names of this module before issue 32)
    ABLATION_FACTORS,
    COMPONENTS,
    DEG_LABEL,
    DEGENERACIES,
    FACTOR_LABEL,
    METHOD_ORDER,
    RS_TEMPERATURE,
    mean_ci,
    paired,
    plot_methods,
    plot_regularisation,
    plot_t_star_ablation,
    plot_temperature,
    summarize,
    t_star_ablation_markdown,
    t_star_ablation_summary,
    temperature_summary,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd


HELP = "Relaxed Softmax & Boltzmann sampling (Tanielian & Vasile): Fig. 2 temperature sweep, Fig. 3/4 MLE vs RS, Fig. 5 six methods"

#: temperature grid of the T* ablation: brackets the paper's T* = 0.75 (and the 0.1-0.2 found at 100 items) finely
TSTAR_GRID = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 3.0)

#: sizes of the three presets (the paper: card(I) = card(J) = 1000, 300 000 pairs, batch 512)
PRESETS: dict[str, dict[str, Any]] = {
    "quick": dict(
        n_items=16,
        seeds=2,
        steps=25,
        fig2_pairs=300,
        fig2_batch=64,
        temperatures=(0.1, 1.0, 10.0, 100.0),
        fig3_pairs=600,
        fig3_batches=(64, 256),
        fig3_epochs=3,
        fig4_batch=200,
        fig4_pairs=(100, 300),
        fig5_pairs=300,
        fig5_batch=64,
        fig5_temperatures=(0.5, 6.0),
        n_val=200,
        prec_k=2,
        ablation_items=(8, 16),
        ablation_dims=(8, 32),
        ablation_negatives=(1, 5),
        ablation_temperatures=(0.1, 1.0, 10.0),
    ),
    "default": dict(
        n_items=100,
        seeds=5,
        steps=500,
        fig2_pairs=3_000,
        fig2_batch=256,
        temperatures=(0.01, 0.05, 0.1, 0.2, 0.5, 0.75, 1.0, 3.0, 10.0, 100.0),
        fig3_pairs=10_000,
        fig3_batches=(64, 256, 1024, 4096),
        fig3_epochs=20,
        fig4_batch=2_000,
        fig4_pairs=(300, 1_000, 3_000, 10_000, 30_000),
        fig5_pairs=3_000,
        fig5_batch=256,
        fig5_temperatures=(0.5, 1.0, 3.0, 6.0, 12.0, 36.0),
        n_val=1_000,
        prec_k=10,
        ablation_items=(100, 300, 1_000),
        ablation_dims=(8, 32, 128),
        ablation_negatives=(1, 5, 20),
        ablation_temperatures=TSTAR_GRID,
    ),
}
# the paper's sizes; the Fig. 5 temperature grid, Prec@k and the ablation's levels as the default preset
PRESETS["full"] = dict(
    PRESETS["default"],
    n_items=1_000,
    seeds=10,
    steps=20_000,
    fig2_pairs=300_000,
    fig2_batch=512,
    temperatures=(0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 3.0, 10.0, 30.0, 100.0),
    fig3_pairs=1_000_000,
    fig3_batches=(128, 512, 2_048, 8_192),
    fig3_epochs=10,
    fig4_pairs=(10_000, 30_000, 100_000, 300_000, 1_000_000),
    fig5_pairs=300_000,
    fig5_batch=512,
    n_val=30_000,
)

EXPERIMENTS = ("fig2", "fig3-4", "fig5")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce relaxed-softmax`` (no torch import here: ``--help`` stays fast).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser; ``--quick`` / ``--full``, ``--seeds``, ``--out``, ``--figures``,
        ``--device``, ``--task-seed``, ``--experiments``, ``--steps``, ``--temperatures``,
        ``--degeneracies``, ``--t-star-ablation`` with ``--ablation-factors/-items/-dims/-negatives``,
        ``--quiet`` and ``--no-progress`` are added to it in place.
    """
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        action="store_true",
        help="tiny grids (16 x 16 items, 25 steps): a smoke test (20 s on 2 free cores, a minute on busy ones; figures marked QUICK)",
    )
    size.add_argument(
        "--full",
        action="store_true",
        help="the paper's sizes (1000 x 1000 items, 300 000 pairs; hours, GPU advised)",
    )
    parser.add_argument(
        "--seeds",
        type=integer(1),
        default=None,
        help="seeds per configuration (default: 2 quick, 5 default, 10 full)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help=f"folder for the CSVs and the markdown summary, created if missing (default: {OUTPUT_ROOT}/relaxed_softmax, "
        "relaxed_softmax_quick or relaxed_softmax_full by size)",
    )
    parser.add_argument(
        "--figures", default=None, help="folder for the PNG figures (default: the --out folder)"
    )
    parser.add_argument(
        "--update-committed",
        action="store_true",
        help="write the committed results of the source checkout (notebooks/data/relaxed_softmax/, figures/)",
    )
    parser.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "cuda"),
        help="torch device (auto: CUDA when present)",
    )
    parser.add_argument(
        "--task-seed", type=integer(0), default=0, help="seed of the mixture components"
    )
    parser.add_argument(
        "--experiments",
        nargs="+",
        choices=EXPERIMENTS,
        default=None,
        help="run only these experiments (default: all three; e.g. --full --experiments fig2 for the paper-size Fig. 2)",
    )
    parser.add_argument(
        "--steps",
        type=integer(1),
        default=None,
        help="optimiser steps of Fig. 2, 4 and 5 (default: the preset's)",
    )
    parser.add_argument(
        "--temperatures",
        nargs="+",
        type=real(0.0, lo_open=True),
        default=None,
        help="temperature grid of Fig. 2 and of --t-star-ablation (default: the preset's)",
    )
    parser.add_argument(
        "--degeneracies",
        nargs="+",
        choices=DEGENERACIES,
        default=None,
        help="degeneracies of Fig. 2 and of --t-star-ablation (default: all three)",
    )
    parser.add_argument(
        "--t-star-ablation",
        action="store_true",
        help="instead of the figures: does T* move with card(I) = card(J), the embedding size or the number of negatives? "
        "(relaxed_softmax_tstar_ablation.csv / .md / .png)",
    )
    parser.add_argument(
        "--ablation-factors",
        nargs="+",
        choices=ABLATION_FACTORS,
        default=None,
        help="factors of --t-star-ablation (default: all three)",
    )
    for opt, key, what in (
        ("--ablation-items", "ablation_items", "card(I) = card(J)"),
        ("--ablation-dims", "ablation_dims", "embedding sizes"),
        ("--ablation-negatives", "ablation_negatives", "RS negatives per pair"),
    ):
        parser.add_argument(
            opt,
            nargs="+",
            type=integer(1),
            default=None,
            dest=key,
            help=f"levels of {what} in --t-star-ablation (default: the preset's)",
        )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    add_executor_arguments(parser)
    parser.add_argument(
        "--no-progress", action="store_true", dest="no_progress", help=argparse.SUPPRESS
    )  # deprecated alias


# --------------------------------------------------------------------------------------------
# experiments
# --------------------------------------------------------------------------------------------
def _density_job(_shared, task: tuple) -> list[dict[str, Any]]:
    """Worker: one stack of runs (seeds x temperatures) of :func:`~negtheory.bridge.relaxed_softmax_training.train_density`.

    ``task`` is ``(n_components, n_items, task_seed, loss, keywords, config, progress, desc)``: the mixture is
    rebuilt here from its seed (the same task in every worker). Top level, so that workers import it.
    """
    from ..bridge.relaxed_softmax_training import DensityConfig, train_density
    from ..relaxed_softmax import MixtureOfGaussiansTask

    n_components, n_items, task_seed, loss, kw, config, progress, desc = task
    mixture = MixtureOfGaussiansTask(
        n_components, n_context=n_items, n_target=n_items, rng=task_seed
    )
    return train_density(
        mixture, loss, config=DensityConfig(**config), progress=progress, desc=desc, **kw
    )


def _stack(
    n_components: int,
    n_items: int,
    task_seed: int,
    loss: str,
    kw: dict,
    config: dict,
    progress: bool,
    desc: str,
):
    """The task of one stack of :func:`_density_job`."""
    return (n_components, n_items, task_seed, loss, kw, config, progress, desc)


def _inner(progress: bool, executor: Any, jobs: int) -> bool:
    """Progress bars inside the stacks only when they run one after the other in this process."""
    return (
        bool(progress)
        and (executor is None or (isinstance(executor, str) and executor == "local"))
        and jobs == 1
    )


def _run_stacks(
    stacks: Sequence[tuple], progress: bool, desc: str, executor: Any, jobs: int
) -> list[list[dict[str, Any]]]:
    """Every stack through the reproduce engine (:func:`negtheory.reproduce.engine.execute`), in order.

    Each stack is seeded by its seeds and the mixture's seed alone, so the results are the same wherever they run
    (``executor``, ``jobs``: :func:`negtheory.reproduce._common.run_jobs`).
    """
    from .engine import Plan, RunSpec, execute

    specs = tuple(RunSpec(key=(t[3], t[-1]), replicate=0, task=t) for t in stacks)
    return execute(
        Plan(specs, _density_job, lambda: None, desc=desc),
        executor=executor,
        jobs=jobs,
        progress=progress,
    )


def run_temperature(
    p: dict[str, Any],
    seeds: Sequence[int],
    task_seed: int,
    device: str,
    progress: bool,
    degeneracies: Sequence[str] = DEGENERACIES,
    *,
    executor: Any = "local",
    jobs: int = 1,
) -> pd.DataFrame:
    """Fig. 2: RS + Boltzmann negatives, KL of the joint against T for the three degeneracies.

    Parameters
    ----------
    p : dict
        The preset's sizes (an entry of :data:`PRESETS`: ``n_items``, ``steps``, ``fig2_pairs``, ``fig2_batch``, ``temperatures``, ``prec_k``).
    seeds : sequence of int
        The training seeds (one run per seed and configuration).
    task_seed : int
        Seed of the mixture components (the same task for every seed).
    device : {"auto", "cpu", "cuda"}
        Torch device of the training.
    progress : bool
        Show tqdm progress bars.
    degeneracies : sequence of str
        Which of ``inverse``, ``uniform``, ``popularity`` to run (default: all three).
    executor, jobs : str or Client, int
        Where the stacks of runs go (:func:`negtheory.reproduce.engine.execute`; default: here, one after the other).

    Returns
    -------
    pandas.DataFrame
        One row per (degeneracy, temperature, seed): columns ``degeneracy, temperature, seed,
        kl_joint`` (KL(P ‖ Pop(I) × g)).
    """
    import pandas as pd

    bad = [d for d in degeneracies if d not in DEGENERACIES]
    if bad or not degeneracies:
        raise ValueError(
            f"degeneracies must be a non-empty subset of {DEGENERACIES}, got {list(degeneracies)!r}"
        )
    cfg = dict(batch_size=p["fig2_batch"], steps=p["steps"], prec_k=p["prec_k"], device=device)
    kw = dict(temperatures=p["temperatures"], seeds=seeds, n_pairs=p["fig2_pairs"], ranking=False)
    inner = _inner(progress, executor, jobs)
    stacks = [
        _stack(50, p["n_items"], task_seed, "rs", dict(kw, degeneracy=deg), cfg, inner, f"RS {deg}")
        for deg in degeneracies
    ]
    rows = []
    for deg, res in zip(
        degeneracies, _run_stacks(stacks, progress, "Fig. 2 (degeneracies)", executor, jobs)
    ):
        rows += [
            dict(
                degeneracy=deg, temperature=r["temperature"], seed=r["seed"], kl_joint=r["kl_joint"]
            )
            for r in res
        ]
    return pd.DataFrame(rows, columns=["degeneracy", "temperature", "seed", "kl_joint"])


def run_regularisation(
    p: dict[str, Any],
    seeds: Sequence[int],
    task_seed: int,
    device: str,
    progress: bool,
    *,
    executor: Any = "local",
    jobs: int = 1,
) -> pd.DataFrame:
    """Fig. 3 (batch size, fixed epochs) and Fig. 4 (training-set size, fixed steps): MLE vs RS(1/P, T = 0.75).

    Parameters
    ----------
    p : dict
        The preset's sizes (an entry of :data:`PRESETS`: ``n_items``, ``steps``, ``fig3_pairs``, ``fig3_batches``, ``fig3_epochs``, ``fig4_batch``, ``fig4_pairs``, ``prec_k``).
    seeds, task_seed, device, progress : sequence of int, int, str, bool
        The training seeds, the mixture's seed, the torch device, progress bars (as in :func:`run_temperature`).
    executor, jobs : str or Client, int
        Where the stacks of runs go (:func:`negtheory.reproduce.engine.execute`; default: here, one after the other).

    Returns
    -------
    pandas.DataFrame
        One row per (experiment, size, method, seed): columns ``experiment`` (``batch_size`` or
        ``train_size``), ``batch_size``, ``n_pairs``, ``steps``, ``method`` (``mle`` or ``rs``),
        ``seed``, ``kl_train`` (KL(P̂_i ‖ g_i)), ``kl_test`` (KL(P_i ‖ g_i)), ``kl_joint``.
    """
    import pandas as pd

    configs = [
        (
            "batch_size",
            b,
            p["fig3_pairs"],
            max(1, math.ceil(p["fig3_epochs"] * p["fig3_pairs"] / b)),
        )
        for b in p["fig3_batches"]
    ]
    configs += [("train_size", min(p["fig4_batch"], n), n, p["steps"]) for n in p["fig4_pairs"]]
    methods: tuple[tuple[str, str, dict[str, Any]], ...] = (
        ("mle", "mle", {}),
        ("rs", "rs", dict(degeneracy="inverse", temperatures=(RS_TEMPERATURE,))),
    )
    inner = _inner(progress, executor, jobs)
    stacks = [
        _stack(
            50,
            p["n_items"],
            task_seed,
            loss,
            dict(kw, seeds=seeds, n_pairs=n, ranking=False),
            dict(batch_size=b, steps=steps, prec_k=p["prec_k"], device=device),
            inner,
            f"{method} {exp}={b if exp == 'batch_size' else n}",
        )
        for exp, b, n, steps in configs
        for method, loss, kw in methods
    ]
    results = iter(_run_stacks(stacks, progress, "Fig. 3/4 (MLE vs RS)", executor, jobs))
    rows = []
    for exp, b, n, steps in configs:
        for method, _, _ in methods:
            rows += [
                dict(
                    experiment=exp,
                    batch_size=b,
                    n_pairs=n,
                    steps=steps,
                    method=method,
                    seed=r["seed"],
                    kl_train=r["kl_emp"],
                    kl_test=r["kl_true"],
                    kl_joint=r["kl_joint"],
                )
                for r in next(results)
            ]
    return pd.DataFrame(rows)


def _method_row(c: int, method: str, r: dict[str, Any]) -> dict[str, Any]:
    return dict(
        n_components=c,
        method=method,
        seed=r["seed"],
        kl=r["kl_joint"],
        mpr=r["mpr"],
        prec_at_k=r["prec_at_k"],
    )


def run_methods(
    p: dict[str, Any],
    seeds: Sequence[int],
    task_seed: int,
    device: str,
    progress: bool,
    *,
    executor: Any = "local",
    jobs: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 5: the six methods of §3.2 on mixtures of 10, 50 and 90 components.

    Parameters
    ----------
    p : dict
        The preset's sizes (an entry of :data:`PRESETS`: ``n_items``, ``steps``, ``fig5_pairs``, ``fig5_batch``, ``fig5_temperatures``, ``n_val``, ``prec_k``).
    seeds, task_seed, device, progress : sequence of int, int, str, bool
        The training seeds, the mixture's seed, the torch device, progress bars (as in :func:`run_temperature`).
    executor, jobs : str or Client, int
        Where the stacks of runs go (:func:`negtheory.reproduce.engine.execute`; default: here, one after the other).

    Returns
    -------
    methods : pandas.DataFrame
        One row per (n_components, method, seed): columns ``n_components, method, seed, kl,
        mpr, prec_at_k``; UBS / PBS at the temperature selected on validation NLL, plus the rows
        ``ubs@T=5`` and ``pbs@T=7.5`` at the paper's T*.
    selection : pandas.DataFrame
        The UBS / PBS temperature selection: ``n_components, method, temperature, val_nll``
        (mean over seeds) and ``selected`` (bool).
    """
    import pandas as pd

    from ..bridge.relaxed_softmax_training import PAPER_TEMPERATURES, method_spec

    cfg = dict(batch_size=p["fig5_batch"], steps=p["steps"], prec_k=p["prec_k"], device=device)
    configs = [(c, m) for c in COMPONENTS for m in ("mle", "ss", "us", "ps", "ubs", "pbs")]
    inner = _inner(progress, executor, jobs)
    stacks = []
    for c, method in configs:
        loss, deg, t = method_spec(method)
        grid = (
            (*p["fig5_temperatures"], PAPER_TEMPERATURES[method])
            if method in ("ubs", "pbs")
            else (math.inf if t is None else t,)
        )
        kw = dict(
            seeds=seeds,
            n_pairs=p["fig5_pairs"],
            n_val=p["n_val"],
            degeneracy=deg,
            temperatures=tuple(grid),
        )
        stacks.append(_stack(c, p["n_items"], task_seed, loss, kw, cfg, inner, f"{method} c={c}"))
    rows, sel = [], []
    for (c, method), res in zip(
        configs, _run_stacks(stacks, progress, "Fig. 5 (methods x datasets)", executor, jobs)
    ):
        if method not in ("ubs", "pbs"):
            rows += [_method_row(c, method, r) for r in res]
            continue
        df = pd.DataFrame(res)
        val = (
            df[df.temperature.isin(p["fig5_temperatures"])].groupby("temperature")["val_nll"].mean()
        )
        t_sel = float(val.idxmin())
        sel += [
            dict(
                n_components=c,
                method=method,
                temperature=float(t),
                val_nll=float(v),
                selected=float(t) == t_sel,
            )
            for t, v in val.items()
        ]
        for r in res:
            if r["temperature"] == t_sel:
                rows.append(_method_row(c, method, r))
            if r["temperature"] == PAPER_TEMPERATURES[method]:
                rows.append(_method_row(c, f"{method}@T={PAPER_TEMPERATURES[method]:g}", r))
    return (
        pd.DataFrame(rows, columns=["n_components", "method", "seed", "kl", "mpr", "prec_at_k"]),
        pd.DataFrame(sel),
    )


# --------------------------------------------------------------------------------------------
# T* ablation: does the optimal temperature move with the catalogue, the embedding or n?
# --------------------------------------------------------------------------------------------
_ABLATION_BASE_KEYS = ("n_items", "n_pairs", "batch_size", "steps", "dim", "n_negatives")


def ablation_base(p: dict[str, Any]) -> dict[str, int]:
    """The default point of :func:`run_t_star_ablation` for a preset: its Fig. 2 sizes, d = 32, n = 5.

    Parameters
    ----------
    p : dict
        An entry of :data:`PRESETS` (``n_items``, ``fig2_pairs``, ``fig2_batch``, ``steps``).

    Returns
    -------
    dict
        ``n_items``, ``n_pairs``, ``batch_size``, ``steps``, ``dim`` (32) and ``n_negatives`` (5,
        the paper's).

    Examples
    --------
    >>> from negtheory.reproduce.relaxed_softmax import PRESETS, ablation_base
    >>> ablation_base(PRESETS["default"])
    {'n_items': 100, 'n_pairs': 3000, 'batch_size': 256, 'steps': 500, 'dim': 32, 'n_negatives': 5}
    """
    return dict(
        n_items=int(p["n_items"]),
        n_pairs=int(p["fig2_pairs"]),
        batch_size=int(p["fig2_batch"]),
        steps=int(p["steps"]),
        dim=32,
        n_negatives=5,
    )


def ablation_config(base: dict[str, int], factor: str, value: int) -> dict[str, int]:
    r"""The training sizes of one ablation level: ``base`` with ``factor`` set to ``value``.

    Changing the catalogue keeps the training pairs per cell of I x J fixed (the paper's 300 000
    pairs on 1000 x 1000 cells, 0.3 per cell):

    .. math:: n_\mathrm{pairs}(c) = \mathrm{round}\big(n_\mathrm{pairs}^{\mathrm{base}}\, (c / c_\mathrm{base})^2\big).

    Parameters
    ----------
    base : dict
        The default point (:func:`ablation_base`).
    factor : {'n_items', 'dim', 'n_negatives'}
        The factor changed.
    value : int
        Its level, >= 1.

    Returns
    -------
    dict
        A copy of ``base`` with ``factor`` (and, for ``n_items``, ``n_pairs``) replaced.

    Examples
    --------
    >>> from negtheory.reproduce.relaxed_softmax import PRESETS, ablation_base, ablation_config
    >>> ablation_config(ablation_base(PRESETS["default"]), "n_items", 1000)["n_pairs"]
    300000
    """
    from .._validation import int_scalar

    if factor not in ABLATION_FACTORS:
        raise ValueError(f"factor must be one of {ABLATION_FACTORS}, got {factor!r}")
    value = int_scalar(f"levels[{factor!r}]", value, 1)
    cfg = dict(base)
    cfg[factor] = value
    if factor == "n_items":
        cfg["n_pairs"] = max(1, round(base["n_pairs"] * (value / base["n_items"]) ** 2))
    return cfg


def run_t_star_ablation(
    levels: dict[str, Sequence[int]],
    base: dict[str, int],
    *,
    degeneracies: Sequence[str] = ("inverse",),
    temperatures: Sequence[float] = TSTAR_GRID,
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    task_seed: int = 0,
    n_components: int = 50,
    device: str = "auto",
    progress: bool = False,
    executor: Any = "local",
    jobs: int = 1,
) -> pd.DataFrame:
    r"""Fig. 2's temperature sweep, one factor at a time (card(I), embedding size d, negatives n).

    For every factor level (the others at ``base``) and degeneracy, the RS loss (eq. 5) with n
    negatives from the Boltzmann law :math:`B_{(G, D_i, T)}` (eq. 8) is trained for every
    (temperature, seed) and scored with Fig. 2's

    .. math:: \mathrm{KL}(P \,\|\, \mathrm{Pop}(I) \times g) = \sum_i \mathrm{Pop}(i)\, \mathrm{KL}(P_i \,\|\, g_i).

    The catalogue factor scales the training pairs with the number of cells
    (:func:`ablation_config`); the base configuration is trained once and its rows are repeated
    under every factor. The optimum is read off with :func:`t_star_ablation_summary`.

    Parameters
    ----------
    levels : dict
        Factor -> levels, the factors among :data:`ABLATION_FACTORS` (``n_items``: card(I) =
        card(J); ``dim``: embedding size; ``n_negatives``: RS negatives per pair), levels ints >= 1.
    base : dict
        The default point, keys ``n_items, n_pairs, batch_size, steps, dim, n_negatives``
        (:func:`ablation_base`).
    degeneracies : sequence of str
        Among ``inverse`` (D = 1/P_i), ``uniform``, ``popularity`` (default: ``inverse``, the
        degeneracy of the paper's T* = 0.75).
    temperatures : sequence of float
        The grid of T (finite, > 0; default :data:`TSTAR_GRID`, 0.02 to 3).
    seeds : sequence of int
        Training seeds (each fixes the pairs and the initialisation; default 0-4).
    task_seed : int
        Seed of the mixture components (the same mixture, discretised on each catalogue).
    n_components : int
        Components of the mixture (default 50, as in Fig. 2).
    device : {"auto", "cpu", "cuda"}
        Torch device.
    progress : bool
        tqdm bars over the configurations and the steps.
    executor, jobs : str or Client, int
        Where the stacks of runs go (:func:`negtheory.reproduce.engine.execute`; default: here, one after the other).

    Returns
    -------
    pandas.DataFrame
        Columns ``factor, value, degeneracy, temperature, seed, kl_joint``, one row per
        (factor, level, degeneracy, temperature, seed).

    Examples
    --------
    >>> from negtheory.reproduce.relaxed_softmax import run_t_star_ablation
    >>> base = dict(n_items=8, n_pairs=100, batch_size=32, steps=5, dim=4, n_negatives=2)
    >>> df = run_t_star_ablation({"dim": [2, 4]}, base, temperatures=(0.5, 2.0), seeds=(0,), device="cpu")
    >>> df.shape, list(df.columns)
    ((4, 6), ['factor', 'value', 'degeneracy', 'temperature', 'seed', 'kl_joint'])
    """
    import pandas as pd

    from .._validation import int_scalar, real_scalar

    if not isinstance(levels, dict) or not levels:
        raise ValueError("levels must be a non-empty dict factor -> levels")
    for factor, vals in levels.items():
        if factor not in ABLATION_FACTORS:
            raise ValueError(f"levels: factor must be one of {ABLATION_FACTORS}, got {factor!r}")
        if len(vals) == 0:
            raise ValueError(f"levels[{factor!r}] must not be empty")
    if not isinstance(base, dict) or set(base) != set(_ABLATION_BASE_KEYS):
        raise ValueError(
            f"base must be a dict with keys {_ABLATION_BASE_KEYS}, got {sorted(base) if isinstance(base, dict) else base!r}"
        )
    base = {k: int_scalar(f"base[{k!r}]", v, 1) for k, v in base.items()}
    degeneracies = tuple(degeneracies)
    if not degeneracies or any(d not in DEGENERACIES for d in degeneracies):
        raise ValueError(
            f"degeneracies must be a non-empty subset of {DEGENERACIES}, got {list(degeneracies)!r}"
        )
    temps = tuple(
        sorted(
            {
                real_scalar("temperatures", t, 0.0, math.inf, lo_open=True, hi_open=True)
                for t in temperatures
            }
        )
    )
    if not temps:
        raise ValueError("temperatures must not be empty")
    seeds = tuple(int_scalar("seeds", s, 0) for s in seeds)
    if not seeds:
        raise ValueError("seeds must not be empty")
    task_seed = int_scalar("task_seed", task_seed, 0)
    n_components = int_scalar("n_components", n_components, 1)

    configs = [(f, int(v), ablation_config(base, f, v)) for f, vals in levels.items() for v in vals]
    inner = _inner(progress, executor, jobs)
    stacks: dict[
        tuple, tuple
    ] = {}  # one stack per distinct configuration (the base point recurs in every factor)
    for factor, value, cfg in configs:
        for deg in degeneracies:
            key = (deg, *(cfg[k] for k in _ABLATION_BASE_KEYS))
            if key not in stacks:
                kw = dict(
                    degeneracy=deg,
                    temperatures=temps,
                    seeds=seeds,
                    n_pairs=cfg["n_pairs"],
                    ranking=False,
                )
                dc = dict(
                    dim=cfg["dim"],
                    batch_size=cfg["batch_size"],
                    steps=cfg["steps"],
                    n_negatives=cfg["n_negatives"],
                    device=device,
                )
                stacks[key] = _stack(
                    n_components,
                    cfg["n_items"],
                    task_seed,
                    "rs",
                    kw,
                    dc,
                    inner,
                    f"{factor}={value} {deg}",
                )
    done = dict(
        zip(
            stacks,
            _run_stacks(
                list(stacks.values()), progress, "T* ablation (configurations)", executor, jobs
            ),
        )
    )
    rows = []
    for factor, value, cfg in configs:
        for deg in degeneracies:
            res = done[(deg,) + tuple(cfg[k] for k in _ABLATION_BASE_KEYS)]
            rows += [
                dict(
                    factor=factor,
                    value=value,
                    degeneracy=deg,
                    temperature=r["temperature"],
                    seed=r["seed"],
                    kl_joint=r["kl_joint"],
                )
                for r in res
            ]
    return pd.DataFrame(
        rows, columns=["factor", "value", "degeneracy", "temperature", "seed", "kl_joint"]
    )


def _run_ablation(p, preset, seeds, args, degeneracies, out, figs, progress, t0):
    base = ablation_base(p)
    levels = {
        f: tuple(getattr(args, key, None) or p[key])
        for f, key in (
            ("n_items", "ablation_items"),
            ("dim", "ablation_dims"),
            ("n_negatives", "ablation_negatives"),
        )
        if args.ablation_factors is None or f in args.ablation_factors
    }
    temps = p["ablation_temperatures"]
    executor, close = connect_executor(args)
    try:
        df = run_t_star_ablation(
            levels,
            base,
            degeneracies=degeneracies,
            temperatures=temps,
            seeds=seeds,
            task_seed=args.task_seed,
            device=args.device,
            progress=progress,
            executor=executor,
            jobs=args.jobs,
        )
    finally:
        close()
    df.to_csv(out / "relaxed_softmax_tstar_ablation.csv", index=False)
    summary = t_star_ablation_summary(df)
    text = t_star_ablation_markdown(summary, base, temps)
    runtime = time.time() - t0
    text += f"\nRuntime: {runtime:.0f} s ({len(seeds)} seeds).\n"
    fig = plot_t_star_ablation(df)
    if preset == "quick":
        from ..figures._canvas import mark_quick

        mark_quick(fig)
        head, rest = text.split("\n", 1)
        text = f"{head}\n\n**QUICK smoke run (tiny grids): not a result.**\n{rest}"
    fig.savefig(figs / "relaxed_softmax_tstar_ablation.png", dpi=120)
    (out / "relaxed_softmax_tstar_ablation.md").write_text(text)
    print(text)
    print(
        f"wrote {out / 'relaxed_softmax_tstar_ablation.csv'}, {out / 'relaxed_softmax_tstar_ablation.md'}, "
        f"{figs / 'relaxed_softmax_tstar_ablation.png'} ({runtime:.0f} s)"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    """``negtheory reproduce relaxed-softmax``: the experiments' stacks through the engine, then CSVs, summary, figures.

    Parameters
    ----------
    args : argparse.Namespace
        The preset (``--quick`` / ``--full``), ``--experiments``, ``--t-star-ablation`` and the others of
        :func:`add_arguments`.

    Returns
    -------
    int
        0 when every requested experiment's files are written (a bad combination of options raises).
    """
    t0 = time.time()
    preset = "quick" if args.quick else "full" if args.full else "default"
    p = PRESETS[preset]
    n_seeds = p["seeds"] if args.seeds is None else args.seeds
    if n_seeds < 1:
        raise ValueError(f"--seeds must be >= 1, got {n_seeds}")
    seeds = tuple(range(n_seeds))
    if args.no_progress:
        from .._deprecation import deprecated_message

        note = deprecated_message("--no-progress", "--quiet")
        print(f"negtheory reproduce relaxed-softmax: note: {note}", file=sys.stderr)
    progress = not (args.quiet or args.no_progress)
    if args.update_committed:
        if preset != "default":
            raise CommandError(
                f"--update-committed writes the committed default-size results: drop --{preset}"
            )
        if args.out is not None or args.figures is not None:
            raise CommandError(
                "--update-committed chooses the output folders: drop --out and --figures"
            )
        out_path, fig_path = (
            committed_dir("notebooks/data/relaxed_softmax"),
            committed_dir("figures"),
        )
    else:
        name = "relaxed_softmax" if preset == "default" else f"relaxed_softmax_{preset}"
        out_path = args.out if args.out is not None else default_output(name)
        fig_path = args.figures if args.figures is not None else out_path
    out = output_dir(out_path, "--out")  # checked before any work
    figs = output_dir(fig_path, "--figures")

    if args.steps is not None:
        p = dict(p, steps=args.steps)
    if args.temperatures is not None:
        p = dict(
            p,
            temperatures=tuple(sorted(set(args.temperatures))),
            ablation_temperatures=tuple(sorted(set(args.temperatures))),
        )
    degeneracies = tuple(args.degeneracies) if args.degeneracies is not None else None
    if args.t_star_ablation:
        if args.experiments is not None or args.update_committed:
            raise CommandError(
                "--t-star-ablation runs only the ablation: drop --experiments and --update-committed"
            )
        return _run_ablation(
            p, preset, seeds, args, degeneracies or ("inverse",), out, figs, progress, t0
        )
    experiments = set(args.experiments) if args.experiments is not None else set(EXPERIMENTS)
    if args.update_committed and (
        experiments != set(EXPERIMENTS) or args.steps or args.temperatures or degeneracies
    ):
        raise CommandError(
            "--update-committed writes the default run: drop --experiments, --steps, --temperatures, --degeneracies"
        )

    temp = reg = methods = selection = None
    written = []  # every file this run writes, for the final "wrote" line
    executor, close = connect_executor(args)
    try:
        if "fig2" in experiments:
            temp = run_temperature(
                p,
                seeds,
                args.task_seed,
                args.device,
                progress,
                degeneracies or DEGENERACIES,
                executor=executor,
                jobs=args.jobs,
            )
            temp.to_csv(out / "relaxed_softmax_temperature.csv", index=False)
            written.append(out / "relaxed_softmax_temperature.csv")
        if "fig5" in experiments:
            methods, selection = run_methods(
                p, seeds, args.task_seed, args.device, progress, executor=executor, jobs=args.jobs
            )
            methods.to_csv(out / "relaxed_softmax_methods.csv", index=False)
            selection.to_csv(out / "relaxed_softmax_ubs_pbs_temperature_selection.csv", index=False)
            written += [
                out / "relaxed_softmax_methods.csv",
                out / "relaxed_softmax_ubs_pbs_temperature_selection.csv",
            ]
        if "fig3-4" in experiments:
            reg = run_regularisation(
                p, seeds, args.task_seed, args.device, progress, executor=executor, jobs=args.jobs
            )
            reg.to_csv(out / "relaxed_softmax_regularisation.csv", index=False)
            written.append(out / "relaxed_softmax_regularisation.csv")
    finally:
        close()

    figures = []
    if temp is not None:
        figures.append(
            ("relaxed_softmax_fig2_temperature.png", lambda: plot_temperature(temp, methods))
        )
    if reg is not None:
        figures.append(
            ("relaxed_softmax_fig3_batch_size.png", lambda: plot_regularisation(reg, "batch_size"))
        )
        figures.append(
            ("relaxed_softmax_fig4_train_size.png", lambda: plot_regularisation(reg, "train_size"))
        )
    if methods is not None:
        figures.append(("relaxed_softmax_fig5_methods.png", lambda: plot_methods(methods)))
    for name, make in figures:
        fig = make()
        if preset == "quick":
            from ..figures._canvas import mark_quick

            mark_quick(fig)
        fig.savefig(figs / name, dpi=120)
        written.append(figs / name)
    runtime = time.time() - t0
    text = summarize(temp, reg, methods, selection, p, seeds, runtime_s=runtime)
    if preset == "quick":
        head, rest = text.split("\n", 1)
        text = f"{head}\n\n**QUICK smoke run (tiny grids): not a result.**\n{rest}"
    (out / "relaxed_softmax_summary.md").write_text(text)
    print(text)
    written.insert(0, out / "relaxed_softmax_summary.md")
    print(f"wrote {', '.join(str(w) for w in written)} ({preset}, {runtime:.0f} s)")
    return 0
