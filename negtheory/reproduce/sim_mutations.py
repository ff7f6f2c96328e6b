r"""Deliberately broken simulations: the sim-vs-train comparison must refute each one.

A comparison that confirms everything proves nothing. Each mutation here breaks one input of the
calibrated simulation of a probe point (:func:`negtheory.reproduce.sim_vs_train.simulate_point`)
while the measured errors, the oracle and the blind control stay as they were, so the committed
rule (:mod:`negtheory.reproduce.sim_rule`) should answer "refuted" for the broken model where it
confirms the intact one. The test suite runs them on planted data (``tests/test_sim_mutations.py``);
on a real run, :func:`mutate` measures the power of that run's comparison.

=================  ==================================================================================
``tau_x3``         every user's false-negative share tripled (``ProbeRecord.tau_user_hat``)
``tau_div3``       every user's false-negative share divided by three
``n_plus_2``       N + 2 unlabeled items per simulated anchor
``n_minus_2``      N - 2 (at least 1)
``t_x2``           the temperature of the map exp(s / t) doubled in the simulation
``stale_parent``   the parent laws, tail and positives of another (earlier) probe point
``scale_1.25``     every fitted score (fit batches, their upper tail, the positives) times 1.25
``no_tail``        the fit half's largest scores dropped: the parent stops at the fit batch's maximum
=================  ==================================================================================
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..recsys.score_probe import ProbeRecord

__all__ = ["MUTATIONS", "mutate"]

#: the mutations of :func:`mutate` (module notes)
MUTATIONS = (
    "tau_x3",
    "tau_div3",
    "n_plus_2",
    "n_minus_2",
    "t_x2",
    "stale_parent",
    "scale_1.25",
    "no_tail",
)


def mutate(
    rec: ProbeRecord, name: str, *, stale: ProbeRecord | None = None
) -> tuple[ProbeRecord, float]:
    """A copy of a probe record with one simulation input broken, and the simulation's temperature factor.

    Parameters
    ----------
    rec : ProbeRecord
        The probe point (:func:`negtheory.recsys.score_probe.probe_scores`); left unchanged.
    name : str
        One of :data:`MUTATIONS`.
    stale : ProbeRecord, optional
        For ``stale_parent``: the record whose fit side (fit batches, upper tail, positives) replaces
        ``rec``'s, e.g. the same run's probe at an earlier epoch (the same users and items).

    Returns
    -------
    record : ProbeRecord
        The mutated copy: its measured errors and eval batches are ``rec``'s.
    t_factor : float
        The factor on the simulation's temperature (2 for ``t_x2``, else 1): pass
        ``t = t_factor * t`` to :func:`~negtheory.reproduce.sim_vs_train.simulate_point`.

    Examples
    --------
    >>> import numpy as np
    >>> from negtheory.recsys import load_split
    >>> from negtheory.recsys.score_probe import probe_scores
    >>> from negtheory.reproduce.sim_mutations import mutate
    >>> g = np.random.default_rng(0)
    >>> pairs = np.unique(g.integers(0, [20, 60], size=(500, 2)), axis=0)
    >>> rec = probe_scores(g.normal(size=(20, 60)), load_split(pairs[::2], pairs[1::2]), n_anchors=64, fit_size=20)
    >>> broken, t = mutate(rec, "n_plus_2")
    >>> broken.measured["n"] - rec.measured["n"], t
    (2, 1.0)
    """
    if not isinstance(name, str) or name not in MUTATIONS:
        raise ValueError(f"name must be one of {MUTATIONS}, got {name!r}")
    r = copy.copy(rec)
    r.measured = dict(rec.measured)
    t_factor = 1.0
    if name in ("tau_x3", "tau_div3"):
        if not rec.tau_user_hat.size:
            raise ValueError("rec has no tau_user_hat to break (a record of an older probe)")
        r.tau_user_hat = np.clip(
            rec.tau_user_hat * (3.0 if name == "tau_x3" else 1.0 / 3.0), 0.0, 0.999
        )
    elif name == "n_plus_2":
        r.measured["n"] = int(rec.measured["n"]) + 2
    elif name == "n_minus_2":
        r.measured["n"] = max(int(rec.measured["n"]) - 2, 1)
    elif name == "t_x2":
        t_factor = 2.0
    elif name == "stale_parent":
        if stale is None:
            raise ValueError("stale_parent needs stale, the record of another probe point")
        if stale.fit_pos.shape[0] != rec.fit_pos.shape[0]:
            raise ValueError("stale must be a record of the same users (fit_pos rows differ)")
        r.fits, r.fit_top, r.n_fit_half = stale.fits, stale.fit_top, stale.n_fit_half
        r.fit_pos = stale.fit_pos
    elif name == "scale_1.25":
        r.fits = [dataclasses.replace(fb, unlabeled=fb.unlabeled * 1.25) for fb in rec.fits]
        r.fit_top = rec.fit_top * 1.25
        r.fit_pos = rec.fit_pos * 1.25
    else:  # no_tail
        r.fit_top = np.zeros((0, 0))
    return r, t_factor
