"""Helpers shared by the reproduction scripts (private)."""

from __future__ import annotations

import math
from pathlib import Path


def check_paths(out, inputs) -> Path:
    """Fail before any work: ``out`` must be a folder (or absent) and every input file must exist."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a folder")
    for f in inputs:
        if not Path(f).exists():
            raise ValueError(f"no such file: {f}")
    return out


def t_half_width(values) -> float:
    """Half-width of the 95 % Student-t interval of the mean (NaN for fewer than two values)."""
    import numpy as np
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float("nan")
    return float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
