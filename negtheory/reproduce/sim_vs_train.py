r"""``negtheory reproduce sim-vs-train``: do the simulations, fed with what training measures, predict training?

Protocol. MF (d = 32) is trained on a user-supplied split with the one recommendation trainer:
BPR by batch-1 SGD with RNS or BNS (:func:`negtheory.recsys.fit_bpr_sgd`, the thesis's ch. 4
settings) or mini-batch InfoNCE / DCL / HCL / BCL (:func:`negtheory.bridge.recommend.fit_mf`, the
released code's ch. 5-6 settings, t = 1). A :class:`negtheory.recsys.score_probe.ScoreProbe`
callback measures, at initialisation and every ``--probe-every`` epochs, with the **test
interactions as false-negative labels** (never used for training, sampling or selection):
alpha (eq. 6.21, P(x_TN < x_FN) among a user's unlabeled items), tau+, the TN / FN score laws,
the training AUC and Wu's K*, BNS's posterior P(fn | x) (eq. 4.14-4.16), and the real squared
error of each estimator of the true-negative mean (biased, DCL, HCL, BCL, self-normalised BCL;
eq. 6.45-6.48) on eval batches of N = ``--negatives`` unlabeled items per training pair, drawn as
training draws them. The estimators use the measured (alpha, tau+), BCL beta = 0.5, HCL beta = 0.5,
no floor, and the map exp(s / t) with t = 1.

At every probe point the same estimators run on three simulations (:mod:`negtheory.calibration`):

* ``parametric`` — :func:`negtheory.studies.mse_study` at the measured (alpha, tau+, N), t = 1,
  with Algorithm 6's default parent (uniform intervals inside (-1/t^2, 1/t^2)) and one positive
  from phi_FN;
* ``calibrated`` — the thesis's class-conditional laws (eq. 6.14-6.15) at the measured tau+ and
  at the alpha whose own P(x_TN < x_FN) is the measured one (:func:`negtheory.calibration.alpha_from_auc`:
  the laws' independent-draw AUC is 1/2 + (2 alpha - 1)/3, at most 5/6), with each user's parent law fitted to the user's measured unlabeled scores (eq. 6.29
  inverted) and the user's measured training positives, on fit batches disjoint from the
  compared eval batches;
* ``resampled`` — i.i.d. draws from the measured laws: the user's true negatives and the pooled
  within-user ranks of the false negatives placed in the user's unlabeled quantile function.

Named ablation variants (``ablations.csv``): ``parametric_range`` is the parametric study with its
uniform parents spanning the measured score range (1st-99th percentile) and the calibrated alpha (the
score transform's scale); the others replace one ingredient of ``calibrated`` at a time:
``parent_normal`` (a normal parent per user), ``alpha_user`` / ``tau_user`` (per-user alpha or
tau+), ``positives_phi_fn`` (positives from phi_FN, as §6.6.1 assumes), ``alpha_train_auc``
(alpha read as the positive-vs-negative AUC of eq. 6.21's right-hand side), ``alpha_as_auc``
(the measured P(x_TN < x_FN) used as alpha directly, as the first bridge did), ``order_k`` (false negatives as the largest of k
draws in the user's unlabeled ranks, k fitted by maximum likelihood) and ``resampled_pooled``
(the bootstrap without the user: all users' scores pooled).

Outputs (``--out``): ``sim_vs_train.csv`` (tidy: ``epoch, seed, loss, quantity, estimator,
measured, simulated_parametric, simulated_calibrated, simulated_resampled``; quantities ``mse``,
``rel_mse`` = MSE / mean truth^2 and ``bias``, plus the scalar probes ``alpha``, ``tau_plus``,
``train_auc``, ``k_star``, ``ks_tn``, ``ks_fn``, ``ks_prior`` with only ``measured``),
``ablations.csv``, ``posterior_calibration.csv`` (BNS reliability diagram), ``score_laws.csv``
(measured vs proposed class-conditional quantiles in parent-CDF space), ``sim_vs_train.md`` (the
verdict table) and ``sim_vs_train.png``. Every finished (loss, seed) is kept in ``OUT/runs/`` and
reused by a rerun with the same settings. Each (loss, seed) is one job seeded by its seed alone
(``--jobs``, ``--executor local|dask|ADDRESS``): ``sim_vs_train.csv`` is the same wherever the jobs run.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._cli_common import OUTPUT_ROOT, default_output, integer
from ._common import add_executor_arguments, add_format_argument, check_paths, connect_executor, run_jobs, t_half_width

if TYPE_CHECKING:
    import argparse
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

    from .._typing import RNGLike
    from ..recsys.interactions import Interactions
    from ..recsys.score_probe import ProbeRecord

HELP = "probe real training (test items as false-negative labels) and compare the estimators' MSE with three simulations"

__all__ = ["HELP", "add_arguments", "run", "simulate_point", "run_one", "verdict", "figure", "SGD_LOSSES", "MF_LOSSES"]

SGD_LOSSES = ("rns", "bns")
MF_LOSSES = ("infonce", "dcl", "hcl", "bcl")
ESTIMATORS = ("biased", "dcl", "hcl", "bcl", "bcl_norm")
SCALARS = ("alpha", "alpha_model", "tau_plus", "train_auc", "k_star", "ks_tn", "ks_fn", "ks_prior")
VARIANTS = (
    "parametric_range",
    "parent_normal",
    "alpha_user",
    "tau_user",
    "positives_phi_fn",
    "alpha_train_auc",
    "alpha_as_auc",
    "order_k",
    "resampled_pooled",
)
GOAL = 1.5  # the calibrated simulation should be within this factor of the measured MSE


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce sim-vs-train`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser; ``--train``, ``--test``, ``--losses``, ``--seeds``, ``--epochs``,
        ``--probe-every``, ``--negatives``, ``--anchors``, ``--fit-size``, ``--reps``, ``--quick``,
        ``--out`` and ``--quiet`` are added to it in place.
    """
    p.add_argument(
        "--train",
        required=True,
        help="training interactions: CSV user,item[,rating], MovieLens u.data or ratings.dat, Yahoo!-R3, LightGCN (--format)",
    )
    p.add_argument("--test", required=True, help="test interactions (the false-negative labels of the probes), same format")
    add_format_argument(p)
    p.add_argument(
        "--losses",
        nargs="+",
        default=list(SGD_LOSSES + MF_LOSSES),
        choices=SGD_LOSSES + MF_LOSSES,
        help="rns / bns: BPR-MF by batch-1 SGD with that sampler; infonce / dcl / hcl / bcl: mini-batch MF",
    )
    p.add_argument("--seeds", type=integer(1), default=3, help="seeds 0 .. N-1 (mean and 95%% interval over them)")
    p.add_argument("--epochs", type=integer(1), default=30, help="training epochs of every run")
    p.add_argument("--probe-every", type=integer(1), default=10, help="probe (and evaluate) every this many epochs")
    p.add_argument(
        "--negatives", type=integer(1), default=5, help="N unlabeled items per probe anchor (and mini-batch negatives)"
    )
    p.add_argument(
        "--anchors", type=integer(16), default=40000, help="eval anchors (training pairs) per probe point, at most half of them"
    )
    p.add_argument("--fit-size", type=integer(2), default=256, help="unlabeled items per user in the fit batches")
    p.add_argument("--reps", type=integer(1), default=4, help="simulated anchors per eval anchor")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 1 seed, 4 epochs probed every 2, rns and infonce, 2048 anchors (30 s on 2 free cores, minutes on busy ones)",
    )
    p.add_argument(
        "--out",
        default=None,
        help=f"output folder; finished runs are kept in OUT/runs/ and reused (default: {OUTPUT_ROOT}/sim_vs_train, "
        "or sim_vs_train_quick with --quick)",
    )
    add_executor_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")


