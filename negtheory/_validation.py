"""Input validation shared by the public functions (private).

Every public function converts its arguments with these helpers so that bad input raises a
``ValueError`` (or ``TypeError`` for non-numeric input) that names the parameter, shows the value
and states the allowed range -- never a numba typing error or a silent NaN.
"""

from __future__ import annotations

import numbers

import numpy as np


def _show(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(arr.item()) if arr.dtype.kind in "biufc" else repr(value)
    bad = arr.ravel()[:3].tolist()
    return f"array of shape {arr.shape} (first values {bad})"


def as_float_array(name: str, value, *, allow_inf: bool = False) -> np.ndarray:
    """Convert ``value`` to a float64 array; reject NaN (and +-inf unless ``allow_inf``)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {value!r}") from exc
    if np.iscomplexobj(value):
        raise TypeError(f"{name} must be real, got complex {value!r}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not be NaN, got {_show(value)}")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite, got {_show(value)}")
    return arr


def check_range(
    name: str,
    arr: np.ndarray,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> np.ndarray:
    """Raise ``ValueError`` unless every element of ``arr`` lies in the stated interval."""
    ok = np.ones(arr.shape, dtype=bool)
    if lo is not None:
        ok &= (arr > lo) if lo_open else (arr >= lo)
    if hi is not None:
        ok &= (arr < hi) if hi_open else (arr <= hi)
    if not ok.all():
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else repr(lo)
        hi_s = "inf" if hi is None else repr(hi)
        bad = arr[~ok].ravel()[:3].tolist()
        raise ValueError(f"{name} must lie in {left}{lo_s}, {hi_s}{right}, got {bad[0] if arr.ndim == 0 else bad}")
    return arr


def real_array(name: str, value, lo=None, hi=None, *, lo_open=False, hi_open=False) -> np.ndarray:
    """``as_float_array`` followed by ``check_range``."""
    return check_range(name, as_float_array(name, value), lo, hi, lo_open=lo_open, hi_open=hi_open)


def real_scalar(name: str, value, lo=None, hi=None, *, lo_open=False, hi_open=False) -> float:
    """A single real number in the stated interval."""
    arr = real_array(name, value, lo, hi, lo_open=lo_open, hi_open=hi_open)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    return float(arr)


def int_scalar(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    """A single integer (Python or numpy integer, or an integral float) in [lo, hi]."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        out = int(value)  # type: ignore[call-overload]  # an integral numbers.Real
    else:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        lo_s = "-inf" if lo is None else lo
        hi_s = "inf" if hi is None else hi
        raise ValueError(f"{name} must be an integer in [{lo_s}, {hi_s}], got {out}")
    return out


def as_generator(rng) -> np.random.Generator:
    """``None``/int/SeedSequence/Generator -> ``numpy.random.Generator``."""
    if isinstance(rng, np.random.RandomState):
        raise TypeError("rng must be a numpy.random.Generator, SeedSequence, int or None (legacy RandomState is not supported)")
    return np.random.default_rng(rng)


def scalar_or_array(out: np.ndarray):
    """Return a Python float for 0-d results (numpy-ufunc-like scalar in -> scalar out)."""
    if out.ndim == 0:
        return out[()]
    return out


def temperature_array(name: str, tau, allow_zero: bool = False) -> np.ndarray:
    """A temperature (or array of them) in (0, inf], or [0, inf] when ``allow_zero``."""
    t = as_float_array(name, tau, allow_inf=True)
    return check_range(name, t, 0.0, float("inf"), lo_open=not allow_zero)
