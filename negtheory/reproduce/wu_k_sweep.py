r"""``negtheory reproduce wu-k-sweep``: Wu et al.'s optimal negative ratio K* checked on a real split.

Wu, Wu & Huang (Rethinking InfoNCE) predict the best number K of negatives per positive for
InfoNCE from the label quality: the AUC of a model trained with K = 1 gives the mean
:math:`\mu_q` of the positives' scores (unit normal laws, negatives centred at 0) by their eq. 7,

.. math::
    \mathrm{AUC} = \int_{-\infty}^{\infty} \phi(x - \mu_q)\, \Phi(x)\, dx
    = \Phi\big(\mu_q / \sqrt{2}\big), \qquad \mu_q = \sqrt{2}\, \Phi^{-1}(\mathrm{AUC})

(the paper solves it numerically; it has this closed form), and then K* = argmax_K v̄(K), the
training effectiveness of their eq. 6 averaged over the training trajectory (§3, §4.3;
:func:`negtheory.infonce.optimal_k`).

Protocol: MF (d = 32) trained with InfoNCE on mini-batches (:func:`negtheory.training.fit`,
Adam lr 1e-3, weight decay 1e-5, batch 1024, t = 1), negatives drawn uniformly from the items the
user has not interacted with, for each K of the grid; 10 % of the training pairs are held out for
validation. Each run keeps the epoch of best validation NDCG@10; the observed optimum is the K of
best mean validation NDCG@10 (test NDCG@10 at the selected epochs is reported beside it). The
prediction uses the *validation* AUC of the K = 1 model at its selected epoch — each held-out pair
(u, i) against every item u has not interacted with — so no choice depends on the test split.

Each (K, seed) is one job seeded by its seed alone (``--jobs``, ``--executor local|dask|ADDRESS``):
``wu_k_sweep.csv`` is the same wherever the jobs run, but for its ``seconds`` column (wall time);
finished jobs are kept in ``OUT/runs/`` and reused by a rerun.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._cli_common import default_output, integer, real
from . import _common
from ._common import (
    DATA_FORMATS,
    add_executor_arguments,
    add_format_argument,
    add_output_arguments,
    check_paths,
    connect_executor,
    t_half_width,
)
from .engine import Plan, RunSpec, execute

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    import pandas as pd

    from .._typing import ArrayLike, BoolArray, InteractionSource

HELP = "Wu et al.'s K* (from the K = 1 validation AUC) against an InfoNCE K sweep on a user-supplied split"

__all__ = ["HELP", "add_arguments", "run", "validation_auc", "validation_auc_blocks", "sweep"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce wu-k-sweep`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser; ``--train``, ``--test``, ``--ks``, ``--seeds``, ``--epochs``,
        ``--eval-every``, ``--valid-fraction``, ``--lam``, ``--device``, ``--out`` and ``--quiet`` are added to it
        in place.
    """
    p.add_argument(
        "--train",
        required=True,
        help="training interactions: CSV user,item[,rating], MovieLens u.data or ratings.dat, Yahoo!-R3, LightGCN (--format)",
    )
    p.add_argument("--test", required=True, help="test interactions, same format")
    add_format_argument(p)
    p.add_argument(
        "--ks",
        type=integer(1),
        nargs="+",
        default=[1, 2, 4, 8, 16, 32, 64],
        help="negatives per positive to train with (must include 1)",
    )
    p.add_argument(
        "--seeds", type=integer(1), default=2, help="seeds per K (mean and 95%% interval)"
    )
    p.add_argument(
        "--epochs",
        type=integer(1),
        default=60,
        help="epochs per run (the best validation epoch is kept)",
    )
    p.add_argument(
        "--eval-every", type=integer(1), default=5, help="evaluate every this many epochs"
    )
    p.add_argument(
        "--valid-fraction",
        type=real(0.0, 1.0, lo_open=True, hi_open=True),
        default=0.1,
        help="share of train held out to pick the best epoch and to measure the K = 1 AUC",
    )
    p.add_argument(
        "--lam", type=real(0.0, 1.0), default=0.9, help="lambda of Wu's effectiveness (eq. 6)"
    )
    p.add_argument(
        "--device",
        choices=_common.DEVICES,
        default="cpu",
        help="where the runs train: cpu, cuda or auto (cuda when torch sees a GPU); a GPU run is stored "
        "apart from its CPU twin in OUT/runs (default: cpu)",
    )
    add_executor_arguments(p)
    add_output_arguments(p, default_output("wu_k_sweep"), "wu_k_sweep.csv / .md / .png")


