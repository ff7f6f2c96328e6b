"""negtheory -- theory and simulation of negative sampling in contrastive learning.

Importing this package loads numpy, scipy and numba only; matplotlib (``negtheory.figures``),
torch (``negtheory.bridge``) and dask are imported lazily by the modules that need them.

Modules
-------
infonce
    How many negatives InfoNCE needs: reliability, training effectiveness, optimal K,
    adaptive negative sampling (Wu, Wu & Huang; seed 000).
estimators
    Debiasing estimators of the true-negative score mean and weights: BCL, DCL, HCL, DPL, BNS
    (Liu Bin's thesis, ch. 4-6; seed 003).
"""

from __future__ import annotations

from . import estimators, infonce
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

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "infonce",
    "estimators",
    # infonce (seed 000)
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
    # estimators (seed 003, ch. 4-6)
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
]
