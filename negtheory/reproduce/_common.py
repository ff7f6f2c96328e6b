"""Helpers shared by the reproduction scripts (private)."""

from __future__ import annotations

import math
from pathlib import Path


def check_paths(out, inputs) -> Path:
    """Fail before any work: every input (``{option: path}``) must be a regular interaction file
    (no FIFO, device or oversized file) and ``out`` a folder that exists or can be created and is
    writable (it is created here)."""
    from .._cli_common import input_file, output_dir

    for option, f in inputs.items():
        input_file(f, option)
    return output_dir(out, "--out")


def t_half_width(values) -> float:
    """Half-width of the 95 % Student-t interval of the mean (NaN for fewer than two values)."""
    import numpy as np
    from scipy import stats

    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return float("nan")
    return float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))