def validation_auc(scores: ArrayLike, valid_mask: BoolArray, exclude_mask: BoolArray) -> float:
    """Mean over held-out pairs (u, i) of P(x_ui > x_uj) (ties 1/2), j over items not in ``exclude_mask[u]``.

    Parameters
    ----------
    scores : array_like, shape (n_users, n_items)
        The model's scores x_ui.
    valid_mask : ndarray of bool, shape (n_users, n_items)
        True at the held-out (validation) pairs (u, i).
    exclude_mask : ndarray of bool, shape (n_users, n_items)
        True at the items never used as negatives j of user u (the training and test items).
        Users without a negative left are skipped.

    Returns
    -------
    float
        The AUC in [0, 1], averaged over all held-out pairs (users weigh by their number of
        pairs).

    Raises
    ------
    ValueError
        No held-out pair has a negative to be compared with.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.reproduce.wu_k_sweep import validation_auc
    >>> s = np.array([[3.0, 2.0, 1.0, 0.0]])
    >>> validation_auc(s, np.array([[False, True, False, False]]), np.array([[True, True, False, False]]))
    1.0
    """
    import numpy as np

    s = np.asarray(scores, dtype=np.float64)
    vals = [
        _pair_aucs(s[u, valid_mask[u]], s[u, ~exclude_mask[u]])
        for u in np.flatnonzero(valid_mask.any(axis=1))
    ]
    return _mean_auc(vals)


def _pair_aucs(pos: Any, neg: Any) -> Any:
    """P(x_pos > x_neg) + 1/2 P(tie) of each held-out score against the user's negatives (None without one)."""
    import numpy as np

    if neg.size == 0:
        return None
    srt = np.sort(neg)
    below = np.searchsorted(srt, pos, side="left")
    ties = np.searchsorted(srt, pos, side="right") - below
    return (below + 0.5 * ties) / neg.size


def _mean_auc(vals: list) -> float:
    """The mean over every held-out pair of the users' :func:`_pair_aucs` (users without a negative skipped)."""
    import numpy as np

    vals = [v for v in vals if v is not None]
    if not vals:
        raise ValueError("no validation pair to compute an AUC from")
    return float(np.concatenate(vals).mean())


def validation_auc_blocks(scores: Any, data: Any, block: int = 256) -> float:
    """:func:`validation_auc` of a model on a split with validation, read by blocks of users.

    The same numbers as :func:`validation_auc` on the dense matrix and masks (the same float64
    operations per user), in memory of ``block`` rows instead of three n_users x n_items arrays:
    the held-out pairs are ``data.valid``, the excluded items the user's training and test items.
    The held-out items stay among the negatives (the model never saw them), so a pair also meets
    itself, a tie worth 1/2, as in the sweep's dense computation before it.

    Parameters
    ----------
    scores : ScoreMatrix or array_like, shape (n_users, n_items)
        The model's scores (a :class:`negtheory.recsys.loop.ScoreMatrix` is read by its ``block``).
    data : Interactions
        The split, with a validation part (:meth:`~negtheory.recsys.Interactions.with_validation`).
    block : int
        Users per block (default 256).

    Returns
    -------
    float
        The AUC in [0, 1], averaged over all held-out pairs.

    Raises
    ------
    ValueError
        ``block`` is below 1, the shapes differ, or no held-out pair has a negative.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import Interactions
    >>> from negtheory.reproduce.wu_k_sweep import validation_auc_blocks
    >>> d = Interactions(1, 4, np.array([[0, 0]]), np.zeros((0, 2), int), valid=np.array([[0, 1]]))
    >>> validation_auc_blocks(np.array([[3.0, 2.0, 1.0, 0.0]]), d)  # above items 2 and 3, tied with itself
    0.8333...
    """
    import numpy as np

    from ..recsys.loop import ScoreMatrix

    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be an integer >= 1, got {block!r}")
    if not isinstance(scores, ScoreMatrix):
        scores = ScoreMatrix.from_array(np.asarray(scores))
    if tuple(scores.shape) != (data.n_users, data.n_items):
        raise ValueError(
            f"scores has shape {tuple(scores.shape)}, the data {(data.n_users, data.n_items)}"
        )
    v_ptr, v_idx = data.valid_csr()
    x_ptr, x_idx = data.train_csr()
    t_ptr, t_idx = data.test_csr()
    users = np.flatnonzero(np.diff(v_ptr) > 0)
    vals = []
    keep = np.empty(data.n_items, dtype=bool)
    for b0 in range(0, len(users), block):
        us = users[b0 : b0 + block]
        rows = np.asarray(scores.block(us), dtype=np.float64)
        for r, u in enumerate(us):
            keep[:] = True
            keep[x_idx[x_ptr[u] : x_ptr[u + 1]]] = False
            keep[t_idx[t_ptr[u] : t_ptr[u + 1]]] = False
            # a CSR row's items ascend (train_csr / valid_csr sort them), as a boolean row selects them in validation_auc
            vals.append(_pair_aucs(rows[r, v_idx[v_ptr[u] : v_ptr[u + 1]]], rows[r, keep]))
    return _mean_auc(vals)


