r"""Mechanics of negative sampling from the negative-sampling textbook chapter ("Principles and Mechanisms").

The textbook chapter lost its "<" signs in extraction (README, "Notes on the sources (errata)"): read "beta < alpha",
"alpha < 1" and "d(a,p) < d(a,n) < d(a,p) + m".

* Learning by discrimination: the NCE population objective, its sample version and its
  maximiser, :func:`nce_objective`, :func:`nce_sample_objective`, :func:`nce_optimal_score`.
* InfoNCE with temperature, :func:`infonce_loss`; the effective margin
  :math:`m_{\text{eff}} = \beta + \tau \ln K`, :func:`effective_margin`, and the exact loss against its hinge
  approximation, :func:`hinge_comparison`.
* Number of negatives: coverage :math:`1 - (1 - \rho)^K`, :func:`coverage_probability`, and
  :math:`k_{\min} = \lceil \ln(1 - q) / \ln(1 - \rho) \rceil`, :func:`k_min`.
* Temperature and hardness: :func:`softmax_entropy`,
  :math:`dH/d\tau = \mathrm{Var}_p(s) / \tau^3`,
  :func:`entropy_temperature_derivative`, the temperature that gives a target entropy,
  :func:`temperature_for_entropy`, and an adaptive controller that keeps the entropy in a band,
  :class:`EntropyTemperatureController`.
* Mining: random, hard and semi-hard selection from anchor-positive and anchor-negative
  distances, :func:`mine_negatives`, :func:`semi_hard_mask`, :func:`triplet_loss`.
* False negatives: temporal exclusion window under :math:`p_{same}(D) = e^{-D/\lambda}`,
  :func:`expected_false_negatives`, :func:`min_exclusion_window`.
* In-batch (per-example) vs shared-pool negatives: memory and dot-product costs,
  :func:`negative_costs`, and the chance that a set of negatives holds a hard one,
  :func:`hard_negative_probability`.

The proposal distributions and samplers of the same chapter are in :mod:`negtheory.sampling`.

The functions live in modules named after what they compute (:mod:`negtheory.nce`,
:mod:`negtheory.margins`, :mod:`negtheory.coverage`, :mod:`negtheory.temperature`,
:mod:`negtheory.mining`, :mod:`negtheory.false_negatives`, :mod:`negtheory.pool_costs`); this
module re-exports them as the chapter's index.
"""

from __future__ import annotations

from .coverage import coverage_probability, k_min
from .false_negatives import expected_false_negatives, min_exclusion_window
from .margins import HingeComparison, effective_margin, hinge_comparison, infonce_loss
from .mining import mine_negatives, semi_hard_mask, triplet_loss
from .nce import nce_objective, nce_optimal_score, nce_sample_objective
from .pool_costs import NegativeCosts, hard_negative_probability, negative_costs
from .temperature import (
    EntropyTemperatureController,
    entropy_temperature_derivative,
    softmax_entropy,
    temperature_for_entropy,
)

__all__ = [
    "nce_objective",
    "nce_sample_objective",
    "nce_optimal_score",
    "infonce_loss",
    "effective_margin",
    "hinge_comparison",
    "HingeComparison",
    "coverage_probability",
    "k_min",
    "softmax_entropy",
    "entropy_temperature_derivative",
    "temperature_for_entropy",
    "EntropyTemperatureController",
    "semi_hard_mask",
    "triplet_loss",
    "mine_negatives",
    "expected_false_negatives",
    "min_exclusion_window",
    "negative_costs",
    "NegativeCosts",
    "hard_negative_probability",
]
