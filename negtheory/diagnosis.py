r"""Diagnose a contrastive training run from its scores: alpha, tau+, the false-negative rate, the estimators' error, K*.

:func:`diagnose` takes what any training loop has — each anchor's positive score, its scores against
a uniform sample of its unlabeled candidates, the negatives its sampler drew, and optionally labels
of *known* held-out positives among the candidates (e.g. a validation split carved from train) —
and returns the quantities of the theory, estimated without test labels:

``alpha``
    The thesis's encoder quality (eq. 6.14-6.15, 6.21). With labels, the pooled
    :math:`A = P(x_{TN} < x_{FN})` of the unlabelled candidates against the labelled ones, corrected
    for the hidden positives c among the unlabelled candidates, :math:`A = (A_{raw} - c/2)/(1 - c)`,
    then :math:`\alpha = \tfrac32 A - \tfrac14` clipped to [1/2, 1]
    (:func:`negtheory.calibration.alpha_from_auc`); with the order-statistic family beyond 5/6,
    alpha = 1 and the order k of :func:`negtheory.calibration.law_from_auc`. Without labels, A is the
    training AUC of the positives against the candidates (the thesis's eq. 6.21 recipe).
``tau_plus``
    The share of false negatives among the unlabeled items: the labelled share of the candidates
    divided by ``label_fraction`` (the share of all hidden positives that the labels cover), or given.
``fn_rate``
    The expected false-negative rate among the sampled negatives,
    :math:`\frac1{|S|}\sum_{x \in S} P(FN \mid G(x))`, with :math:`G(x)` the negative's mid-rank among
    its anchor's candidates. Because the candidates are a uniform sample, G is uniform over them
    and :math:`P(FN \mid G) = \tau^+ f_{FN}(G)`, where :math:`f_{FN}` is the density of the labelled
    items' ranks (``law="empirical"``, a histogram), or of the theory's false-negative law at alpha
    in parent-CDF space (``law="theory"``: :math:`P(FN \mid v) = \tau^+\phi_{FN}(v) / \phi_{UN}(v)`,
    with :math:`\lambda = 2\alpha - 1`, :math:`\phi_{TN}(v) = (1-\lambda) + \lambda k (1-v)^{k-1}`,
    :math:`\phi_{FN}(v) = (1-\lambda) + \lambda k v^{k-1}` (at k = 2 the thesis's
    :math:`2\alpha + (2 - 4\alpha)v` and :math:`2(1-\alpha) + (4\alpha - 2)v`), v from eq. 6.29).
``predicted_mse``
    Each debiasing estimator's MSE of the true-negative mean (eq. 6.45-6.48) in the calibrated
    simulation (:func:`negtheory.calibration.simulate_calibrated`, each anchor's candidates as its
    fitted parent, up to their maximum). **Its scale**: the mean over anchors of
    :math:`(\hat\theta - \theta_{SUP})^2`, where :math:`\theta_{SUP}` is the mean of
    :math:`e^{s/t}` over the true negatives among an anchor's N sampled negatives; so it is in units
    of :math:`(e^{s/t})^2` per anchor, and grows like :math:`e^{2 s/t}` with the scores' scale.
    Compare it with the square of a typical :math:`\theta_{SUP}` (``theta_scale``, the mean of
    :math:`e^{s/t}` over the sampled negatives), not across models of different score scales.

``k_star``
    Wu et al.'s optimal number of negatives from the training AUC (Rethinking InfoNCE, eq. 7, §4.3).

**The class laws** (``family``). The thesis's laws (order 2) give independent pairs
:math:`P(x_{TN} < x_{FN}) \le 5/6`, so a trained model's A lies beyond them and alpha sits at its
bound 1 (``alpha_at_bound``). The default order-statistic family
(:func:`negtheory.calibration.law_from_auc`) contains them and reaches every A in (1/2, 1) with an
order k > 2; ``family="thesis"`` keeps the thesis's reading. A bound is then reached only for A <= 1/2
(no signal) or A = 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._docstrings import docstring
from ._validation import as_float_array, int_scalar, real_scalar

if TYPE_CHECKING:
    import pandas as pd

    from ._typing import ArrayLike, RNGLike

__all__ = ["diagnose", "Diagnosis"]

# the opening of both examples, written once (see negtheory._docstrings)
_doc = docstring(
    diagnose_example="""
        Examples
        --------
        >>> import numpy as np
        >>> from negtheory import diagnose""",
)


@_doc
@dataclass
class Diagnosis:
    """The result of :func:`diagnose` (every field is also described there).

    Parameters
    ----------
    alpha : float
        The model's alpha in [1/2, 1].
    auc : float
        The estimated P(x_TN < x_FN) it maps (eq. 6.21).
    alpha_at_bound : bool
        True when A lies beyond what ``family``'s laws express (clipped): for the thesis's laws
        when 3/2 A - 1/4 falls outside [1/2, 1]. Then the laws are the family's closest member,
        and the predicted false-negative rate and MSE are those of a weaker encoder than the
        measured one.
    alpha_source : str
        ``"labels"`` or ``"positives (eq. 6.21)"``.
    tau_plus : float
        The false-negative share among the unlabeled items.
    fn_rate : float
        Estimated false-negative rate among the sampled negatives (``law``).
    fn_rate_theory : float
        The same with the theory's law (eq. 6.14-6.15, 6.29).
    train_auc : float
        P(x_pos > x_candidate), ties 1/2.
    k_star : int
        Wu et al.'s K* from ``train_auc``.
    predicted_mse : dict
        Estimator name -> predicted MSE (calibrated simulation).
    law : str
        The false-negative law of ``fn_rate``.
    order : float
        The order k of the class laws (2: the thesis's laws).
    family : str
        ``"order"`` or ``"thesis"``.
    theta_scale : float
        The mean of exp(s / t) over the sampled negatives: ``predicted_mse`` is on the scale of its
        square.

    %(diagnose_example)s
    >>> g = np.random.default_rng(1)
    >>> cand = g.normal(size=(500, 40))
    >>> d = diagnose(cand.max(axis=1), cand, tau_plus=0.05, law="theory")
    >>> type(d).__name__, d.alpha_source, list(d.frame().columns[:2])
    ('Diagnosis', 'positives (eq. 6.21)', ['alpha', 'auc'])
    """

    alpha: float
    auc: float
    alpha_at_bound: bool
    alpha_source: str
    tau_plus: float
    fn_rate: float
    fn_rate_theory: float
    train_auc: float
    k_star: int
    predicted_mse: dict = field(default_factory=dict)
    law: str = "empirical"
    order: float = 2.0
    family: str = "order"
    theta_scale: float = math.nan

    def summary(self) -> str:
        """A few sentences in words: alpha and its bound, the false-negative rate, the MSE's scale.

        Returns
        -------
        str
            The text.
        """
        fam = "order-statistic" if self.family == "order" else "thesis's"
        lines = [
            f"AUC A = P(x_TN < x_FN) = {self.auc:.4f} ({self.alpha_source}); the {fam} laws at alpha "
            f"{self.alpha:.4f}, order {self.order:.3g}."
        ]
        if self.alpha_at_bound:
            lines.append(
                "alpha is at a bound of its family: A lies beyond what these laws express, so they are "
                "the closest member (a weaker or blind encoder), and fn_rate_theory and predicted_mse "
                "understate a model this good"
                + (" (use family='order')." if self.family == "thesis" else ".")
            )
        lines.append(
            f"False negatives among the sampled negatives: {self.fn_rate:.4f} ({self.law} law; "
            f"{self.fn_rate_theory:.4f} by the theory's); tau+ = {self.tau_plus:.4f}."
        )
        if self.predicted_mse:
            worst = max(self.predicted_mse, key=lambda k: self.predicted_mse[k])
            lines.append(
                f"predicted_mse is the mean squared error per anchor of the mean true-negative exp(s/t), "
                f"whose typical size is {self.theta_scale:.3g} (squared: {self.theta_scale**2:.3g}); "
                f"largest for {worst}."
            )
        return " ".join(lines)

    def frame(self) -> pd.DataFrame:
        """The scalars as a one-row :class:`pandas.DataFrame` (predicted MSEs as ``mse_<estimator>``).

        Returns
        -------
        pandas.DataFrame
            One row.
        """
        import pandas as pd

        row = {k: v for k, v in self.__dict__.items() if k != "predicted_mse"}
        row.update({f"mse_{k}": v for k, v in self.predicted_mse.items()})
        return pd.DataFrame([row])


def _mid_ranks(cand: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Mid-rank eCDF (#{< x} + #{<= x}) / (2C) of each x[a, j] among cand[a, :] (row-wise)."""
    s = np.sort(cand, axis=1)
    out = np.empty(x.shape)
    for a in range(cand.shape[0]):
        lo = np.searchsorted(s[a], x[a], side="left")
        hi = np.searchsorted(s[a], x[a], side="right")
        out[a] = 0.5 * (lo + hi) / s.shape[1]
    return out


@_doc
def diagnose(
    positive: ArrayLike,
    candidates: ArrayLike,
    negatives: ArrayLike | None = None,
    *,
    labels: ArrayLike | None = None,
    label_fraction: float = 1.0,
    tau_plus: float | None = None,
    law: str = "empirical",
    family: str = "order",
    bins: int = 50,
    t: float = 1.0,
    rng: RNGLike = 0,
) -> Diagnosis:
    r"""Estimate alpha, tau+, the false-negative rate among sampled negatives, the estimators' MSE and K* (module notes).

    Parameters
    ----------
    positive : array_like, shape (A,)
        Each anchor's positive score.
    candidates : array_like, shape (A, C)
        Each anchor's scores against C items drawn uniformly from its unlabeled items (those it
        has not interacted with in training); C >= 2.
    negatives : array_like, shape (A, N), optional
        The scores of the negatives the sampler drew for each anchor (any sampler: uniform,
        popularity, hard). Default: the first min(5, C) candidates (uniform sampling).
    labels : array_like of bool, shape (A, C), optional
        True where the candidate is a *known* held-out positive of the anchor's user (a false
        negative), e.g. a validation item; never the test items you evaluate on.
    label_fraction : float in (0, 1]
        Share of all the hidden positives that ``labels`` can mark (e.g. n_valid / (n_valid +
        n_test) for a validation split), default 1.
    tau_plus : float in (0, 1), optional
        The false-negative share among the unlabeled items; needed without ``labels``.
    law : {"empirical", "theory"}
        The false-negative law of ``fn_rate``: the labelled items' rank density (needs
        ``labels``) or the theory's (eq. 6.14-6.15).
    family : {"order", "thesis"}
        The class laws (module notes): the order-statistic family (default), which reaches every
        AUC in (1/2, 1), or the thesis's laws, bounded at AUC 5/6.
    bins : int >= 2
        Histogram bins of the empirical rank density (default 50).
    t : float > 0
        Temperature of the estimators' map exp(s / t).
    rng : None, int, SeedSequence or Generator
        Seed of the calibrated simulation.

    Returns
    -------
    Diagnosis
        The estimates.

    %(diagnose_example)s
    >>> g = np.random.default_rng(0)
    >>> cand = g.normal(size=(2000, 50))
    >>> lab = g.random((2000, 50)) < 0.05
    >>> cand[lab] += 1.0                      # known positives score higher
    >>> d = diagnose(cand.max(axis=1) + 1.0, cand, cand[:, :5], labels=lab)
    >>> round(d.tau_plus, 2), d.alpha_source
    (0.05, 'labels')
    """
    from .calibration import (
        FAMILIES,
        UserQuantiles,
        class_conditional_ppf,
        estimator_errors,
        law_from_auc,
        simulate_calibrated,
    )
    from .infonce import optimal_k_from_auc

    pos = as_float_array("positive", positive)
    cand = as_float_array("candidates", candidates)
    if pos.ndim != 1 or cand.ndim != 2 or cand.shape[0] != pos.shape[0]:
        raise ValueError(
            f"positive must be (A,) and candidates (A, C) with the same A, got {pos.shape} and {cand.shape}"
        )
    if cand.shape[1] < 2 or cand.shape[0] < 2:
        raise ValueError(
            f"candidates needs at least 2 anchors and 2 candidates each, got {cand.shape}"
        )
    if not (np.all(np.isfinite(pos)) and np.all(np.isfinite(cand))):
        raise ValueError("positive and candidates must be finite")
    neg = (
        cand[:, : min(5, cand.shape[1])]
        if negatives is None
        else as_float_array("negatives", negatives)
    )
    if neg.ndim != 2 or neg.shape[0] != cand.shape[0] or not np.all(np.isfinite(neg)):
        raise ValueError(
            f"negatives must be a finite (A, N) array with A = {cand.shape[0]}, got shape {neg.shape}"
        )
    if not isinstance(law, str) or law not in ("empirical", "theory"):
        raise ValueError(f"law must be 'empirical' or 'theory', got {law!r}")
    if not isinstance(family, str) or family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    bins = int_scalar("bins", bins, 2)
    t = real_scalar("t", t, 0.0, lo_open=True)
    label_fraction = real_scalar("label_fraction", label_fraction, 0.0, 1.0, lo_open=True)
    lab = None
    if labels is not None:
        lab = np.asarray(labels)
        if lab.dtype != bool or lab.shape != cand.shape:
            raise ValueError(
                f"labels must be a boolean array of the candidates' shape {cand.shape}, got {lab.dtype} {lab.shape}"
            )
        if not lab.any() or lab.all():
            raise ValueError("labels must mark some candidates and leave others unmarked")
    elif law == "empirical":
        raise ValueError(
            "law='empirical' needs labels (known held-out positives among the candidates); use law='theory'"
        )
    if tau_plus is not None:
        tau_plus = real_scalar("tau_plus", tau_plus, 0.0, 1.0, lo_open=True, hi_open=True)
    elif lab is None:
        raise ValueError("tau_plus is needed without labels")

    train_auc = float(np.mean((cand < pos[:, None]) + 0.5 * (cand == pos[:, None])))
    if lab is not None:
        s = float(lab.mean())
        tau = min(s / label_fraction, 0.999) if tau_plus is None else tau_plus
        num = 0.0
        den = 0.0
        for a in range(cand.shape[0]):
            li = lab[a]
            if li.any() and (~li).any():
                pool = np.sort(cand[a, ~li])
                x = cand[a, li]
                lo = np.searchsorted(pool, x, side="left")
                hi = np.searchsorted(pool, x, side="right")
                num += float((lo + 0.5 * (hi - lo)).sum())
                den += float(x.size * pool.size)
        raw = num / den
        c = max(tau - s, 0.0) / max(
            1.0 - s, 1e-12
        )  # hidden positives among the unlabelled candidates
        auc = (raw - 0.5 * c) / (1.0 - c)
        source = "labels"
    else:
        tau, auc, source = (
            float(tau_plus if tau_plus is not None else 0.0),
            train_auc,
            "positives (eq. 6.21)",
        )
    a_law, k_law, bound = law_from_auc(min(max(auc, 0.0), 1.0), family=family)
    alpha, order = float(a_law), float(k_law)

    # the negatives' mid-ranks among their anchor's candidates and themselves, ((lo + hi)/2 + 1/2) / (C + 1):
    # on the grid (k + 1/2) / (C + 1) like a candidate's own mid-rank among the C, so that a uniformly drawn
    # negative is uniform over the histogram's bins (the plain eCDF would put C/(C+1) .. 1 in the top bin)
    C = cand.shape[1]
    g_neg = (_mid_ranks(cand, neg) * C + 0.5) / (C + 1)
    # theory: P(FN | v) = tau phi_FN(v) / (tau phi_FN(v) + (1 - tau) phi_TN(v)), v from eq. 6.29
    v = class_conditional_ppf(g_neg, "un", alpha, tau, order=order)
    lam = 2 * alpha - 1
    f_fn = (1 - lam) + lam * order * v ** (order - 1)
    f_tn = (1 - lam) + lam * order * (1 - v) ** (order - 1)
    fn_theory = float(np.mean(tau * f_fn / (tau * f_fn + (1 - tau) * f_tn)))
    if lab is not None:
        g_lab = _mid_ranks(cand, np.where(lab, cand, np.nan))[lab]
        hist, edges = np.histogram(np.clip(g_lab, 0, 1), bins=bins, range=(0.0, 1.0), density=True)
        k = np.clip(np.searchsorted(edges, g_neg, side="right") - 1, 0, bins - 1)
        fn_emp = float(np.mean(np.minimum(tau * hist[k], 1.0)))
    else:
        fn_emp = math.nan
    fn_rate = fn_emp if law == "empirical" else fn_theory

    # predicted MSE: the calibrated simulation with each anchor's candidates as its parent
    # no extrapolated tail: an exponential-type tail in score space gives e^s a Pareto tail whose second moment
    # diverges once its scale exceeds 1/2, which trained models' scores reach (sim-vs-train's ablation gpd_tail)
    unl = UserQuantiles(np.where(lab, np.nan, cand) if lab is not None else cand)
    users = np.arange(cand.shape[0])
    sets = simulate_calibrated(
        unl,
        users,
        neg.shape[1],
        alpha=alpha,
        order=order,
        tau_plus=tau,
        positive_scores=UserQuantiles(pos[:, None]),
        rng=rng,
    )
    errs = estimator_errors(*sets, t=t, alpha=min(max(auc, 0.5), 1.0), tau_plus=tau)
    with np.errstate(over="ignore"):
        theta_scale = float(np.mean(np.exp(neg / t)))
    k_star = int(optimal_k_from_auc(min(train_auc, 0.999), steps=100)) if train_auc > 0.5 else 1
    return Diagnosis(
        alpha=alpha,
        auc=float(auc),
        alpha_at_bound=bool(bound),
        alpha_source=source,
        tau_plus=float(tau),
        fn_rate=float(fn_rate),
        fn_rate_theory=fn_theory,
        train_auc=train_auc,
        k_star=k_star,
        predicted_mse={k: v["mse"] for k, v in errs.items()},
        law=law,
        order=order,
        family=family,
        theta_scale=theta_scale,
    )
