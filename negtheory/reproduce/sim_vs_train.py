r"""``negtheory reproduce sim-vs-train``: do the simulations, fed with what training measures, predict training?

Protocol. A model (MF, d = 32, or LightGCN for the mini-batch losses) is trained on a split with the
one recommendation trainer, :func:`negtheory.training.fit`: BPR by batch-1 SGD with RNS or BNS (the
thesis's ch. 4 settings, :data:`~negtheory.training.THESIS_BPR_MF`) or mini-batch InfoNCE / DCL / HCL / BCL
(the released code's ch. 5-6 settings, :data:`~negtheory.training.RELEASED_MINIBATCH_MF`, t = 1). A
validation split (``--valid-fraction`` of train, seeded by the run's seed) is carved out and not
trained on. A :class:`negtheory.recsys.score_probe.ScoreProbe` measures, at initialisation and at
each ``--probe-epochs`` epoch, on two **disjoint halves** of every user's unlabeled items fixed for
the run: the eval half gives the eval batches (training pairs as anchors, N = ``--negatives``
unlabeled items each) on which each estimator's real squared error is measured, with the **test
interactions as false-negative labels** (read by the probe only); the fit half gives ``--redraws``
independent fit batches, from which alone the simulations are fitted. The estimators' alpha and
tau+ and the simulations' alpha come from the validation labels (no test label): see
:mod:`negtheory.recsys.score_probe`.

At every probe point and for each fit batch, the same estimators (biased, DCL, HCL, BCL,
self-normalised BCL; eq. 6.45-6.48) run on simulated score sets of the same users
(:mod:`negtheory.calibration`):

* ``calibrated`` — the class-conditional laws of the order-statistic family (a true negative the
  smallest and a false negative the largest of k parent draws with probability 2 alpha - 1;
  :func:`negtheory.calibration.class_conditional_cdf`), with (alpha, k) fitted to the label-free
  validation AUC A (:func:`negtheory.calibration.law_from_auc`: the thesis's alpha = 3/2 A - 1/4 at
  k = 2 up to A = 5/6, then alpha = 1 and k > 2), each user's false-negative share from the user's
  activity (``ProbeRecord.tau_user_hat``, split sizes only), each user's parent law fitted to the
  user's fit batch (eq. 6.29 inverted) and, above the batch, the fit half's own 64 largest scores
  (the parent reaches the fit half's maximum, exchangeable with the eval half's), and the user's
  measured training positives;
* ``thesis_laws`` — the same with the thesis's laws (k = 2, alpha clipped at 1): its own reading;
* three **controls**, the same model but for one ingredient: ``blind`` (alpha = 1/2, no signal in
  the labels' law), ``auc_recipe`` (alpha = the training AUC, the thesis's eq. 6.21 recipe) and
  ``oracle`` (told the truth: each user's false-negative share and false-negative scores from the
  fit half's test labels, pooled over the fit redraws, true negatives from the fit batch's and,
  above it, the fit half's largest true-negative scores, and a pooled within-user rank law only
  for a user without a labelled false negative);
* ``parametric`` — :func:`negtheory.studies.mse_study` at the estimated (alpha, tau+, N), Algorithm
  6's default parent (its own panel: it misses by orders of magnitude).

**The oracle's ablation ladder** (``ablations.csv``, :func:`oracle_ablation_table`): the oracle as
first built (one pooled tau+ and one pooled false-negative rank law), then each user's tau+, then
each user's false-negative law, then the anchor's own positive, and the eval batches resampled
i.i.d. per user (a check of the independence given the user, not a simulation).

**Verdicts** under the rule committed before the runs (:mod:`negtheory.reproduce.sim_rule`): one
verdict per (loss, probe epoch) cell over its five estimators, from Bonferroni-simultaneous 95 %
intervals over seeds of r = log(simulated / measured MSE) per seed (the mean over the fit redraws);
confirmed only when the oracle and the model lie inside the 1.5x band, the model is not measurably
further from 1 than the oracle and measurably closer than the blind control (:func:`verdict_table`).

Outputs (``--out``): ``sim_vs_train.csv`` (tidy: ``epoch, seed, redraw, loss, quantity, estimator,
measured, simulated_<source>``; quantities ``mse``, ``trimmed_mse`` (top 0.1 % of anchors dropped),
``median_se``, ``top_share`` (share of the squared error carried by the top 0.1 % of anchors), and
the scalar probes), ``verdicts.csv``, ``ablations.csv``, ``posterior_calibration.csv``,
``score_laws.csv``, ``history.csv``, ``sim_vs_train.md`` and ``sim_vs_train.png``. Every finished
(loss, seed) is kept in ``OUT/runs/`` and reused by a rerun with the same settings; each is one job
seeded by its seed alone (``--jobs``, ``--executor local|dask|ADDRESS``).
"""

from __future__ import annotations

import hashlib
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._cli_common import OUTPUT_ROOT, default_output, integer, real
from ._common import add_executor_arguments, add_format_argument, check_paths, connect_executor
from .engine import Plan, RunSpec, execute
from .sim_rule import BAND

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    import pandas as pd
    from matplotlib.figure import Figure

    from .._typing import RNGLike
    from ..recsys.interactions import Interactions
    from ..recsys.score_probe import ProbeRecord

HELP = "probe real training (test items as false-negative labels) and test the simulations' predicted MSE with intervals and controls"

__all__ = [
    "HELP",
    "add_arguments",
    "run",
    "simulate_point",
    "run_one",
    "verdict_table",
    "per_seed_log_ratios",
    "oracle_ablation_table",
    "verdict",
    "figure",
    "SGD_LOSSES",
    "MF_LOSSES",
    "SOURCES",
    "CONTROLS",
    "VARIANTS",
    "ORACLE_VARIANTS",
    "ESTIMATORS",
    "family_laws",
]

