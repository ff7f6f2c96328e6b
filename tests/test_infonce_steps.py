"""The paper's discrete trajectory average stays cheap in ``steps`` (issue: a fuzz case took 24 s).

Above 4096 steps the nodes mu'(t_i) are compressed onto Chebyshev panels; the reference here is the
average computed node by node with the public :func:`negtheory.reliability` (an independent path).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import negtheory as nt
from negtheory.infonce import STEPS_MAX


def _brute(k, mu, lam, t_max, steps):
    t = np.linspace(0.0, t_max, steps)
    a = nt.reliability(mu, k)
    b = np.mean(nt.reliability(mu * (1.0 - np.exp(-t)), k))
    return lam * a + (1.0 - lam) * (1.0 - a) + b * (2.0 * a * (1.0 - lam) - 1.0)


@pytest.mark.parametrize(
    ("k", "mu", "lam", "t_max"),
    [(4.0, 0.954, 0.9, 3.0), (20.0, 2.4, 0.5, 3.0), (4030.8, 19.0, 0.9, 10.0)],
)
def test_compressed_discrete_average_matches_the_node_by_node_sum(k, mu, lam, t_max):
    steps = 5000  # above the compression threshold
    got = nt.overall_effectiveness(k, mu, lam=lam, t_max=t_max, steps=steps)
    assert got == pytest.approx(_brute(k, mu, lam, t_max, steps), rel=1e-12, abs=1e-14)


def test_optimal_k_with_many_steps_matches_the_node_by_node_sum():
    steps = 6000
    v = nt.effectiveness_curve(2.4, lam=0.9, k_max=40, steps=steps)
    ref = np.array([_brute(k, 2.4, 0.9, 3.0, steps) for k in range(1, 41)])
    np.testing.assert_allclose(v, ref, rtol=1e-11, atol=1e-13)


def test_fuzz_case_is_fast():
    kw = dict(mu_label=0.954, t_max=1e-06, steps=1_000_000, k=4030.8, lam=7.09e-20)
    nt.overall_effectiveness(**{**kw, "steps": 5000})  # compile outside the timing
    start = time.perf_counter()
    v = nt.overall_effectiveness(**kw)
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0, f"{elapsed:.1f} s (was 24 s before the nodes were compressed)"
    # t_max = 1e-6: every node is within 1e-6 of mu' = 0, so the average is v at mu' = 0 to ~1e-6
    assert v == pytest.approx(
        nt.overall_effectiveness(4030.8, 0.954, lam=7.09e-20, t_max=1e-6), abs=1e-6
    )


def test_steps_beyond_the_cap_is_refused_with_its_name():
    with pytest.raises(ValueError, match=r"steps must be an integer in \[1, 100000000\]"):
        nt.overall_effectiveness(4, 0.954, steps=STEPS_MAX + 1)
