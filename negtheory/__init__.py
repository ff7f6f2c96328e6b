"""negtheory -- theory and simulation of negative sampling in contrastive learning.

Importing this package loads numpy, scipy and numba only; matplotlib (``negtheory.figures``),
torch (``negtheory.bridge``) and dask are imported lazily by the modules that need them.

Modules
-------
infonce
    How many negatives InfoNCE needs: reliability, training effectiveness, optimal K,
    adaptive negative sampling (Wu, Wu & Huang; Wu et al., Rethinking InfoNCE).
dists
    Class-conditional score laws (order statistics, true/false/hard negatives, unlabeled) with
    the scipy.stats frozen-distribution surface (Liu Bin's thesis, §2.3, §4.3, §6.3).
generators
    Accept-reject and exact samplers, and the score sets of the numerical study (Algorithms 6-8).
studies
    Monte-Carlo MSE studies of the estimators, tidy pandas output (thesis §6.6.1).
diagnosis
    Alpha, tau+, the false-negative rate among sampled negatives, the estimators' predicted error
    and K* from the scores of any training loop (:func:`diagnose`).
calibration
    The same estimators on scores simulated from what training measured: the thesis's laws with
    fitted parents, a bootstrap of the measured laws, and the laws' own AUC (thesis §6.3, §6.6).
variance_gamma, bprac
    The variance-gamma law of inner products of Gaussian embeddings and the BPRAC credence
    E-step (Liu Bin's thesis, ch. 3).
mechanics, sampling, thresholds, relaxed_softmax
    Textbook mechanics of negative sampling (NCE, InfoNCE margin, coverage, entropy and
    temperature, mining, proposals, alias sampling), threshold selection, and the Relaxed
    Softmax / Boltzmann sampling of Tanielian & Vasile (the negative-sampling textbook chapter,
    the threshold-selection note, Tanielian & Vasile's Relaxed Softmax).
estimators
    Debiasing estimators of the true-negative score mean and weights: BCL, DCL, HCL, DPL, BNS
    (Liu Bin's thesis, ch. 4-6).
training
    Composable training of recommenders, ``fit(data, model=..., loss=..., sampler=..., optimizer=...)``
    with frozen, JSON-serialisable specs (thesis ch. 4-6); imported on first use.
"""

from __future__ import annotations

# before any kernel is decorated: numba caches go to a per-user folder, never into the installed package
# (a leftover __pycache__ there would shadow a later install as an empty namespace package)
from . import _numba_cache  # registers the locator on import (_numba_cache.install)
from . import (
    bprac,
    calibration,
    coverage,
    dists,
    distribution,
    estimators,
    false_negatives,
    generators,
    infonce,
    margins,
    mechanics,
    mining,
    nce,
    pool_costs,
    temperature,
    relaxed_softmax,
    sampling,
    studies,
    thresholds,
    variance_gamma,
)
from .bprac import credence, popularity_prior
from .variance_gamma import InnerProduct, inner_product
from .mechanics import (
    EntropyTemperatureController,
    HingeComparison,
    NegativeCosts,
    coverage_probability,
    effective_margin,
    entropy_temperature_derivative,
    expected_false_negatives,
    hard_negative_probability,
    hinge_comparison,
    infonce_loss,
    k_min,
    min_exclusion_window,
    mine_negatives,
    nce_objective,
    nce_optimal_score,
    nce_sample_objective,
    negative_costs,
    semi_hard_mask,
    softmax_entropy,
    temperature_for_entropy,
    triplet_loss,
)
from .relaxed_softmax import (
    MixtureOfGaussiansTask,
    approx_mpr,
    effective_temperature,
    expected_likelihood,
    kl_divergence,
    precision_at_k,
    relaxed_softmax_grad,
    relaxed_softmax_limit_grad,
    relaxed_softmax_loss,
)
from .sampling import (
    AliasTable,
    InverseCDFSampler,
    boltzmann,
    proposal_mass,
    sample_boltzmann,
    solve_alpha,
    unigram_proposal,
)
from .thresholds import (
    categorize,
    category_counts,
    choose_thresholds,
    paper_table_scores,
    threshold_table,
)
from .dists import (
    OrderStatistic,
    QuadraticCDFLaw,
    ScoreDistribution,
    false_negative,
    hard_negative,
    order_statistic,
    true_negative,
    unlabeled,
)
from .generators import (
    AcceptRejectSampler,
    ScoreSets,
    iter_score_sets,
    sample_class_conditional,
    score_sets,
)
from .studies import Execution, Generation, mse_study
from .diagnosis import Diagnosis, diagnose

# the simulators (simulate_calibrated, simulate_resampled, simulate_order_statistic) and UserQuantiles
# take measured score tables: they live in negtheory.calibration next to the probe's outputs
from .calibration import (
    alpha_from_auc,
    class_conditional_cdf,
    class_conditional_ppf,
    estimator_errors,
    fit_fn_order,
    model_auc,
)
from .estimators import (
    bcl_weights,
    bns_info,
    bns_risk,
    bns_select,
    bns_unbias,
    cdf_from_unlabeled,
    dpl_error_bound,
    dpl_loss,
    dpl_probability,
    ecdf,
    informativeness,
    theta_bcl,
    theta_biased,
    theta_dcl,
    theta_hcl,
    theta_sup,
    tnr,
)
from .infonce import (
    ans_schedule,
    auc_from_mu,
    draw_negative_counts,
    effectiveness,
    effectiveness_curve,
    effectiveness_dist,
    mu_from_auc,
    optimal_k,
    optimal_k_from_auc,
    overall_effectiveness,
    reliability,
    reliability_dist,
    sample_fractions,
)