# ------------------------------------------------------------------------------------------
# simulations at one probe point
# ------------------------------------------------------------------------------------------
def simulate_point(rec: ProbeRecord, *, t: float = 1.0, reps: int = 4, rng: RNGLike = 0) -> tuple[dict, dict]:
    """The three simulations and the ablation variants at one probe point.

    Parameters
    ----------
    rec : ProbeRecord
        What the probe measured (:func:`negtheory.recsys.score_probe.probe_scores`).
    t : float
        Temperature of the map exp(s / t).
    reps : int
        Simulated anchors per measured eval anchor (same users, so users weigh as in training).
    rng : int, SeedSequence, Generator or None
        Seed of the simulations (an int is used as is, otherwise one 63-bit draw); probe point e
        uses ``SeedSequence([seed, e])``.

    Returns
    -------
    main, ablations : dict
        ``main[source][estimator]`` and ``ablations[variant][estimator]``: the result dicts of
        :func:`negtheory.calibration.estimator_errors` (``mse``, ``mse_se``, ``mean``,
        ``truth_mean``); ``source`` in ``parametric``, ``calibrated``, ``resampled``.
    """
    from .. import calibration as cal
    from ..studies import mse_study

    m = rec.measured
    n = int(m["n"])
    # the estimators' alpha: the measured P(x_TN < x_FN), as in the probe's measured errors
    alpha = min(max(m["alpha"], 0.5), 1.0) if np.isfinite(m["alpha"]) else 0.5
    # the generator's alpha: the model member whose own P(x_TN < x_FN) is the measured one
    alpha_gen = float(m["alpha_model"])
    tau = min(max(m["tau_plus"], 1e-6), 0.999)
    par = dict(t=t, alpha=alpha, tau_plus=tau, beta=0.5, hcl_beta=0.5)
    from .._rng import int_seed

    ss = np.random.SeedSequence([int_seed("rng", rng), rec.epoch])
    seeds = [int(s.generate_state(1)[0]) for s in ss.spawn(12)]
    unl = cal.UserQuantiles(rec.fit_unlabeled)
    posq = cal.UserQuantiles(rec.fit_pos)
    tnq = cal.UserQuantiles(np.where(rec.fit_tn, rec.fit_unlabeled, np.nan))
    users = np.tile(rec.eval_users, reps)
    ranks = np.clip(rec.fit_fn_ranks, 1e-12, 1.0)
    main: dict[str, dict] = {}
    sim = mse_study(
        "alpha", [alpha], n_anchors=len(users), n_unlabeled=n, tau_plus=tau, t=t, beta=0.5, hcl_beta=0.5,
        n_positives=1, estimators=ESTIMATORS, rng=seeds[0], progress=False,
    )  # fmt: skip
    main["parametric"] = {
        r["estimator"]: dict(
            mse=float(r["mse"]), mse_se=float(r["mse_se"]), mean=float(r["mean"]), truth_mean=float(r["truth_mean"])
        )
        for r in sim.to_dict("records")
    }

    def errors(sets):
        return cal.estimator_errors(*sets, **par)

    def calibrated(seed, **kw):
        kw = {"alpha": alpha_gen, "tau_plus": tau, "positive_scores": posq, **kw}
        return errors(cal.simulate_calibrated(unl, users, n, rng=seed, **kw))

    main["calibrated"] = calibrated(seeds[1])
    if ranks.size:
        main["resampled"] = errors(
            cal.simulate_resampled(tnq, ranks, unl, users, n, tau_plus=tau, positive_scores=posq, rng=seeds[2])
        )
    ab: dict[str, dict] = {}
    # the parametric study with its uniform parents spanning the measured score range (1st-99th
    # percentile of the unlabeled scores) instead of (-1/t^2, 1/t^2): the score transform's scale
    lo, hi = np.nanpercentile(rec.fit_unlabeled, [1.0, 99.0])
    rng_sim = mse_study(
        "alpha", [alpha_gen], n_anchors=len(users), n_unlabeled=n, tau_plus=tau, t=t, beta=0.5, hcl_beta=0.5,
        n_positives=1, estimators=ESTIMATORS, rng=seeds[11], progress=False, base_interval=(float(lo), float(max(hi, lo + 1e-9))),
    )  # fmt: skip
    ab["parametric_range"] = {r["estimator"]: dict(mse=float(r["mse"])) for r in rng_sim.to_dict("records")}
    ab["parent_normal"] = calibrated(seeds[3], parent="normal")
    alpha_u = np.where(np.isfinite(rec.alpha_user), cal.alpha_from_auc(np.nan_to_num(rec.alpha_user, nan=0.5)), alpha_gen)
    ab["alpha_user"] = calibrated(seeds[4], alpha=alpha_u)
    tau_u = np.where(np.isfinite(rec.tau_user), np.clip(rec.tau_user, 0.0, 0.999), tau)
    ab["tau_user"] = calibrated(seeds[5], tau_plus=tau_u)
    ab["positives_phi_fn"] = calibrated(seeds[6], positives="phi_fn")
    ab["alpha_train_auc"] = calibrated(seeds[7], alpha=min(max(m["train_auc"], 0.5), 1.0))
    ab["alpha_as_auc"] = calibrated(seeds[8], alpha=alpha)
    if ranks.size:
        k = min(cal.fit_fn_order(ranks), 1.0 / tau)
        ab["order_k"] = errors(
            cal.simulate_order_statistic(unl, users, n, k=max(k, 1.0), tau_plus=tau, positive_scores=posq, rng=seeds[9])
        )
        fn_pool = rec.fit_unlabeled[~rec.fit_tn & np.isfinite(rec.fit_unlabeled)]
        ab["resampled_pooled"] = errors(
            cal.simulate_resampled(
                tnq, ranks, unl, users, n, tau_plus=tau, positive_scores=posq, pooled=True, fn_scores=fn_pool, rng=seeds[10]
            )  # fmt: skip
        )
    return main, ab