def _job(base, task):
    """Worker: one (K, seed) -> its result row and, for K = 1, the validation AUC (top level for workers)."""
    from ..training import MF, RNS, Adam, Evaluation, InfoNCE, fit

    k, seed, epochs, eval_every, valid_fraction = task[:5]
    device = (
        task[5] if len(task) > 5 else "cpu"
    )  # a CPU task keeps its five fields (and its cache name)
    data = base.with_validation(valid_fraction, rng=seed)
    # Adam() is the released code's lr 1e-3, weight decay 1e-5, batch 1024, here without the lr decay
    res = fit(
        data,
        model=MF(),
        loss=InfoNCE(negatives=k),
        sampler=RNS(),
        optimizer=Adam(),
        epochs=epochs,
        evaluation=Evaluation(every=eval_every),
        rng=seed,
        device=device,
    )
    best = next(h for h in res.history if h["epoch"] == res.best_epoch)
    row = dict(
        k=k,
        seed=seed,
        best_epoch=res.best_epoch,
        valid_ndcg10=best["valid_ndcg@10"],
        test_ndcg10=best["test_ndcg@10"],
        seconds=res.seconds,
    )
    # by blocks of users: no n_users x n_items array (Gowalla's would be 1.2e9 entries)
    auc = validation_auc_blocks(res.scores, data) if k == 1 else None
    return {"row": row, "auc": auc}


def _cache_name(train, test, fmt, task) -> str:
    import hashlib

    ident = repr(
        (
            task,
            fmt,
            Path(train).name,
            Path(train).stat().st_size,
            Path(test).name,
            Path(test).stat().st_size,
        )
    )
    return f"k{task[0]}_seed{task[1]}_" + hashlib.sha1(ident.encode()).hexdigest()[:10] + ".json"