from ._version import __version__  # noqa: E402

#: names of :mod:`negtheory.training` re-exported here, imported on first access (PEP 562): the
#: training engines pull in the recsys kernels (and torch for mini-batches), which ``import negtheory``
#: must not load. After ``fit`` and ``FitResult``, the spec classes of :mod:`negtheory.training.specs`
#: in its ``__all__`` order (tests/test_package.py checks that they are the same)
_TRAINING = (
    "fit",
    "FitResult",
    "MF",
    "LightGCN",  # models
    "BPR",
    "BCE",
    "InfoNCE",
    "DCL",
    "HCL",
    "DPL",
    "BCL",
    "CCL",  # losses
    "RNS",
    "PNS",
    "DNS",
    "BNS",
    "AOBPR",
    "SRNS",
    "SharedUniform",
    "CatalogueUniform",  # samplers
    "SGD",
    "Adam",  # optimizers
    "Evaluation",
)


def __getattr__(name: str):
    if name in _TRAINING or name == "training":
        import importlib

        training = importlib.import_module(".training", __name__)
        return training if name == "training" else getattr(training, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_TRAINING) | {"training"})


__all__ = [
    "__version__",
    "infonce",
    "dists",
    "generators",
    "estimators",
    "studies",
    "calibration",
    "mechanics",
    "sampling",
    "thresholds",
    "relaxed_softmax",
    "variance_gamma",
    "bprac",
    # variance-gamma prior and BPRAC (Liu Bin's thesis, ch. 3)
    "InnerProduct",
    "inner_product",
    "credence",
    "popularity_prior",
    # dists (Liu Bin's thesis)
    "OrderStatistic",
    "QuadraticCDFLaw",
    "ScoreDistribution",
    "false_negative",
    "hard_negative",
    "order_statistic",
    "true_negative",
    "unlabeled",
    # generators (Liu Bin's thesis)
    "AcceptRejectSampler",
    "ScoreSets",
    "iter_score_sets",
    "sample_class_conditional",
    "score_sets",
    # studies (Liu Bin's thesis)
    "mse_study",
    "Execution",
    "Generation",
    # diagnose a training run from its scores (thesis eq. 6.14-6.29; Wu et al., eq. 7)
    "diagnose",
    "Diagnosis",
    # calibration: simulations fed with what training measures (Liu Bin's thesis, §6.3 and §6.6)
    "alpha_from_auc",
    "class_conditional_cdf",
    "class_conditional_ppf",
    "estimator_errors",
    "fit_fn_order",
    "model_auc",
    # infonce (Wu et al., Rethinking InfoNCE)
    "ans_schedule",
    "auc_from_mu",
    "draw_negative_counts",
    "effectiveness",
    "effectiveness_curve",
    "effectiveness_dist",
    "mu_from_auc",
    "optimal_k",
    "optimal_k_from_auc",
    "overall_effectiveness",
    "reliability",
    "reliability_dist",
    "sample_fractions",
    # mechanics (the negative-sampling textbook chapter)
    "EntropyTemperatureController",
    "HingeComparison",
    "NegativeCosts",
    "coverage_probability",
    "effective_margin",
    "entropy_temperature_derivative",
    "expected_false_negatives",
    "hard_negative_probability",
    "hinge_comparison",
    "infonce_loss",
    "k_min",
    "min_exclusion_window",
    "mine_negatives",
    "nce_objective",
    "nce_optimal_score",
    "nce_sample_objective",
    "negative_costs",
    "semi_hard_mask",
    "softmax_entropy",
    "temperature_for_entropy",
    "triplet_loss",
    # sampling (textbook chapter; Tanielian & Vasile)
    "AliasTable",
    "InverseCDFSampler",
    "boltzmann",
    "proposal_mass",
    "sample_boltzmann",
    "solve_alpha",
    "unigram_proposal",
    # thresholds (the threshold-selection note)
    "categorize",
    "category_counts",
    "choose_thresholds",
    "paper_table_scores",
    "threshold_table",
    # relaxed_softmax (Tanielian & Vasile, Relaxed Softmax)
    "MixtureOfGaussiansTask",
    "approx_mpr",
    "effective_temperature",
    "expected_likelihood",
    "kl_divergence",
    "precision_at_k",
    "relaxed_softmax_grad",
    "relaxed_softmax_limit_grad",
    "relaxed_softmax_loss",
    # estimators (Liu Bin's thesis, ch. 4-6)
    "bcl_weights",
    "bns_info",
    "bns_risk",
    "bns_select",
    "bns_unbias",
    "cdf_from_unlabeled",
    "dpl_error_bound",
    "dpl_loss",
    "dpl_probability",
    "ecdf",
    "informativeness",
    "theta_bcl",
    "theta_biased",
    "theta_dcl",
    "theta_hcl",
    "theta_sup",
    "tnr",
    # composable training (Liu Bin's thesis, ch. 4-6), imported on first access
    "training",
    *_TRAINING,
]