SGD_LOSSES = ("rns", "bns")
MF_LOSSES = ("infonce", "dcl", "hcl", "bcl")
ESTIMATORS = ("biased", "dcl", "hcl", "bcl", "bcl_norm")
#: the simulations of every probe point: the model, its three controls, and the parametric study
SOURCES = ("calibrated", "thesis_laws", "blind", "auc_recipe", "oracle", "parametric")
CONTROLS = ("blind", "auc_recipe", "oracle")
QUANTITIES = ("mse", "trimmed_mse", "median_se", "top_share")
SCALARS = (
    "alpha",
    "alpha_model",
    "alpha_valid_auc",
    "alpha_hat",
    "alpha_at_bound",
    "order_hat",
    "order_at_bound",
    "tau_plus",
    "tau_plus_hat",
    "train_auc",
    "k_star",
    "ks_tn",
    "ks_fn",
    "ks_prior",
)
#: ablations of the calibrated model (fit batch 0), each replacing one ingredient
VARIANTS = (
    "no_tail",
    "gpd_tail",
    "alpha_test_labels",
    "parent_normal",
    "tau_user",
    "tau_global",
    "positives_phi_fn",
    "parametric_range",
)
#: the oracle's ablation ladder (fit batch 0): each assumption replaced by its empirical truth
ORACLE_VARIANTS = ("oracle_pooled", "oracle_user_tau", "oracle_anchor_positive", "eval_bootstrap")
# the ladder's steps in order, with their labels in the reports ("oracle" is the judged source itself)
_LADDER = (
    ("oracle_pooled", "one pooled tau+, pooled FN ranks"),
    ("oracle_user_tau", "+ each user's tau+"),
    ("oracle", "+ each user's FN law (the oracle judged)"),
    ("oracle_anchor_positive", "+ the anchor's own positive"),
    ("eval_bootstrap", "the eval batches, i.i.d. per user (check)"),
)
GOAL = BAND  # the verdict band: one constant, in the committed rule
DEFAULT_PROBE_EPOCHS = (1, 2, 5, 10, 20)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``negtheory reproduce sim-vs-train`` (no torch import here).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser; the options are added to it in place.
    """
    p.add_argument(
        "--train",
        default=None,
        help="training interactions (with --test; default: none, or give --data): CSV user,item[,rating], MovieLens "
        "u.data or ratings.dat, Yahoo!-R3, LightGCN (--format)",
    )
    p.add_argument(
        "--test",
        default=None,
        help="test interactions (the false-negative labels of the probes), same format (default: none)",
    )
    p.add_argument(
        "--data",
        default=None,
        help="all interactions in one file, split at random (--test-fraction, "
        "--split-seed) instead of --train/--test (e.g. MovieLens-1M, the thesis's protocol; default: none)",
    )
    p.add_argument(
        "--test-fraction",
        type=real(0.0, 1.0, lo_open=True, hi_open=True),
        default=0.2,
        help="with --data: share of the interactions in the test split (default: 0.2)",
    )
    p.add_argument(
        "--split-seed",
        type=integer(0),
        default=0,
        help="with --data: seed of the random split (default: 0)",
    )
    add_format_argument(p)
    p.add_argument(
        "--losses",
        nargs="+",
        default=list(SGD_LOSSES + MF_LOSSES),
        choices=SGD_LOSSES + MF_LOSSES,
        help="rns / bns: BPR-MF by batch-1 SGD with that sampler; infonce / dcl / hcl / bcl: mini-batch training (default: all six)",
    )
    p.add_argument(
        "--model",
        choices=("mf", "lightgcn"),
        default="mf",
        help="the mini-batch losses' model (rns / bns always train MF; default: mf)",
    )
    p.add_argument(
        "--seeds",
        type=integer(2),
        default=5,
        help="seeds 0 .. N-1 (the verdicts' intervals are over them; at least 2; default: 5)",
    )
    p.add_argument(
        "--epochs", type=integer(1), default=20, help="training epochs of every run (default: 20)"
    )
    p.add_argument(
        "--probe-epochs",
        type=integer(1),
        nargs="+",
        default=list(DEFAULT_PROBE_EPOCHS),
        help="epochs probed (and evaluated), besides initialisation; those beyond --epochs are dropped (default: 1 2 5 10 20)",
    )
    p.add_argument(
        "--valid-fraction",
        type=real(0.0, 1.0, lo_open=True, hi_open=True),
        default=0.1,
        help="share of the training pairs held out as the validation split (the label-free alpha; default: 0.1)",
    )
    p.add_argument(
        "--negatives",
        type=integer(1),
        default=5,
        help="N unlabeled items per probe anchor (and mini-batch negatives; default: 5)",
    )
    p.add_argument(
        "--anchors",
        type=integer(16),
        default=40000,
        help="eval anchors (training pairs) per probe point, at most half of them (default: 40000)",
    )
    p.add_argument(
        "--fit-size",
        type=integer(2),
        default=256,
        help="items per user in each fit batch (from the fit half; default: 256)",
    )
    p.add_argument(
        "--redraws",
        type=integer(1),
        default=3,
        help="independent fit batches per probe point (default: 3)",
    )
    p.add_argument(
        "--reps", type=integer(1), default=4, help="simulated anchors per eval anchor (default: 4)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 2 seeds, 4 epochs probed at 1, 2, 4, rns and infonce, 2048 anchors, 2 redraws: not a result",
    )
    p.add_argument(
        "--out",
        default=None,
        help=f"output folder; finished runs are kept in OUT/runs/ and reused (default: "
        f"{OUTPUT_ROOT}/sim_vs_train, or sim_vs_train_quick with --quick)",
    )
    add_executor_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")


# ------------------------------------------------------------------------------------------
# simulations at one probe point
# ------------------------------------------------------------------------------------------
def _summ(r: dict) -> dict:
    return {
        k: float(r[k])
        for k in ("mse", "mse_se", "mean", "truth_mean", "median_se", "trimmed_mse", "top_share")
        if k in r
    }


def simulate_point(
    rec: ProbeRecord,
    *,
    t: float = 1.0,
    reps: int = 4,
    rng: RNGLike = 0,
    sources: Sequence[str] = SOURCES,
    ablations: bool = True,
) -> tuple[dict, dict]:
    """The calibrated simulation, its three controls and the parametric study at one probe point.

    Parameters
    ----------
    rec : ProbeRecord
        What the probe measured (:func:`negtheory.recsys.score_probe.probe_scores`).
    t : float
        Temperature of the map exp(s / t).
    reps : int
        Simulated anchors per measured eval anchor (same users, so users weigh as in training).
    rng : int, SeedSequence, Generator or None
        Seed of the simulations; probe point e, fit batch d use ``SeedSequence([seed, e, d])``.
    sources : sequence of str
        The sources to simulate (default: all of :data:`SOURCES`); each has its own stream, so a
        source's numbers do not depend on which others are asked for.
    ablations : bool
        Also run the ablations on fit batch 0 (default True).

    Returns
    -------
    main, ablations : dict
        ``main[source]``: a list over the fit batches of ``{estimator: result}`` (the result dicts
        of :func:`negtheory.calibration.estimator_errors`); ``source`` in ``sources``
        (``parametric`` has one entry per fit batch too, the same study). ``ablations[variant]``:
        ``{estimator: result}`` on fit batch 0 (empty without ``ablations``).
    """
    from .. import calibration as cal
    from .._rng import int_seed
    from ..studies import Execution, Generation, mse_study

    m = rec.measured
    n = int(m["n"])
    alpha_est, tau = float(m["est_alpha"]), float(m["est_tau_plus"])
    laws = family_laws(m)
    alpha_gen = laws["alpha_hat"]
    # each user's false-negative share: label-free, from the user's activity (ProbeRecord.tau_user_hat)
    tau_gen = rec.tau_user_hat if rec.tau_user_hat.size else tau
    par = dict(t=t, alpha=alpha_est, tau_plus=tau, beta=0.5, hcl_beta=0.5)
    base = int_seed("rng", rng)
    users = np.tile(rec.eval_users, reps)
    posq = cal.UserQuantiles(rec.fit_pos)

    def errors(sets):
        return {k: _summ(v) for k, v in cal.estimator_errors(*sets, **par).items()}

    if isinstance(sources, str) or any(not isinstance(x, str) or x not in SOURCES for x in sources):
        raise ValueError(f"sources must be a sequence of names among {SOURCES}, got {sources!r}")
    want = set(sources)

    def study(alpha, seed, **kw):
        """Algorithm 6's parametric study at (alpha, tau+, N) on as many anchors: {estimator: result}."""
        df = mse_study(
            "alpha",
            [alpha],
            n_anchors=len(users),
            n_unlabeled=n,
            tau_plus=tau,
            t=t,
            beta=0.5,
            hcl_beta=0.5,
            n_positives=1,
            estimators=ESTIMATORS,
            rng=seed,
            execution=Execution(progress=False),
            **kw,
        )
        keys = ("mse", "mse_se", "mean", "truth_mean")
        return {r["estimator"]: {k: float(r[k]) for k in keys} for r in df.to_dict("records")}

    parametric = (
        study(alpha_est, np.random.SeedSequence([base, rec.epoch, 999]))
        if "parametric" in want
        else {}
    )
    # the oracle's labels and false-negative laws per user, from every fit redraw's test labels
    all_unl = np.concatenate([fb.unlabeled for fb in rec.fits], axis=1)
    all_fn = np.isfinite(all_unl) & ~np.concatenate([fb.tn for fb in rec.fits], axis=1)
    n_lab = np.isfinite(all_unl).sum(axis=1)
    tau_oracle = np.clip(all_fn.sum(axis=1) / np.maximum(n_lab, 1), 0.0, 0.999)
    fn_user = cal.UserQuantiles(np.where(all_fn, all_unl, np.nan))
    main: dict[str, list] = {s: [] for s in SOURCES if s in want}
    ab: dict[str, dict] = {}
    for d, fb in enumerate(rec.fits):
        seeds = [
            int(s.generate_state(1)[0])
            for s in np.random.SeedSequence([base, rec.epoch, d]).spawn(16)
        ]
        # the parent: the fit batch's quantiles, and above them the fit half's own largest scores
        has_top = rec.fit_top.size > 0
        upper = (rec.fit_top, rec.n_fit_half) if has_top else None
        unl = cal.UserQuantiles(fb.unlabeled, upper=upper)

        def calibrated(seed, unl=unl, **kw):
            kw = {
                "alpha": laws["alpha_order"],
                "order": laws["order_hat"],
                "tau_plus": tau_gen,
                "positive_scores": posq,
                **kw,
            }
            return errors(cal.simulate_calibrated(unl, users, n, rng=seed, **kw))

        a_auc = min(max(float(m["train_auc"]), 0.5), 1.0)
        for src, seed, kw in (
            ("calibrated", seeds[0], {}),
            ("thesis_laws", seeds[11], dict(alpha=alpha_gen, order=2.0)),
            ("blind", seeds[1], dict(alpha=0.5, order=2.0)),
            ("auc_recipe", seeds[2], dict(alpha=a_auc, order=2.0)),
        ):
            if src in want:
                main[src].append(calibrated(seed, **kw))
        ranks = np.clip(fb.fn_ranks, 1e-12, 1.0)
        # the oracle's true negatives: the batch's labelled TN scores, and above them the fit half's
        # largest TN scores (the same upper tail as the model's parent: the control is not handicapped)
        tn_upper = (rec.fit_top_tn, rec.n_tn_half) if rec.fit_top_tn.size else None
        tnq = cal.UserQuantiles(np.where(fb.tn, fb.unlabeled, np.nan), upper=tn_upper)

        def oracle(seed, tau_plus=tau_oracle, fn=fn_user, tnq=tnq, ranks=ranks, unl=unl):
            return cal.simulate_resampled(
                tnq,
                ranks,
                unl,
                users,
                n,
                tau_plus=tau_plus,
                positive_scores=posq,
                fn_user=fn,
                rng=seed,
            )

        if "oracle" in want:
            main["oracle"].append(errors(oracle(seeds[3])) if ranks.size else {})
        if "parametric" in want:
            main["parametric"].append(parametric)
        if d or not ablations:
            continue
        ab["no_tail"] = calibrated(seeds[4], unl=cal.UserQuantiles(fb.unlabeled))
        ab["gpd_tail"] = calibrated(seeds[10], unl=cal.UserQuantiles(fb.unlabeled, tail="auto"))
        ab["alpha_test_labels"] = calibrated(seeds[5], alpha=float(m["alpha_model"]), order=2.0)
        ab["parent_normal"] = calibrated(seeds[6], alpha=alpha_gen, order=2.0, parent="normal")
        tau_u = np.where(np.isfinite(fb.tau_user), np.clip(fb.tau_user, 0.0, 0.999), tau)
        ab["tau_user"] = calibrated(seeds[7], tau_plus=tau_u)
        ab["tau_global"] = calibrated(seeds[12], tau_plus=tau)
        ab["positives_phi_fn"] = calibrated(seeds[8], positives="phi_fn")
        lo, hi = np.nanpercentile(fb.unlabeled, [1.0, 99.0])
        interval = (float(lo), float(max(hi, lo + 1e-9)))
        ab["parametric_range"] = study(
            alpha_gen, seeds[9], generation=Generation(base_interval=interval)
        )
        if ranks.size:
            # the oracle's ablation ladder (module notes): each assumption against its empirical truth
            ab["oracle_pooled"] = errors(oracle(seeds[13], tau_plus=tau, fn=None))
            ab["oracle_user_tau"] = errors(oracle(seeds[14], fn=None))
            neg, tn, _ = oracle(seeds[15])
            ab["oracle_anchor_positive"] = errors((neg, tn, np.tile(rec.eval_pos, reps)))
        ab["eval_bootstrap"] = errors(_eval_bootstrap(rec, reps, seeds[15]))
    return main, ab