# ------------------------------------------------------------------------------------------
# one (loss, seed)
# ------------------------------------------------------------------------------------------
def _train(data: Interactions, loss: str, seed: int, epochs: int, probe_every: int, negatives: int, probe, progress: bool):
    if loss in SGD_LOSSES:
        from ..recsys import fit_bpr_sgd

        return fit_bpr_sgd(data, loss, epochs=epochs, eval_every=probe_every, topk=(10,), rng=seed, progress=progress,
                           callbacks=[probe])  # fmt: skip
    from ..bridge.recommend import fit_mf

    return fit_mf(data, loss, epochs=epochs, eval_every=probe_every, topk=(10,), negatives=negatives, rng=seed, progress=progress,
                  callbacks=[probe], device="cpu")  # fmt: skip


def _prior(data: Interactions, loss: str, dim: int = 32) -> tuple[int, float]:
    """(d, lam) of the variance-gamma law of the initial scores (Lemma 3.1): the product of the two
    initial standard deviations (N(0, 0.1^2) for SGD; Xavier-normal for the mini-batch MF)."""
    if loss in SGD_LOSSES:
        return dim, 0.1 * 0.1
    su = math.sqrt(2.0 / (dim + data.n_users))
    si = math.sqrt(2.0 / (dim + data.n_items))
    return dim, su * si