def sweep(
    train: InteractionSource,
    test: InteractionSource,
    ks: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    seeds: int = 2,
    epochs: int = 60,
    eval_every: int = 5,
    valid_fraction: float = 0.1,
    lam: float = 0.9,
    progress: bool = True,
    *,
    format: str = "auto",
    executor: Any = "local",
    jobs: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
    device: str = "cpu",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    r"""Run the sweep: train InfoNCE-MF for every (K, seed), predict K* from the K = 1 runs.

    Parameters
    ----------
    train, test : str, Path, pandas.DataFrame or array_like
        The split (:func:`negtheory.recsys.load_split`).
    ks : sequence of int
        Negatives per positive to train with (each >= 1; include 1 for the prediction).
    seeds : int
        Seeds 0 .. seeds - 1 per K (each seed also draws its own validation split).
    epochs : int
        Epochs per run (the epoch of best validation NDCG@10 is kept).
    eval_every : int
        Evaluate every this many epochs.
    valid_fraction : float
        Share of the training pairs held out for validation, in (0, 1).
    lam : float
        λ in [0, 1] of Wu et al.'s training effectiveness (eq. 6; default 0.9, the paper's).
    progress : bool
        Show a progress bar over the runs (default True).
    format : str
        Layout of the files (:func:`negtheory.recsys.read_interactions`; default ``"auto"``).
    executor : str, Client or Executor
        Where the (K, seed) jobs go (:func:`negtheory.reproduce._common.run_jobs`): ``"local"``
        with ``jobs`` processes, ``"dask"``, a scheduler address or a Client. Each job is seeded by
        its seed alone and its result goes through JSON, so the rows are the same wherever the
        jobs ran (they come out in (seed, K) order).
    jobs : int
        Local worker processes (or the workers of ``"dask"``; default 1).
    cache_dir : str or os.PathLike, optional
        With files given as paths: a folder where each finished job is stored and reused by a
        later call (default None: no cache).
    device : {"cpu", "cuda", "auto"}
        Where the runs train (:func:`negtheory.training.fit`'s ``device``; ``"auto"``: CUDA when torch
        sees a GPU). A GPU run is cached apart from its CPU twin (default ``"cpu"``).

    Returns
    -------
    runs : pandas.DataFrame
        One row per (K, seed): ``k, seed, best_epoch, valid_ndcg10, test_ndcg10, seconds``.
    summary : dict
        ``k_best_valid`` and ``k_best_test`` (the K of best mean validation / test NDCG@10);
        when 1 is among ``ks`` also ``valid_auc_k1`` (mean validation AUC of the K = 1 runs),
        ``mu_q``, ``k_star_continuous`` and ``k_star_steps100`` (the predictions; None when
        :math:`\mu_q` is outside (0, 20], i.e. the AUC is at most 1/2 or too close to 1).
    """
    import numpy as np
    import pandas as pd

    from ..infonce import mu_from_auc, optimal_k
    from ..recsys import load_split

    if format not in DATA_FORMATS:
        raise ValueError(f"format must be one of {', '.join(DATA_FORMATS)}, got {format!r}")
    device = _common.resolve_device(device)
    tail = () if device == "cpu" else (device,)
    tasks = [(k, s, epochs, eval_every, valid_fraction, *tail) for s in range(seeds) for k in ks]
    specs = tuple(
        RunSpec(
            key=("k", t[0]),
            replicate=t[1],
            task=t,
            name=None if cache_dir is None else _cache_name(train, test, format, t),
        )
        for t in tasks
    )
    plan = Plan(specs, _job, lambda: load_split(train, test, format=format), desc="InfoNCE K sweep")
    results = execute(plan, cache_dir=cache_dir, executor=executor, jobs=jobs, progress=progress)
    recs = [results[i]["row"] for i in range(len(tasks))]
    aucs = [results[i]["auc"] for i in range(len(tasks)) if tasks[i][0] == 1]
    df = pd.DataFrame(recs)
    summary: dict[str, Any] = {}
    if aucs:
        auc = float(np.mean(aucs))
        mu = float(mu_from_auc(auc))
        summary.update(valid_auc_k1=auc, mu_q=mu, k_star_continuous=None, k_star_steps100=None)
        if (
            0.0 < mu <= 20.0
        ):  # AUC <= 1/2: the K = 1 model ranks no better than chance, no prediction
            summary.update(
                k_star_continuous=int(optimal_k(mu, lam=lam)),
                k_star_steps100=int(optimal_k(mu, lam=lam, steps=100)),
            )
    means = df.groupby("k").valid_ndcg10.mean()
    summary["k_best_valid"] = int(means.idxmax())
    summary["k_best_test"] = int(df.groupby("k").test_ndcg10.mean().idxmax())
    return df, summary


def run(args: argparse.Namespace) -> int:
    """``negtheory reproduce wu-k-sweep``: the sweep through the engine, then the CSV, table and figure.

    Parameters
    ----------
    args : argparse.Namespace
        ``--train``, ``--test``, ``--ks``, ``--seeds``, ``--epochs`` and the rest of :func:`add_arguments`.

    Returns
    -------
    int
        0 once ``wu_k_sweep.csv`` / ``.md`` / ``.png`` are written; a bad option raises.
    """
    from matplotlib.figure import Figure
    from scipy import stats

    out = check_paths(args.out, {"--train": args.train, "--test": args.test})
    if args.seeds < 1 or args.epochs < 1 or min(args.ks) < 1:
        raise ValueError("--seeds, --epochs and every --ks value must be >= 1")
    if 1 not in args.ks:
        raise ValueError(
            "--ks must contain 1: the prediction needs the K = 1 model's validation AUC"
        )
    _common.resolve_device(getattr(args, "device", "cpu"), "--device")
    out.mkdir(parents=True, exist_ok=True)
    executor, close = connect_executor(args)
    t0 = time.perf_counter()
    try:
        df, summary = sweep(
            args.train,
            args.test,
            sorted(set(args.ks)),
            args.seeds,
            args.epochs,
            args.eval_every,
            args.valid_fraction,
            args.lam,
            progress=not args.quiet,
            format=args.format,
            executor=executor,
            jobs=args.jobs,
            cache_dir=out / "runs",
            device=getattr(args, "device", "cpu"),
        )
    finally:
        close()
    df.to_csv(out / "wu_k_sweep.csv", index=False)
    g = df.groupby("k")
    lines = [
        f"# InfoNCE K sweep on {args.train} / {args.test}",
        "",
        f"seeds {args.seeds}, epochs {args.epochs} (best validation epoch kept), device {getattr(args, 'device', 'cpu')}; "
        f"{df.seconds.sum() / 3600:.2f} run-hours in all, this call's wall time {time.perf_counter() - t0:.0f} s "
        "(finished runs are reused from OUT/runs)",
        "",
        f"validation AUC of the K = 1 model: {summary['valid_auc_k1']:.4f} -> mu_q = {summary['mu_q']:.3f} -> "
        f"predicted K* = {summary['k_star_continuous']} (continuous average; {summary['k_star_steps100']} with 100 steps)",
        f"observed best K (mean validation NDCG@10): {summary['k_best_valid']}; by test NDCG@10: {summary['k_best_test']}",
        "",
        "| K | valid NDCG@10 (mean [95% CI]) | test NDCG@10 (mean [95% CI]) |",
        "|---|---|---|",
    ]
    for k, grp in g:
        cells = []
        for col in ("valid_ndcg10", "test_ndcg10"):
            v = grp[col].to_numpy()
            if len(v) < 2:  # no interval from one seed
                cells.append(f"{v.mean():.4f} [n/a: {len(v)} seed]")
                continue
            half = t_half_width(v)
            cells.append(f"{v.mean():.4f} [{v.mean() - half:.4f}, {v.mean() + half:.4f}]")
        lines.append(f"| {k} | {cells[0]} | {cells[1]} |")
    (out / "wu_k_sweep.md").write_text("\n".join(lines) + "\n")
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    for col, lab in (("valid_ndcg10", "validation"), ("test_ndcg10", "test")):
        m = g[col].mean()
        e = (
            g[col].std(ddof=1).fillna(0)
            * stats.t.ppf(0.975, max(args.seeds - 1, 1))
            / math.sqrt(args.seeds)
        )
        band = "mean ± 95 % CI" if args.seeds >= 2 else "1 seed: no interval"
        ax.errorbar(
            m.index, m.values, yerr=e.values, marker="o", capsize=3, label=f"{lab} NDCG@10 ({band})"
        )
    if summary["k_star_continuous"] is not None:
        ax.axvline(
            summary["k_star_continuous"],
            color="C3",
            ls="--",
            label=f"Wu et al. K* = {summary['k_star_continuous']}",
        )
    ax.set_xscale("log", base=2)
    ax.set_xlabel("negatives per positive K")
    ax.set_ylabel("NDCG@10 at the best validation epoch")
    ax.set_title(
        f"InfoNCE on MF: K sweep vs predicted K* (AUC at K=1: {summary['valid_auc_k1']:.3f})"
    )
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.savefig(out / "wu_k_sweep.png", dpi=110)
    print("\n".join(lines))
    print(
        f"wrote {out / 'wu_k_sweep.csv'}, {out / 'wu_k_sweep.md'}, {out / 'wu_k_sweep.png'} (finished runs kept in {out / 'runs'})"
    )
    return 0