def _eval_bootstrap(rec: ProbeRecord, reps: int, seed: int):
    """Score sets resampled i.i.d. per user from the eval batches' own (score, label) pairs.

    A diagnostic, not a simulation (it reads the judged side): if the measured MSE is that of N
    independent draws from each user's law, with the anchor's own positive, this reproduces it; what
    the oracle then misses is the fit half's estimate of those laws.
    """
    g = np.random.default_rng(seed)
    n = rec.eval_neg.shape[1]
    flat_u = np.repeat(rec.eval_users, n)
    order = np.argsort(flat_u, kind="stable")
    su, ss, st = flat_u[order], rec.eval_neg.ravel()[order], rec.eval_tn.ravel()[order]
    n_users = rec.fit_pos.shape[0]
    start = np.searchsorted(su, np.arange(n_users))
    count = np.searchsorted(su, np.arange(n_users), side="right") - start
    users = np.tile(rec.eval_users, reps)[:, None]
    idx = start[users] + np.minimum(
        (g.random((users.shape[0], n)) * count[users]).astype(np.int64), count[users] - 1
    )
    return ss[idx], st[idx], np.tile(rec.eval_pos, reps)


def family_laws(measured: dict) -> dict:
    """The simulations' class laws from a probe's label-free AUC, in both families.

    Parameters
    ----------
    measured : dict
        A probe record's ``measured`` (``alpha_valid_auc``, the validation AUC corrected for the
        hidden held-out items; ``alpha`` from the test labels where it is missing).

    Returns
    -------
    dict
        ``alpha_hat`` and ``thesis_at_bound`` (the thesis's laws, :func:`negtheory.calibration.alpha_from_auc`),
        ``alpha_order``, ``order_hat`` and ``order_at_bound`` (the order-statistic family,
        :func:`negtheory.calibration.law_from_auc`).
    """
    from .. import calibration as cal

    a = float(measured.get("alpha_valid_auc", math.nan))
    if not np.isfinite(a):
        a = float(measured.get("alpha", 0.5))
    a = min(max(a, 0.0), 1.0) if np.isfinite(a) else 0.5
    alpha_t, _, bound_t = cal.law_from_auc(a, family="thesis")
    alpha_o, k_o, bound_o = cal.law_from_auc(a, family="order")
    return dict(
        alpha_hat=float(alpha_t),
        thesis_at_bound=float(bound_t),
        alpha_order=float(alpha_o),
        order_hat=float(k_o),
        order_at_bound=float(bound_o),
    )


# ------------------------------------------------------------------------------------------
# one (loss, seed)
# ------------------------------------------------------------------------------------------
def _train(data, loss, seed, epochs, model, negatives, probe, progress):
    from .. import training as T

    common = dict(
        epochs=epochs,
        evaluation=T.Evaluation(ks=(10,)),
        rng=seed,
        progress=progress,
        callbacks=[probe],
    )
    if (
        loss in SGD_LOSSES
    ):  # the thesis's BPR-MF of ch. 4 (THESIS_BPR_MF), one RNS or BNS negative per pair
        return T.fit(
            data,
            model=T.MF(),
            loss=T.BPR(),
            sampler={"rns": T.RNS, "bns": T.BNS}[loss](),
            optimizer=T.SGD(),
            **common,
        )
    # the released code of ch. 5-6 (RELEASED_MINIBATCH_MF): Adam lr 1e-3, weight decay 1e-5, batch 1024, lr / 10 after 100
    spec = {"infonce": T.InfoNCE, "dcl": T.DCL, "hcl": T.HCL, "bcl": T.BCL}[loss](
        negatives=negatives
    )
    return T.fit(
        data,
        model=T.LightGCN() if model == "lightgcn" else T.MF(),
        loss=spec,
        sampler=T.RNS(),
        optimizer=T.Adam(milestones=(100,)),
        device="cpu",
        **common,
    )


def _prior(data: Interactions, loss: str, dim: int = 32) -> tuple[int, float]:
    """(d, lam) of the variance-gamma law of the initial MF scores (Lemma 3.1): the product of the two
    initial standard deviations (N(0, 0.1^2) for SGD; Xavier-normal for the mini-batch MF)."""
    if loss in SGD_LOSSES:
        return dim, 0.1 * 0.1
    su = math.sqrt(2.0 / (dim + data.n_users))
    si = math.sqrt(2.0 / (dim + data.n_items))
    return dim, su * si