def _rows_of(main: dict, measured: dict, est: str) -> dict:
    out = {}
    truth = measured["truth_mean"]
    meas = dict(mse=measured[f"mse_{est}"], rel_mse=measured[f"mse_{est}"] / truth**2, bias=measured[f"mean_{est}"] - truth)
    for q in ("mse", "rel_mse", "bias"):
        row = dict(quantity=q, estimator=est, measured=meas[q])
        for src in ("parametric", "calibrated", "resampled"):
            r = main.get(src, {}).get(est)
            if r is None:
                val = math.nan
            elif q == "mse":
                val = r["mse"]
            elif q == "rel_mse":
                val = r["mse"] / r["truth_mean"] ** 2
            else:
                val = r["mean"] - r["truth_mean"]
            row[f"simulated_{src}"] = val
        out[q] = row
    return out


def run_one(
    data: Interactions,
    loss: str,
    rng: RNGLike,
    *,
    epochs: int,
    probe_every: int,
    negatives: int,
    anchors: int,
    fit_size: int,
    reps: int,
    progress: bool = False,
) -> dict[str, list[dict[str, Any]]]:
    """Train one (loss, seed) with the probe and simulate every probe point.

    Parameters
    ----------
    data : Interactions
        The split; its test (and validation) pairs are the probes' false-negative labels only.
    loss : {"rns", "bns", "infonce", "dcl", "hcl", "bcl"}
        ``rns`` / ``bns``: BPR-MF by batch-1 SGD with that sampler
        (:func:`negtheory.recsys.fit_bpr_sgd`); the others: mini-batch MF with that loss
        (:func:`negtheory.bridge.recommend.fit_mf`, torch extra, on the CPU).
    rng : int, SeedSequence or Generator
        Seeds the training (an int is used as is, otherwise one 63-bit draw); the probe uses
        that seed + 1000 and the simulations the seed itself.
    epochs : int
        Training epochs.
    probe_every : int
        Probe (and evaluate) every this many epochs, and after the last; the probe also runs at
        initialisation (epoch 0).
    negatives : int
        N unlabeled items per probe anchor, and the mini-batch losses' negatives.
    anchors : int
        Eval anchors per probe point (:func:`negtheory.recsys.score_probe.probe_scores`'s
        ``n_anchors``).
    fit_size : int
        Unlabeled items per user in the fit batches.
    reps : int
        Simulated anchors per eval anchor (:func:`simulate_point`).
    progress : bool
        Show the training's progress bar (default False).

    Returns
    -------
    dict
        Lists of rows (dicts, each with ``loss``, ``seed`` and, but for ``history``, ``epoch``):
        ``sim_vs_train``, ``ablations``, ``posterior``, ``score_laws``, ``history`` — the rows of
        the CSV files of the same names (module notes).
    """
    from .._rng import int_seed
    from ..calibration import class_conditional_ppf
    from ..recsys.score_probe import LAW_LEVELS, ScoreProbe

    seed = int_seed("rng", rng)
    # snapshot: the training loop only copies the score matrix at each probe point; the probe
    # measures after training (the same records), so "seconds" is the training's own time
    probe = ScoreProbe(data, rng=seed + 1000, snapshot=True, n_negatives=negatives, n_anchors=anchors, fit_size=fit_size,
                       t=1.0, prior=_prior(data, loss))  # fmt: skip
    t0 = time.perf_counter()
    res = _train(data, loss, seed, epochs, probe_every, negatives, probe, progress)
    seconds = time.perf_counter() - t0
    probe.frame()  # measures the snapshots and completes each record's deferred measurements (errors, K*)
    by_epoch = {rec.epoch: rec.measured for rec in probe.records}
    base = dict(loss=loss, seed=seed)
    out: dict[str, list] = {"sim_vs_train": [], "ablations": [], "posterior": [], "score_laws": [], "history": []}
    for h in res["history"]:
        # the epoch's training loss is "train_loss" here: "loss" names the loss function
        row = {("train_loss" if k == "loss" else k): float(v) for k, v in h.items()}
        m = by_epoch.get(int(h["epoch"]), {})
        row.update({f"probe_{k}": float(m[k]) for k in ("alpha", "tau_plus", "train_auc") if k in m})
        out["history"].append(dict(base, **row, seconds=seconds))
    for rec in probe.records:
        m = rec.measured
        b = dict(base, epoch=rec.epoch)
        for q in SCALARS:
            if q in m:
                out["sim_vs_train"].append(dict(b, quantity=q, estimator="", measured=float(m[q]), simulated_parametric=math.nan,
                                                simulated_calibrated=math.nan, simulated_resampled=math.nan))  # fmt: skip
        a = float(m["alpha_model"])
        for kind in ("tn", "fn"):
            theory = class_conditional_ppf(LAW_LEVELS, kind, a)
            for lev, meas_q, th in zip(LAW_LEVELS, rec.law_quantiles[kind], theory):
                out["score_laws"].append(dict(b, law=kind, level=float(lev), measured=float(meas_q), theory=float(th),
                                              alpha=float(m["alpha"]), alpha_model=a, ks=float(m[f"ks_{kind}"])))  # fmt: skip
        if rec.epoch == 0:
            continue  # untrained scores: every estimator is exact up to the rare false negative
        main, ab = simulate_point(rec, reps=reps, rng=seed)
        for est in ESTIMATORS:
            for row in _rows_of(main, m, est).values():
                out["sim_vs_train"].append(dict(b, **row))
            for var, r in ab.items():
                out["ablations"].append(
                    dict(b, estimator=est, variant=var, measured=float(m[f"mse_{est}"]), simulated=float(r[est]["mse"]))
                )
        for prior, col in (("popularity / n_train (eq. 4.16)", 0), ("popularity / n_users", 2)):
            pred, obs = rec.posterior[:, col], rec.posterior[:, 1]
            ok = np.isfinite(pred)
            order = np.argsort(pred[ok], kind="stable")
            for k, idx in enumerate(np.array_split(order, 10)):
                if idx.size:
                    out["posterior"].append(dict(b, prior=prior, bin=k, predicted=float(pred[ok][idx].mean()),
                                                 observed=float(obs[ok][idx].mean()), n=int(idx.size)))  # fmt: skip
    return out


