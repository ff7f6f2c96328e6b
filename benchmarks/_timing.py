"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import time


def best_of(fn, repeat):
    """Run ``fn`` ``repeat`` times; return (fastest wall time in seconds, last result)."""
    times = []
    result = None
    for _ in range(max(1, int(repeat))):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def min_time(fn, repeat):
    """Fastest wall time in seconds of ``repeat`` runs of ``fn``."""
    return best_of(fn, repeat)[0]