def run_one(
    data: Interactions, loss: str, rng: RNGLike, *, settings: dict, progress: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """Train one (loss, seed) with the probe and simulate every probe point.

    Parameters
    ----------
    data : Interactions
        The split (train / test); a validation split of ``settings["valid_fraction"]`` of the
        training pairs is carved out here, seeded by the run's seed.
    loss : {"rns", "bns", "infonce", "dcl", "hcl", "bcl"}
        ``rns`` / ``bns``: BPR-MF by batch-1 SGD with that sampler; the others: mini-batch training
        (torch extra, on the CPU) of ``settings["model"]``.
    rng : int, SeedSequence or Generator
        Seeds the training and the validation split; the probe uses that seed + 1000 and the
        simulations the seed itself.
    settings : dict
        ``epochs``, ``probe_epochs``, ``valid_fraction``, ``negatives``, ``anchors``,
        ``fit_size``, ``redraws``, ``reps``, ``model``.
    progress : bool
        Show the training's progress bar.

    Returns
    -------
    dict
        Lists of rows: ``sim_vs_train``, ``ablations``, ``posterior``, ``score_laws``, ``history``,
        ``probe_seconds``.
    """
    from .._rng import int_seed
    from ..calibration import class_conditional_ppf
    from ..recsys.score_probe import LAW_LEVELS, ScoreProbe, finish

    seed = int_seed("rng", rng)
    s = settings
    data = data.with_validation(s["valid_fraction"], rng=seed)
    epochs_probed = [e for e in s["probe_epochs"] if e <= s["epochs"]]
    model = s["model"] if loss in MF_LOSSES else "mf"
    probe = ScoreProbe(
        data,
        rng=seed + 1000,
        epochs=[0, *epochs_probed],
        n_negatives=s["negatives"],
        n_anchors=s["anchors"],
        fit_size=s["fit_size"],
        redraws=s["redraws"],
        t=1.0,
        prior=_prior(data, loss) if model == "mf" else None,
    )
    t0 = time.perf_counter()
    res = _train(data, loss, seed, s["epochs"], model, s["negatives"], probe, progress)
    seconds = time.perf_counter() - t0
    by_epoch = {rec.epoch: rec.measured for rec in probe.records}
    base = dict(loss=loss, seed=seed)
    out: dict[str, list] = {
        "sim_vs_train": [],
        "ablations": [],
        "posterior": [],
        "score_laws": [],
        "history": [],
    }
    for h in res.history:
        row = {("train_loss" if k == "loss" else k): float(v) for k, v in h.items()}
        m = by_epoch.get(int(h["epoch"]), {})
        # the probe's own cost goes to the history (timings), never into the tables that must equal across executors
        row.update(
            {
                f"probe_{k}": float(m[k])
                for k in ("alpha", "alpha_hat", "tau_plus", "train_auc")
                if k in m
            }
        )
        if "probe_seconds" in m:
            row["probe_seconds"] = float(m["probe_seconds"])
        out["history"].append(dict(base, **row, seconds=seconds))
    empty = {f"simulated_{src}": math.nan for src in SOURCES}
    for rec in probe.records:
        finish(rec)
        m = rec.measured
        laws = family_laws(m)
        m.update(order_hat=laws["order_hat"], order_at_bound=laws["order_at_bound"])
        b = dict(base, epoch=rec.epoch)
        for q in SCALARS:
            if q in m:
                out["sim_vs_train"].append(
                    dict(b, redraw=0, quantity=q, estimator="", measured=float(m[q]), **empty)
                )
        for kind in ("tn", "fn"):
            theory = class_conditional_ppf(LAW_LEVELS, kind, m["alpha_hat"])
            for lev, meas_q, th in zip(LAW_LEVELS, rec.law_quantiles[kind], theory):
                out["score_laws"].append(
                    dict(
                        b,
                        law=kind,
                        level=float(lev),
                        measured=float(meas_q),
                        theory=float(th),
                        alpha_hat=float(m["alpha_hat"]),
                        ks=float(m[f"ks_{kind}"]),
                    )
                )
        if rec.epoch == 0:
            continue  # untrained scores: every estimator is exact up to the rare false negative
        main, ab = simulate_point(rec, reps=s["reps"], rng=seed)
        for est in ESTIMATORS:
            for d in range(len(rec.fits)):
                for q in QUANTITIES:
                    row = dict(
                        b, redraw=d, quantity=q, estimator=est, measured=float(m[f"{q}_{est}"])
                    )
                    for src in SOURCES:
                        r = main[src][d].get(est, {})
                        row[f"simulated_{src}"] = float(r.get(q, math.nan))
                    out["sim_vs_train"].append(row)
            for var, r in ab.items():
                out["ablations"].append(
                    dict(
                        b,
                        estimator=est,
                        variant=var,
                        measured=float(m[f"mse_{est}"]),
                        simulated=float(r[est]["mse"]),
                    )
                )
        for prior, col in (("popularity / n_train (eq. 4.16)", 0), ("popularity / n_users", 2)):
            pred, obs = rec.posterior[:, col], rec.posterior[:, 1]
            ok = np.isfinite(pred)
            order = np.argsort(pred[ok], kind="stable")
            for k, idx in enumerate(np.array_split(order, 10)):
                if idx.size:
                    out["posterior"].append(
                        dict(
                            b,
                            prior=prior,
                            bin=k,
                            predicted=float(pred[ok][idx].mean()),
                            observed=float(obs[ok][idx].mean()),
                            n=int(idx.size),
                        )
                    )
    return out


def _job(data: Interactions, task: tuple) -> dict:
    """Worker: one (loss, seed) -> :func:`run_one`'s rows (top level, so that workers import it)."""
    loss, seed, settings, progress = task
    return run_one(data, loss, seed, settings=dict(settings), progress=progress)


def _cache_name(ident: str, loss: str, seed: int) -> str:
    return f"{loss}_seed{seed}_" + hashlib.sha1(ident.encode()).hexdigest()[:10] + ".json"


# ------------------------------------------------------------------------------------------
# verdicts from intervals
# ------------------------------------------------------------------------------------------
def per_seed_log_ratios(df: pd.DataFrame, source: str, quantity: str = "mse") -> pd.Series:
    """log(simulated / measured) per (loss, epoch, estimator, seed), the mean over the fit redraws.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table.
    source : str
        One of :data:`SOURCES`.
    quantity : str
        One of ``mse``, ``trimmed_mse``, ``median_se``, ``top_share`` (default ``"mse"``).

    Returns
    -------
    pandas.Series
        Indexed by (loss, epoch, estimator, seed).
    """
    if not isinstance(source, str) or source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    if not isinstance(quantity, str) or quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    d = df[(df.quantity == quantity) & (df.estimator.fillna("") != "")]
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log(d[f"simulated_{source}"].astype(float) / d.measured.astype(float))
    return lr.groupby([d.loss, d.epoch, d.estimator, d.seed], sort=False).mean()


def verdict_table(df: pd.DataFrame, quantity: str = "mse") -> pd.DataFrame:
    """The cells' verdicts under the committed rule (:mod:`negtheory.reproduce.sim_rule`), both families.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table.
    quantity : str
        The error measure judged (default ``"mse"``).

    Returns
    -------
    pandas.DataFrame
        :func:`negtheory.reproduce.sim_rule.cell_verdicts` of the calibrated model (the
        order-statistic family: ``verdict``, ``reason``, ``calibrated_*``), with the thesis's laws
        judged the same way beside it (``thesis_verdict``, ``thesis_reason``,
        ``thesis_laws_ratio / _low / _high``), and so is the thesis's alpha = training AUC recipe
        (``auc_recipe_verdict``, ``auc_recipe_ratio / _low / _high``), the share of seeds whose alpha is at a bound of each
        family (``thesis_at_bound``, ``order_at_bound``), the mean fitted order (``order_hat``) and
        ``rule`` (:data:`negtheory.reproduce.sim_rule.RULE_ID`).
    """
    from .sim_rule import RULE_ID, cell_verdicts

    if not isinstance(quantity, str) or quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    v = cell_verdicts(df, quantity, model="calibrated")
    t = cell_verdicts(df, quantity, model="thesis_laws")
    v["thesis_verdict"], v["thesis_reason"] = t.verdict.to_numpy(), t.reason.to_numpy()
    r = cell_verdicts(df, quantity, model="auc_recipe")
    v["auc_recipe_verdict"] = r.verdict.to_numpy()
    for c in ("ratio", "low", "high"):
        v[f"thesis_laws_{c}"] = t[f"thesis_laws_{c}"].to_numpy()
        v[f"auc_recipe_{c}"] = r[f"auc_recipe_{c}"].to_numpy()
    sc = df[df.estimator.fillna("") == ""].groupby(["loss", "epoch", "quantity"]).measured.mean()
    for col, q in (
        ("thesis_at_bound", "alpha_at_bound"),
        ("order_at_bound", "order_at_bound"),
        ("order_hat", "order_hat"),
    ):
        v[col] = [float(sc.get((r.loss, r.epoch, q), math.nan)) for r in v.itertuples()]
    v["rule"] = RULE_ID
    return v


def _iv(values) -> tuple[float, float, float]:
    """(mean, low, high) of the plain 95 % t interval, as ratios."""
    from .sim_rule import t_interval

    with np.errstate(over="ignore", invalid="ignore"):  # the parametric study can miss by e^700
        m, lo, hi = (float(np.exp(v)) for v in t_interval(values))
    return m, lo, hi


def oracle_ablation_table(df: pd.DataFrame, ablations: pd.DataFrame) -> pd.DataFrame:
    """The oracle's ablation ladder per (loss, epoch): each assumption replaced by its empirical truth.

    Rows, in order: the oracle as first built (one pooled tau+ and one pooled false-negative rank law,
    ``oracle_pooled``), with each user's own tau+ (``oracle_user_tau``), with each user's own
    false-negative law too (the oracle of the verdicts, all fit redraws), with the anchor's own
    positive (``oracle_anchor_positive``), and the eval batches resampled i.i.d. per user
    (``eval_bootstrap``, a check of independence given the user). Each ratio is the geometric mean
    over the five estimators of simulated / measured MSE, with its 95 % t interval over seeds.

    Parameters
    ----------
    df, ablations : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` and ``ablations.csv`` tables.

    Returns
    -------
    pandas.DataFrame
        ``loss, epoch, train_auc, step, ratio, low, high, n_seeds``.
    """
    import pandas as pd

    auc = df[df.quantity == "train_auc"].groupby(["loss", "epoch"]).measured.mean()
    main = per_seed_log_ratios(df, "oracle").groupby(level=["loss", "epoch", "seed"]).mean()
    ab = ablations.assign(r=np.log(ablations.simulated / ablations.measured))
    ab = ab.groupby(["variant", "loss", "epoch", "seed"]).r.mean() if len(ab) else ab
    rows = []
    for (loss, ep), g in main.groupby(level=["loss", "epoch"], sort=False):
        for key, label in _LADDER:
            if key == "oracle":
                vals = g.to_numpy()
            elif len(ab) and (key, loss, ep) in ab.index.droplevel("seed"):
                vals = ab.loc[(key, loss, ep)].to_numpy()
            else:
                continue
            r, lo, hi = _iv(vals)
            rows.append(
                dict(
                    loss=loss,
                    epoch=int(ep),
                    train_auc=float(auc.get((loss, ep), math.nan)),
                    step=label,
                    ratio=r,
                    low=lo,
                    high=hi,
                    n_seeds=int(np.isfinite(vals).sum()),
                )
            )
    return pd.DataFrame(rows)


def _x(v: float) -> str:
    """A ratio to two decimals (three significant digits when far off), "-" when not finite."""
    if not np.isfinite(v):
        return "-"
    return f"{v:.2f}" if 0.01 <= v < 1000 else f"{v:.3g}"


def verdict(df: pd.DataFrame, ablations: pd.DataFrame, posterior: pd.DataFrame) -> str:
    """The markdown report: cell verdicts under the committed rule, goals, the oracle's ablations, BNS.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table.
    ablations : pandas.DataFrame
        The ``ablations.csv`` table.
    posterior : pandas.DataFrame
        The ``posterior_calibration.csv`` table (BNS reliability diagram).

    Returns
    -------
    str
        The markdown text.
    """
    from . import sim_rule as rule

    vt = verdict_table(df)

    def rng_(r, src):
        return f"{_x(r[f'{src}_ratio'])} [{_x(r[f'{src}_low'])}, {_x(r[f'{src}_high'])}]"

    lines = [
        f"## Verdicts per cell under the rule `{rule.RULE_ID}` (negtheory.reproduce.sim_rule)",
        "",
        "One verdict per (loss, epoch) over its five estimators. Ratios: simulated / measured MSE, the "
        "geometric mean over the estimators, with the widest of their Bonferroni-simultaneous "
        f"{rule.LEVEL:.0%} intervals over seeds. `confirmed`: the oracle and the model inside "
        f"[1/{rule.BAND}, {rule.BAND}] for every estimator, the model measurably closer than blind; "
        "`refuted`: the model outside the band, or measurably further from 1 than the oracle, or the "
        "blind control measurably closer; `simulator off`: the oracle outside the band; "
        f"`insufficient seeds`: fewer than {rule.MIN_SEEDS}. The model is the order-statistic family "
        "(order k fitted to the validation AUC); the thesis's laws (order 2) are judged the same way.",
        "",
        "| loss | epoch | train AUC | k | model | thesis laws | blind | alpha = AUC | oracle | verdict "
        "| thesis laws' verdict | reason |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in vt.iterrows():
        lines.append(
            f"| {r.loss} | {r.epoch} | {r.train_auc:.3f} | {r.order_hat:.2f} | {rng_(r, 'calibrated')} | "
            f"{rng_(r, 'thesis_laws')} | {rng_(r, 'blind')} | {rng_(r, 'auc_recipe')} | {rng_(r, 'oracle')} | "
            f"**{r.verdict}** | "
            f"{r.thesis_verdict} | {r.reason} |"
        )
    lines += [
        "",
        "### Tally of cells",
        "",
        "| cells | family | " + " | ".join(rule.OUTCOMES) + " |",
        "|---|---|" + "---|" * len(rule.OUTCOMES),
    ]
    for label, sub in (("all", vt), (f"train AUC >= {rule.TRAINED_AUC}", vt[vt.trained])):
        for fam, col in (("order-statistic", "verdict"), ("thesis", "thesis_verdict")):
            c = sub[col].value_counts()
            lines.append(
                f"| {label} | {fam} | "
                + " | ".join(str(int(c.get(o, 0))) for o in rule.OUTCOMES)
                + " |"
            )
    tr = vt[vt.trained]
    lines += [
        "",
        f"### Goals at the trained probe points (train AUC >= {rule.TRAINED_AUC}: {len(tr)} cells)",
        "",
    ]
    if len(tr):
        for band in (rule.ORACLE_GOAL, rule.ORACLE_GOAL_LOOSE):
            ok = ((tr.oracle_low >= 1 / band) & (tr.oracle_high <= band)).sum()
            lines.append(
                f"* oracle interval inside [1/{band}, {band}]: {int(ok)} of {len(tr)} cells"
            )
        lines.append(
            f"* alpha at a bound of its family (share of seeds): order-statistic {tr.order_at_bound.mean():.0%}, "
            f"thesis's laws {tr.thesis_at_bound.mean():.0%} (goal <= {rule.MAX_AT_BOUND:.0%})"
        )
        und = int((tr.verdict == "undetermined").sum())
        lines.append(f"* undetermined cells: {und} of {len(tr)}")
    oa = oracle_ablation_table(df, ablations)
    if len(oa):
        lines += [
            "",
            "## The oracle's ablation ladder (simulated / measured MSE, geometric mean over the estimators, "
            "95 % interval over seeds)",
            "",
            "| loss | epoch | train AUC | assumption | oracle ratio [95 %] |",
            "|---|---|---|---|---|",
        ]
        for _, r in oa.iterrows():
            lines.append(
                f"| {r.loss} | {r.epoch} | {r.train_auc:.3f} | {r.step} | {_x(r.ratio)} [{_x(r.low)}, {_x(r.high)}] |"
            )
    # the parametric study, on its own
    lines += [
        "",
        "### The parametric study (Algorithm 6's default parent): simulated / measured, last epoch",
        "",
        "| loss | estimator | ratio [95 %] |",
        "|---|---|---|",
    ]
    par = per_seed_log_ratios(df, "parametric")
    for (loss, ep, est), g in par.groupby(level=["loss", "epoch", "estimator"], sort=False):
        if ep != par.xs(loss, level="loss").index.get_level_values("epoch").max():
            continue
        r, lo, hi = _iv(g.to_numpy())
        lines.append(
            f"| {loss} | {est} | {r:.2g} [{lo:.2g}, {hi:.2g}] |"
            if np.isfinite(lo)
            else f"| {loss} | {est} | {r:.2g} |"
        )
    # the tail of the measured errors
    mq = df[(df.estimator.fillna("") != "") & (df.redraw == 0)]
    lines += [
        "",
        "### Where the measured squared error sits (last epoch, mean over seeds)",
        "",
        "| loss | estimator | MSE | top 0.1 % share | trimmed MSE (top 0.1 % dropped) | median squared error |",
        "|---|---|---|---|---|---|",
    ]
    for (loss, est), g in mq.groupby(["loss", "estimator"], sort=False):
        g = g[g.epoch == g.epoch.max()]
        val = {q: float(g[g.quantity == q].measured.mean()) for q in QUANTITIES}
        lines.append(
            f"| {loss} | {est} | {val['mse']:.3g} | {val['top_share']:.2f} | {val['trimmed_mse']:.3g} | {val['median_se']:.3g} |"
        )
    # trimmed-MSE verdicts beside
    vtt = verdict_table(df, "trimmed_mse")
    if len(vtt):
        lines += [
            "",
            "### The same rule on the trimmed MSE (top 0.1 % of anchors dropped, in training and simulation)",
            "",
            "| loss | " + " | ".join(rule.OUTCOMES) + " |",
            "|---|" + "---|" * len(rule.OUTCOMES),
        ]
        for loss, g in vtt.groupby("loss", sort=False):
            c = g.verdict.value_counts()
            lines.append(
                f"| {loss} | " + " | ".join(str(int(c.get(o, 0))) for o in rule.OUTCOMES) + " |"
            )
    if len(ablations):
        lines += [
            "",
            "## Ablations of the calibrated model (fit batch 0, last epoch; simulated / measured MSE, geometric mean)",
            "",
        ]
        lastab = ablations[ablations.epoch == ablations.groupby("loss").epoch.transform("max")]
        lastab = lastab[lastab.variant.isin(VARIANTS)]
        piv = np.exp(
            lastab.assign(r=np.log(lastab.simulated / lastab.measured))
            .groupby(["variant", "estimator"])
            .r.mean()
            .unstack()
        )
        lines += [
            "| variant | " + " | ".join(ESTIMATORS) + " |",
            "|---" * (len(ESTIMATORS) + 1) + "|",
        ]
        for var in VARIANTS:
            if var in piv.index:
                lines.append(
                    f"| {var} | " + " | ".join(f"{piv.loc[var, e]:.2f}" for e in ESTIMATORS) + " |"
                )
    scal = df[df.estimator.fillna("") == ""]
    if len(scal):
        lines += [
            "",
            "## Probe quantities (mean over seeds)",
            "",
            "| loss | epoch | alpha (test labels) | validation AUC | alpha_hat | at bound | tau+ (labels) | tau+ (label-free) | train AUC | K* | KS TN | KS FN |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for (loss, ep), g in scal.groupby(["loss", "epoch"], sort=False):
            val = {
                q: float(g[g.quantity == q].measured.mean())
                if (g.quantity == q).any()
                else math.nan
                for q in SCALARS
            }
            lines.append(
                f"| {loss} | {ep} | {val['alpha']:.3f} | {val['alpha_valid_auc']:.3f} | {val['alpha_hat']:.3f} | "
                f"{val['alpha_at_bound']:.0%} | {val['tau_plus']:.4f} | {val['tau_plus_hat']:.4f} | {val['train_auc']:.3f} | "
                f"{val['k_star']:.0f} | {val['ks_tn']:.3f} | {val['ks_fn']:.3f} |"
            )
    if len(posterior):
        lines += [
            "",
            "## BNS posterior P(fn | x) (eq. 4.14-4.16): reliability at the last probe epoch",
            "",
            "| prior | bin | predicted | observed | ratio |",
            "|---|---|---|---|---|",
        ]
        last = posterior[posterior.epoch == posterior.groupby("loss").epoch.transform("max")]
        for prior, g in last.groupby("prior", sort=False):
            gl = g.groupby("bin")[["predicted", "observed"]].mean()
            for b, r in gl.iterrows():
                lines.append(
                    f"| {prior} | {b} | {r.predicted:.4f} | {r.observed:.4f} | {r.observed / r.predicted:.2f} |"
                )
    return "\n".join(lines) + "\n"


def _plain_log_ticks(ax) -> None:
    """Tick labels of a log axis as plain numbers (0.5, 1, 2, 1000), not powers of ten times a mantissa."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(fmt)
    lo, hi = ax.get_ylim()
    if hi / max(lo, 1e-300) < 100:  # minor labels (2, 5) only on an axis of at most two decades
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        ax.yaxis.set_minor_formatter(fmt)
    ax.tick_params(axis="y", which="both", labelsize=7)


def figure(df: pd.DataFrame, posterior: pd.DataFrame | None = None) -> Figure:
    """Per-seed simulated / measured MSE with the 1.5x band, the controls, and the parametric study apart.

    One panel per loss at its last probe epoch: each estimator's per-seed ratio (dots; the mean over
    the fit redraws) for the calibrated model and its three controls, with the geometric mean and its
    95 % interval over seeds (not clipped), on a log axis with the band [1/1.5, 1.5] shaded. Further
    panels: the parametric study's ratios (its own axis: they span decades) and the label-free
    alpha_hat per probe epoch.

    Parameters
    ----------
    df : pandas.DataFrame
        The tidy ``sim_vs_train.csv`` table.
    posterior : pandas.DataFrame, optional
        Unused (kept for the call signature of earlier releases).

    Returns
    -------
    matplotlib.figure.Figure
        The figure, not attached to pyplot.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from .sim_rule import t_interval

    vt = verdict_table(df)
    mse = df[(df.quantity == "mse") & (df.estimator.fillna("") != "")]
    losses = list(dict.fromkeys(mse.loss))
    n = len(losses) + 3
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(4.0 * cols, 3.4 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    x = np.arange(len(ESTIMATORS))
    styles = {
        "calibrated": (
            "C3",
            "s",
            "calibrated (order-statistic laws, parent fitted on the fit half)",
        ),
        "thesis_laws": ("C1", "o", "the thesis's laws (order 2)"),
        "blind": ("0.55", "v", r"control: blind ($\alpha = 1/2$)"),
        "auc_recipe": ("C0", "^", r"control: $\alpha$ = training AUC (eq. 6.21)"),
        "oracle": ("C2", "D", "control: oracle (empirical class laws)"),
    }
    n_seeds = int(mse.seed.nunique()) if len(mse) else 0
    for ax, loss in zip(axes, losses):
        g = mse[mse.loss == loss]
        ep = int(g.epoch.max())
        g = g[g.epoch == ep]
        ax.axhspan(1 / GOAL, GOAL, color="C2", alpha=0.10, lw=0)
        ax.axhline(1.0, color="k", lw=0.6)
        for j, (src, (c, mk, _)) in enumerate(styles.items()):
            off = (j - 2.0) * 0.15
            for k, est in enumerate(ESTIMATORS):
                ge = g[g.estimator == est]
                with np.errstate(divide="ignore", invalid="ignore"):
                    per = (
                        np.log(ge[f"simulated_{src}"] / ge.measured)
                        .groupby(ge.seed)
                        .mean()
                        .to_numpy()
                    )
                per = per[np.isfinite(per)]
                if not per.size:
                    continue
                ax.plot(np.full(per.size, k + off), np.exp(per), ".", color=c, ms=3, alpha=0.6)
                mean, lo, hi = t_interval(per)
                if np.isfinite(lo):
                    ax.errorbar(
                        k + off,
                        math.exp(mean),
                        yerr=[[math.exp(mean) - math.exp(lo)], [math.exp(hi) - math.exp(mean)]],
                        fmt=mk,
                        color=c,
                        ms=5,
                        capsize=2,
                        mfc="white" if src != "calibrated" else c,
                    )
                else:
                    ax.plot(k + off, math.exp(mean), mk, color=c, ms=5)
        cell = vt[(vt.loss == loss) & (vt.epoch == ep)]
        word = cell.verdict.iloc[0] if len(cell) else "-"
        ax.set_yscale("log")
        _plain_log_ticks(ax)
        ax.set_xticks(x, ESTIMATORS, fontsize=6.5)
        ax.set_title(f"{loss}, epoch {ep}: {word}", fontsize=9)
        ax.set_ylabel("simulated / measured MSE", fontsize=8)
        ax.grid(alpha=0.3, which="both", axis="y")
    # the parametric study on its own panel
    ax = axes[len(losses)]
    par = (
        per_seed_log_ratios(df, "parametric")
        .groupby(level=["loss", "epoch", "estimator"], sort=False)
        .mean()
    )
    for i, loss in enumerate(losses):
        r = par.xs(loss, level="loss")
        r = r.xs(r.index.get_level_values("epoch").max(), level="epoch").reindex(list(ESTIMATORS))
        ax.plot(
            x + (i - len(losses) / 2) * 0.08,
            np.exp(r.to_numpy()),
            "o",
            ms=4,
            color=f"C{i}",
            label=loss,
        )
    ax.axhspan(1 / GOAL, GOAL, color="C2", alpha=0.10, lw=0)
    ax.set_yscale("log")
    _plain_log_ticks(ax)
    ax.set_xticks(x, ESTIMATORS, fontsize=6.5)
    ax.set_title(
        "parametric study (Algorithm 6's parent)\nsimulated / measured MSE, last epoch", fontsize=8
    )
    ax.legend(fontsize=6.5, ncol=2)
    ax.grid(alpha=0.3, which="both", axis="y")
    # the label-free alpha per probe epoch
    ax = axes[len(losses) + 1]
    sc = df[(df.quantity == "alpha_valid_auc")]
    for i, loss in enumerate(losses):
        s = sc[sc.loss == loss].groupby("epoch").measured.mean()
        ax.plot(s.index, s.values, "o-", ms=3, color=f"C{i}", label=loss)
    ax.axhline(5 / 6, color="k", ls=":", lw=1)
    ax.text(
        0.02,
        5 / 6,
        "5/6: the thesis's laws end (alpha = 1); above, order k > 2",
        fontsize=6.5,
        va="bottom",
        transform=ax.get_yaxis_transform(),
    )
    ax.set_xlabel("epoch", fontsize=8)
    ax.set_ylabel(r"A = P(x$_{TN}$ < x$_{FN}$) (validation labels)", fontsize=8)
    ax.set_title("label-free AUC A, which fixes the class laws (law_from_auc)", fontsize=8)
    ax.legend(fontsize=6.5)
    ax.grid(alpha=0.3)
    leg = axes[len(losses) + 2]
    leg.axis("off")
    interval = (
        "geometric mean and 95 % interval over seeds"
        if n_seeds >= 2
        else "value (1 seed: no interval)"
    )
    handles = [
        Line2D([], [], color=c, marker=mk, ls="", label=lab) for c, mk, lab in styles.values()
    ]
    handles += [
        Line2D([], [], color="k", marker=".", ls="", label="one seed (mean over fit redraws)"),
        Patch(color="C2", alpha=0.2, label=f"band [1/{GOAL}, {GOAL}]"),
    ]
    leg.legend(
        handles=handles,
        loc="center",
        fontsize=7.5,
        title=f"markers: {interval}",
        title_fontsize=7.5,
    )
    for extra in axes[len(losses) + 3 :]:
        extra.set_visible(False)
    return fig


# ------------------------------------------------------------------------------------------
# the command
# ------------------------------------------------------------------------------------------
def _load(args) -> tuple[Interactions, str, str]:
    from ..recsys import load_split, read_interactions, split_interactions

    if args.data is not None:
        if args.train is not None or args.test is not None:
            raise ValueError("give either --data or --train and --test, not both")
        frame = read_interactions(args.data, format=args.format)
        data = split_interactions(frame, args.test_fraction, rng=args.split_seed)
        p = Path(args.data)
        ident = repr((p.name, p.stat().st_size, args.format, args.test_fraction, args.split_seed))
        return (
            data,
            f"{p.name} (random {1 - args.test_fraction:.0%}/{args.test_fraction:.0%} split, seed {args.split_seed})",
            ident,
        )
    if args.train is None or args.test is None:
        raise ValueError("give --train and --test (or --data)")
    tr, te = Path(args.train), Path(args.test)
    ident = repr((tr.name, tr.stat().st_size, te.name, te.stat().st_size, args.format))
    return load_split(args.train, args.test, format=args.format), f"{tr.name} / {te.name}", ident


def run(args: argparse.Namespace) -> int:
    """``negtheory reproduce sim-vs-train``: train, probe and simulate through the engine, judge, write.

    Parameters
    ----------
    args : argparse.Namespace
        The split (``--data`` or ``--train`` / ``--test``), ``--losses``, ``--seeds``, the probe's settings: :func:`add_arguments`.

    Returns
    -------
    int
        Exit status 0 after the CSVs, ``sim_vs_train.md`` and the figure; errors raise.
    """
    import pandas as pd

    inputs = (
        {"--data": args.data}
        if args.data is not None
        else {"--train": args.train, "--test": args.test}
    )
    if args.data is None and (args.train is None or args.test is None):
        raise ValueError("give --train and --test (or --data FILE for a random split)")
    out = check_paths(
        args.out if args.out is not None else default_output("sim_vs_train", args.quick), inputs
    )
    if args.quick:
        seeds, epochs, probe_epochs, anchors, redraws = 2, 4, [1, 2, 4], 2048, 2
        losses = [x for x in args.losses if x in ("rns", "infonce")] or ["rns", "infonce"]
    else:
        seeds, epochs, probe_epochs, anchors, redraws = (
            args.seeds,
            args.epochs,
            sorted(set(args.probe_epochs)),
            args.anchors,
            args.redraws,
        )
        losses = list(dict.fromkeys(args.losses))
    probe_epochs = [e for e in probe_epochs if e <= epochs] or [epochs]
    if any(x in MF_LOSSES for x in losses):
        from .._cli_common import require_torch

        require_torch("negtheory reproduce sim-vs-train (mini-batch losses)")
    settings = dict(
        epochs=epochs,
        probe_epochs=tuple(probe_epochs),
        valid_fraction=args.valid_fraction,
        negatives=args.negatives,
        anchors=anchors,
        fit_size=args.fit_size,
        redraws=redraws,
        reps=args.reps,
        model=args.model,
    )
    data, label, ident = _load(args)
    local_serial = args.executor == "local" and args.jobs == 1
    items = tuple(settings.items())
    specs = tuple(
        RunSpec(
            key=(loss,),
            replicate=s,
            task=(loss, s, items, not args.quiet and local_serial),
            name=_cache_name(ident + repr(sorted(settings.items())) + loss + str(s), loss, s),
        )
        for loss in losses
        for s in range(seeds)
    )
    executor, close = connect_executor(args)
    t0 = time.perf_counter()
    try:
        recs = execute(
            Plan(specs, _job, lambda: data, desc="sim-vs-train runs"),
            cache_dir=out / "runs",
            executor=executor,
            jobs=args.jobs,
            progress=not args.quiet,
        )
    finally:
        close()
    parts: dict[str, list] = {
        "sim_vs_train": [],
        "ablations": [],
        "posterior": [],
        "score_laws": [],
        "history": [],
    }
    for rec in recs:
        for k in parts:
            parts[k].extend(rec[k])
    frames = {k: pd.DataFrame(v) for k, v in parts.items()}
    cols = ["epoch", "seed", "redraw", "loss", "quantity", "estimator", "measured"] + [
        f"simulated_{s}" for s in SOURCES
    ]
    df = frames["sim_vs_train"][cols]
    written = []
    for name, frame in (
        ("sim_vs_train.csv", df),
        ("ablations.csv", frames["ablations"]),
        ("posterior_calibration.csv", frames["posterior"]),
        ("score_laws.csv", frames["score_laws"]),
        ("history.csv", frames["history"]),
        ("verdicts.csv", verdict_table(df)),
    ):
        frame.to_csv(out / name, index=False)
        written.append(name)
    run_seconds = (
        float(frames["history"].groupby(["loss", "seed"]).seconds.first().sum())
        if len(frames["history"])
        else 0.0
    )
    head = [
        f"# Simulation vs training on {label}",
        "",
        f"losses {', '.join(losses)}; model {args.model} (mini-batch losses), MF (rns / bns); seeds {seeds}; **epochs {epochs}**, "
        f"probed at {', '.join(map(str, probe_epochs))}; validation split {args.valid_fraction:g} of train; N = {args.negatives}; "
        f"{anchors} eval anchors and {args.fit_size} fit items per user per fit batch, {redraws} fit redraws; "
        f"{args.reps} simulated anchors per eval anchor"
        + ("; QUICK smoke run: not a result" if args.quick else "")
        + f"; training and probing {run_seconds:.0f} s over the runs (this invocation {time.perf_counter() - t0:.0f} s)",
        "",
    ]
    hist = frames["history"]
    if "probe_seconds" in hist:
        ps = hist.probe_seconds.dropna()
        if len(ps):
            head.insert(
                -1,
                f"Probe points: {len(ps)}, median {ps.median():.2f} s each, max {ps.max():.2f} s "
                "(the measurement; the simulations come after training).",
            )
    md = "\n".join(head) + "\n" + verdict(df, frames["ablations"], frames["posterior"])
    (out / "sim_vs_train.md").write_text(md)
    written.append("sim_vs_train.md")
    fig = figure(df)
    if args.quick:
        fig.suptitle(
            f"QUICK smoke run ({seeds} seeds, {epochs} epochs): not a result",
            color="C3",
            fontsize=10,
        )
    fig.savefig(out / "sim_vs_train.png", dpi=130)
    written.append("sim_vs_train.png")
    print(md)
    print(f"wrote {', '.join(written)} in {out}")
    return 0


# ------------------------------------------------------------------------------------------
# the summary across data sets, rendered from the committed runs
# ------------------------------------------------------------------------------------------
def summary(studies: Sequence[dict], root: str | Path = ".") -> str:
    """Markdown across data sets: tallies, goals, trained cells and the oracle's ladder, from stored runs.

    Every number is read from each study's ``sim_vs_train.csv`` and ``ablations.csv`` when this
    runs; nothing is typed in.

    Parameters
    ----------
    studies : sequence of dict
        One per data set: ``label`` (str), ``folder`` (the run's ``--out``, relative to ``root``) and
        ``oracle_goal`` (the oracle's goal band, e.g. :data:`negtheory.reproduce.sim_rule.ORACLE_GOAL`),
        as in ``notebooks/data/sim_vs_train_studies.json``.
    root : str or Path
        The folder the study folders are relative to (default: the current folder).

    Returns
    -------
    str
        The markdown text.
    """
    import pandas as pd

    from . import sim_rule as rule

    if isinstance(studies, (str, dict)) or not all(isinstance(s, dict) for s in studies):
        raise ValueError("studies must be a sequence of dicts with label, folder and oracle_goal")
    tallies, cells, ladders = [], [], []
    for st in studies:
        missing = {"label", "folder", "oracle_goal"} - set(st)
        if missing:
            raise ValueError(f"study {st!r} lacks {sorted(missing)}")
        folder = Path(root) / st["folder"]
        df = pd.read_csv(folder / "sim_vs_train.csv", keep_default_na=False, na_values=[""])
        ab = pd.read_csv(folder / "ablations.csv")
        vt = verdict_table(df)
        tr = vt[vt.trained]
        goal = float(st["oracle_goal"])
        ok = int(((tr.oracle_low >= 1 / goal) & (tr.oracle_high <= goal)).sum())
        row = {
            "data set": st["label"],
            "seeds": int(df.seed.nunique()),
            "cells": len(vt),
            "trained": len(tr),
        }
        for fam, col in (("model", "verdict"), ("thesis laws", "thesis_verdict")):
            c = tr[col].value_counts()
            row[fam] = " / ".join(str(int(c.get(o, 0))) for o in rule.OUTCOMES)
        row["oracle in its band"] = f"{ok} of {len(tr)} (1/{goal:g}-{goal:g})"
        row["alpha at a bound (thesis / order)"] = (
            f"{tr.thesis_at_bound.mean():.0%} / {tr.order_at_bound.mean():.0%}" if len(tr) else "-"
        )
        tallies.append(row)
        for _, r in tr.iterrows():
            cells.append((st["label"], r))
        oa = oracle_ablation_table(df, ab)
        oa = oa[oa.train_auc >= rule.TRAINED_AUC]
        for (loss, ep), g in oa.groupby(["loss", "epoch"], sort=False):
            ladders.append(
                (
                    st["label"],
                    loss,
                    int(ep),
                    {s: (r.ratio, r.low, r.high) for s, r in zip(g.step, g.itertuples())},
                )
            )
    lines = [
        f"Rule `{rule.RULE_ID}` ({rule.BAND}x band, simultaneous {rule.LEVEL:.0%} intervals over the five "
        f"estimators, at least {rule.MIN_SEEDS} seeds); trained cells: train AUC >= {rule.TRAINED_AUC}. "
        f"Outcomes in the order {' / '.join(rule.OUTCOMES)}.",
        "",
    ]
    cols = list(tallies[0]) if tallies else []
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(t[c]) for c in cols) + " |" for t in tallies]

    def iv(r, src):
        return f"{_x(r[f'{src}_ratio'])} [{_x(r[f'{src}_low'])}, {_x(r[f'{src}_high'])}]"

    lines += [
        "",
        "**Trained cells** (simulated / measured MSE; geometric mean over the estimators, widest simultaneous interval):",
        "",
        "| data set | loss | epoch | train AUC | k | model | thesis laws | blind | alpha = AUC | oracle | verdict "
        "| thesis laws |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, r in cells:
        lines.append(
            f"| {label} | {r.loss} | {r.epoch} | {r.train_auc:.3f} | {r.order_hat:.2f} | {iv(r, 'calibrated')} | "
            f"{iv(r, 'thesis_laws')} | {iv(r, 'blind')} | {iv(r, 'auc_recipe')} | {iv(r, 'oracle')} | {r.verdict} | "
            f"{r.thesis_verdict} |"
        )
    steps = [label for _, label in _LADDER]
    lines += [
        "",
        "**The oracle's ablation ladder at the trained cells** (geometric mean over the estimators, 95 % "
        "interval over seeds; each column adds one empirical truth to the one before):",
        "",
        "| data set | loss | epoch | " + " | ".join(steps) + " |",
        "|---|---|---|" + "---|" * len(steps),
    ]
    for label, loss, ep, d in ladders:
        vals = [f"{_x(d[s][0])} [{_x(d[s][1])}, {_x(d[s][2])}]" if s in d else "-" for s in steps]
        lines.append(f"| {label} | {loss} | {ep} | " + " | ".join(vals) + " |")
    return "\n".join(lines) + "\n"