def _run_seconds(history: pd.DataFrame) -> float:
    """Sum over (loss, seed) of each run's training time (with the probe calls), from its history rows."""
    if not len(history) or "seconds" not in history:
        return 0.0
    return float(history.groupby(["loss", "seed"]).seconds.first().sum())


def _job(data: Interactions, task: tuple) -> dict:
    """Worker: one (loss, seed) -> :func:`run_one`'s rows (top level, so that workers import it)."""
    loss, seed, (epochs, every, negatives, anchors, fit_size, reps), progress = task
    return run_one(data, loss, seed, epochs=epochs, probe_every=every, negatives=negatives, anchors=anchors,
                   fit_size=fit_size, reps=reps, progress=progress)  # fmt: skip


def _cache_name(train, test, loss, seed, settings, fmt: str = "auto") -> str:
    ident = repr((loss, seed, settings, Path(train).name, Path(train).stat().st_size, Path(test).name, Path(test).stat().st_size))
    if fmt != "auto":  # an explicit --format may read the same file otherwise
        ident += repr(fmt)
    return f"{loss}_seed{seed}_" + hashlib.sha1(ident.encode()).hexdigest()[:10] + ".json"


# ------------------------------------------------------------------------------------------
# summaries
# ------------------------------------------------------------------------------------------
def _ci(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan
    return float(v.mean()), t_half_width(v)


def _fmt(m, h, digits=3):
    if not np.isfinite(m):
        return "-"
    if np.isfinite(h):
        return f"{m:.{digits}g} ± {h:.{digits - 1}g}"
    return f"{m:.{digits}g}"


def _order(values: dict) -> str:
    return " < ".join(k for k, _ in sorted(values.items(), key=lambda kv: kv[1]))


def verdict(df: pd.DataFrame, ablations: pd.DataFrame, posterior: pd.DataFrame, epochs_shown: int = 3) -> str:
    """The markdown verdict: measured MSE against the three simulations, per loss and probe epoch.

    Per loss and probe epoch: measured vs the three simulations (mean ± 95 % half-width over
    seeds), ratios, estimator orders, the ablations and BNS's calibration.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table (:func:`run_one`'s ``sim_vs_train`` rows).
    ablations : pandas.DataFrame
        The ``ablations.csv`` table.
    posterior : pandas.DataFrame
        The ``posterior_calibration.csv`` table (BNS reliability diagram).
    epochs_shown : int
        How many of the last probe epochs each loss's table shows (default 3).

    Returns
    -------
    str
        The markdown text.
    """
    lines = []
    mse = df[df.quantity == "mse"]
    lines += ["## MSE of the true-negative-mean estimators: training vs simulation", ""]
    lines += [
        "Mean ± 95 % t-interval half-width over seeds. Ratios: geometric mean over seeds. Goal for the calibrated "
        f"simulation: within a factor {GOAL} of the measured MSE, estimators in the same order. `calib / resamp` compares "
        "the theory's laws with the bootstrap of the measured laws on the same users and fit batches: where the "
        "bootstrap itself misses the measured MSE, the eval sample is the outlier (a few anchors with huge exp(s)).",
        "",
    ]
    verdicts = []
    cols = ("measured", "simulated_parametric", "simulated_calibrated", "simulated_resampled")

    def gratio(a, b):
        return float(np.exp(np.nanmean(np.log(np.asarray(a, float) / np.asarray(b, float)))))

    for loss, g in mse.groupby("loss", sort=False):
        eps = sorted(g.epoch.unique())
        show = eps[-epochs_shown:]
        lines += [
            f"### {loss}",
            "",
            "| epoch | estimator | measured | parametric | calibrated | resampled | calib / meas | resamp / meas | calib / resamp |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for ep in show:
            ge = g[g.epoch == ep]
            for est in ESTIMATORS:
                r = ge[ge.estimator == est]
                cells = [_fmt(*_ci(r[c])) for c in cols]
                rc = gratio(r.simulated_calibrated, r.measured)
                rr = gratio(r.simulated_resampled, r.measured)
                rcr = gratio(r.simulated_calibrated, r.simulated_resampled)
                lines.append(f"| {ep} | {est} | " + " | ".join(cells) + f" | {rc:.2f} | {rr:.2f} | {rcr:.2f} |")
        last = g[g.epoch == eps[-1]]
        means = {c: {e: float(last[last.estimator == e][c].mean()) for e in ESTIMATORS} for c in cols}
        pooled = g[g.epoch.isin(show)]
        per = np.log(pooled.simulated_calibrated / pooled.measured)
        lines += [
            "",
            f"Calibrated / measured over epochs {', '.join(map(str, show))} and every seed: geometric mean "
            f"{np.exp(per.mean()):.2f}, range {np.exp(per.min()):.2f}-{np.exp(per.max()):.2f}.",
            "",
            f"Order at epoch {eps[-1]} (lowest MSE first):",
            "",
        ]
        for c, v in means.items():
            lines.append(f"- {c.replace('simulated_', '')}: {_order(v)}")
        # per-seed ratios, geometric mean over seeds: one seed with a few huge exp(s) cannot carry the verdict
        ratios = {
            c: [gratio(last[last.estimator == e][c], last[last.estimator == e].measured) for e in ESTIMATORS] for c in cols[1:]
        }
        cal_res = [
            gratio(last[last.estimator == e].simulated_calibrated, last[last.estimator == e].simulated_resampled)
            for e in ESTIMATORS
        ]
        res_ok = all(1 / GOAL <= x <= GOAL for x in ratios["simulated_resampled"])
        for c, rs in ratios.items():
            name = c.replace("simulated_", "")
            within = all(1 / GOAL <= x <= GOAL for x in rs)
            same = _order(means[c]) == _order(means["measured"])
            span = f"{min(rs):.2f}-{max(rs):.2f}"
            if within and same:
                word = f"confirmed ({name} / measured {span})"
            elif within:
                word = f"confirmed in scale ({span}); estimator order differs"
            elif name == "calibrated" and not res_ok and all(1 / GOAL <= x <= GOAL for x in cal_res):
                word = (
                    f"confirmed against the bootstrap (calibrated / resampled {min(cal_res):.2f}-{max(cal_res):.2f}); "
                    f"the measured MSE is off every i.i.d. model fitted to other batches (calibrated / measured {span})"
                )
            else:
                worst = max(rs, key=lambda x: max(x, 1 / x))
                word = f"refuted: {name} / measured {span}, off by up to a factor {max(worst, 1 / worst):.2g}" + (
                    "" if same else "; order differs"
                )
            verdicts.append((loss, name, word))
        lines.append("")
    lines += [
        "## Verdicts (last probe epoch; simulated / measured per seed, geometric mean over seeds)",
        "",
        "| loss | simulation | verdict |",
        "|---|---|---|",
    ]
    for loss, name, word in verdicts:
        lines.append(f"| {loss} | {name} | {word} |")
    if len(ablations):
        lines += [
            "",
            "## Ablations of the calibrated simulation (last probe epoch; simulated / measured MSE, geometric mean)",
            "",
        ]
        last = ablations[ablations.epoch == ablations.groupby("loss").epoch.transform("max")]
        piv = last.assign(r=np.log(last.simulated / last.measured)).groupby(["variant", "estimator"]).r.mean().unstack()
        piv = np.exp(piv)[list(ESTIMATORS)]
        base = mse[mse.epoch == mse.groupby("loss").epoch.transform("max")]
        cal_row = np.exp(base.assign(r=np.log(base.simulated_calibrated / base.measured)).groupby("estimator").r.mean())
        res_row = np.exp(base.assign(r=np.log(base.simulated_resampled / base.measured)).groupby("estimator").r.mean())
        lines += ["| variant | " + " | ".join(ESTIMATORS) + " |", "|---" * (len(ESTIMATORS) + 1) + "|"]
        lines.append("| calibrated (reference) | " + " | ".join(f"{cal_row[e]:.2f}" for e in ESTIMATORS) + " |")
        for var in VARIANTS:
            if var in piv.index:
                lines.append(f"| {var} | " + " | ".join(f"{piv.loc[var, e]:.2f}" for e in ESTIMATORS) + " |")
        lines.append("| resampled | " + " | ".join(f"{res_row[e]:.2f}" for e in ESTIMATORS) + " |")
    scal = df[df.estimator.fillna("") == ""]
    if len(scal):
        lines += ["", "## Measured probe quantities (last probe epoch, mean over seeds)", "",
                  "| loss | alpha (measured AUC TN<FN) | alpha_model | tau+ | train AUC | K* (Wu) | KS TN | KS FN |",
                  "|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for loss, g in scal.groupby("loss", sort=False):
            gl = g[g.epoch == g.epoch.max()]
            val = {q: float(gl[gl.quantity == q].measured.mean()) for q in SCALARS}
            lines.append(f"| {loss} | {val['alpha']:.3f} | {val['alpha_model']:.3f} | {val['tau_plus']:.4f} | {val['train_auc']:.3f} | {val['k_star']:.0f} | "
                         f"{val['ks_tn']:.3f} | {val['ks_fn']:.3f} |")  # fmt: skip
        init = scal[(scal.epoch == 0) & (scal.quantity == "ks_prior")]
        if len(init):
            lines.append("")
            lines.append("KS distance of the initial scores to the variance-gamma prior (Lemma 3.1): "
                         + ", ".join(f"{loss} {v:.3f}" for loss, v in init.groupby("loss", sort=False).measured.mean().items()))  # fmt: skip
    if len(posterior):
        lines += ["", "## BNS posterior P(fn | x) (eq. 4.14-4.16, popularity prior): reliability at the last probe epoch", "",
                  "| loss | bin | predicted | observed | ratio |", "|---|---|---|---|---|"]  # fmt: skip
        for (loss, prior), g in posterior.groupby(["loss", "prior"], sort=False):
            gl = g[g.epoch == g.epoch.max()].groupby("bin")[["predicted", "observed"]].mean()
            for b, r in gl.iterrows():
                lines.append(
                    f"| {loss}, prior {prior} | {b} | {r.predicted:.4f} | {r.observed:.4f} | {r.observed / r.predicted:.2f} |"
                )
    return "\n".join(lines) + "\n"


def figure(df: pd.DataFrame, posterior: pd.DataFrame) -> Figure:
    """Training vs the three simulations at the last probe epoch, and BNS's reliability diagram.

    One panel per loss (each estimator's MSE, 95 % intervals over seeds, log scale) and the
    reliability diagram (both priors, pooled over the losses).

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table.
    posterior : pandas.DataFrame
        The ``posterior_calibration.csv`` table.

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    from matplotlib.figure import Figure

    mse = df[df.quantity == "mse"]
    losses = list(dict.fromkeys(mse.loss))
    n = len(losses) + 2  # the reliability diagram and a panel for the legend
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.6 * cols, 3.2 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    x = np.arange(len(ESTIMATORS))
    styles = {"measured": ("k", "o", "training (measured)"), "simulated_parametric": ("C0", "v", "parametric (mse_study)"),
              "simulated_calibrated": ("C3", "s", "calibrated (thesis laws, fitted parents)"),
              "simulated_resampled": ("C2", "D", "resampled (bootstrap of the measured laws)")}  # fmt: skip
    handles: list = []
    for ax, loss in zip(axes, losses):
        g = mse[mse.loss == loss]
        g = g[g.epoch == g.epoch.max()]
        handles = []
        for j, (col, (c, mk, lab)) in enumerate(styles.items()):
            stats = [_ci(g[g.estimator == e][col]) for e in ESTIMATORS]
            m = np.array([s[0] for s in stats])
            h = np.nan_to_num(np.array([s[1] for s in stats]))
            handles.append(ax.errorbar(x + (j - 1.5) * 0.12, m, yerr=np.minimum(h, 0.95 * m), fmt=mk, color=c, ms=5, capsize=2,
                                       label=lab))  # fmt: skip
        ax.set_yscale("log")
        ax.set_xticks(x, ESTIMATORS, rotation=30, fontsize=8)
        ax.set_title(f"{loss}, epoch {int(g.epoch.max())}", fontsize=9)
        ax.set_ylabel("MSE of the TN-mean estimate", fontsize=8)
        ax.grid(alpha=0.3, which="both")
    ax = axes[len(losses)]
    if len(posterior):
        last = posterior[posterior.epoch == posterior.groupby("loss").epoch.transform("max")]
        for k, prior in enumerate(dict.fromkeys(last.prior)):
            gl = last[last.prior == prior].groupby("bin")[["predicted", "observed"]].mean()
            ax.plot(gl.predicted, gl.observed, marker="o", ms=3, color=f"C{k + 4}", label=f"prior {prior}")
        pos = last[["predicted", "observed"]].to_numpy()
        lo = max(np.nanmin(pos[pos > 0]), 1e-7)
        ax.plot([lo, 1.0], [lo, 1.0], "k:", lw=1, label="perfect calibration")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(fontsize=6.5, loc="upper left")
    ax.set_xlabel("BNS predicted P(fn | x), eq. 4.14", fontsize=8)
    ax.set_ylabel("observed false-negative rate", fontsize=8)
    ax.set_title("BNS posterior reliability, last epoch\n(10 equal-count bins, mean over losses and seeds)", fontsize=8)
    leg = axes[len(losses) + 1]
    leg.axis("off")
    if handles:
        leg.legend(handles=handles, loc="center", fontsize=8, title="MSE panels (mean ± 95 % over seeds)", title_fontsize=8)
    for extra in axes[len(losses) + 2 :]:
        extra.set_visible(False)
    return fig


# ------------------------------------------------------------------------------------------
# the command
# ------------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    """Entry point of ``negtheory reproduce sim-vs-train``: train, probe, simulate, write the outputs.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of :func:`add_arguments`.

    Returns
    -------
    int
        The process's exit code: 0 on success (errors raise).
    """
    import pandas as pd

    from ..recsys import load_split

    out = check_paths(args.out if args.out is not None else default_output("sim_vs_train", args.quick),
                      {"--train": args.train, "--test": args.test})  # fmt: skip
    if args.quick:
        seeds, epochs, every, losses, anchors = 1, 4, 2, ["rns", "infonce"], 2048
        losses = [x for x in args.losses if x in ("rns", "infonce")] or losses
    else:
        seeds, epochs, every, losses, anchors = (
            args.seeds,
            args.epochs,
            args.probe_every,
            list(dict.fromkeys(args.losses)),
            args.anchors,
        )
    if any(x in MF_LOSSES for x in losses):
        from .._cli_common import require_torch

        require_torch("negtheory reproduce sim-vs-train (mini-batch losses)")
    settings = (epochs, every, args.negatives, anchors, args.fit_size, args.reps)
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    tasks = [(loss, s) for loss in losses for s in range(seeds)]
    files = [runs / _cache_name(args.train, args.test, loss, s, settings, args.format) for loss, s in tasks]
    recs: dict[int, dict] = {i: json.loads(f.read_text()) for i, f in enumerate(files) if f.exists()}
    todo = [i for i in range(len(tasks)) if i not in recs]
    executor, close = connect_executor(args)
    local_serial = args.executor == "local" and args.jobs == 1
    bar = None
    if not args.quiet:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc="sim-vs-train runs", unit="run")
    t0 = time.perf_counter()
    try:
        if todo:
            data = load_split(args.train, args.test, format=args.format)
            jobs = [(*tasks[i], settings, not args.quiet and local_serial) for i in todo]
            for j, rec in run_jobs(_job, data, jobs, executor=executor, jobs=args.jobs):
                i = todo[j]
                # through JSON whether stored or not: a fresh, a resumed and a remote run give the same numbers
                text = json.dumps(rec, default=float)
                tmp = files[i].with_suffix(".tmp")
                tmp.write_text(text)
                tmp.replace(files[i])
                recs[i] = json.loads(text)
                if bar is not None:
                    bar.update()
    finally:
        close()
        if bar is not None:
            bar.close()
    parts: dict[str, list] = {"sim_vs_train": [], "ablations": [], "posterior": [], "score_laws": [], "history": []}
    for i, (loss, _) in enumerate(tasks):
        rec = recs[i]
        for h in rec["history"]:  # runs stored before "train_loss" had the training loss under "loss"
            if h.get("loss") != loss:
                h["train_loss"] = h.pop("loss")
                h["loss"] = loss
        for k in parts:
            parts[k].extend(rec[k])
    frames = {k: pd.DataFrame(v) for k, v in parts.items()}
    cols = ["epoch", "seed", "loss", "quantity", "estimator", "measured", "simulated_parametric", "simulated_calibrated",
            "simulated_resampled"]  # fmt: skip
    df = frames["sim_vs_train"][cols]
    df.to_csv(out / "sim_vs_train.csv", index=False)
    frames["ablations"].to_csv(out / "ablations.csv", index=False)
    frames["posterior"].to_csv(out / "posterior_calibration.csv", index=False)
    frames["score_laws"].to_csv(out / "score_laws.csv", index=False)
    frames["history"].to_csv(out / "history.csv", index=False)
    head = [
        f"# Simulation vs training on {Path(args.train).name} / {Path(args.test).name}",
        "",
        f"losses {', '.join(losses)}; seeds {seeds}; epochs {epochs}, probed every {every}; N = {args.negatives}; "
        f"{anchors} eval anchors and {args.fit_size} fit items per user per probe; {args.reps} simulated anchors per eval anchor"
        + ("; QUICK smoke run" if args.quick else "")
        + f"; training and probing {_run_seconds(frames['history']):.0f} s over the runs (this invocation {time.perf_counter() - t0:.0f} s)",
        "",
    ]
    md = "\n".join(head) + verdict(df, frames["ablations"], frames["posterior"])
    (out / "sim_vs_train.md").write_text(md)
    fig = figure(df, frames["posterior"])
    if args.quick:
        fig.suptitle("QUICK smoke run (1 seed, 4 epochs): not a result", color="C3", fontsize=10)
    fig.savefig(out / "sim_vs_train.png", dpi=130)
    print(md)
    print(f"wrote {out / 'sim_vs_train.csv'}, {out / 'sim_vs_train.md'}, {out / 'sim_vs_train.png'} and the other CSVs in {out}")
    return 0
