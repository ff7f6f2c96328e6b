"""Input validation shared by the public functions (private).

Every public function converts its arguments with these helpers so that bad input raises a
``ValueError`` (or ``TypeError`` for non-numeric input) that names the parameter, shows the value
and states the allowed range -- never a numba typing error or a silent NaN.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def _show(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(arr.item()) if arr.dtype.kind in "biufc" else repr(value)
    bad = arr.ravel()[:3].tolist()
    return f"array of shape {arr.shape} (first values {bad})"


def _is_bool(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, np.ndarray) and value.dtype == np.bool_


def reject_bool(name: str, value) -> None:
    """``TypeError`` for ``True``/``False`` (or a boolean array) given where a number is due."""
    if _is_bool(value) or (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, (bool, np.bool_)) for v in value)
    ):
        raise TypeError(f"{name} must be a number, not a boolean, got {value!r}")


def as_float_array(name: str, value, *, allow_inf: bool = False) -> np.ndarray:
    """Convert ``value`` to a float64 array; reject NaN (and +-inf unless ``allow_inf``).

    ``None``, strings, booleans and complex numbers raise ``TypeError``.
    """
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {value!r}")
    reject_bool(name, value)
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a real number or an array of real numbers, got {value!r}"
        ) from exc
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
        raise ValueError(
            f"{name} must lie in {left}{lo_s}, {hi_s}{right}, got {bad[0] if arr.ndim == 0 else bad}"
        )
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


_INT64_MAX = 2**63 - 1
_MAX_ELEMENTS = 2**60  # float64 arrays of more elements exceed the int64 byte count numpy allows


def int_scalar(name: str, value, lo: int | None = None, hi: float | None = None) -> int:
    """A single integer (Python or numpy integer, or an integral float) in [lo, hi].

    ``hi=None`` means 2**63 - 1 (the value ends up in an int64 array or a C long); pass
    ``hi=math.inf`` for an unbounded Python int (seeds).
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real) and float(value).is_integer():
        out = int(value)  # type: ignore[call-overload]  # an integral numbers.Real
    elif isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    else:
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if hi is None:  # counts and sizes end up in int64 arrays: beyond, numpy fails without a name
        hi = _INT64_MAX
    if lo is None:
        lo = -_INT64_MAX - 1
    if out < lo or out > hi:
        lo_s = "-2**63" if lo == -_INT64_MAX - 1 else lo
        hi_s = "2**63 - 1" if hi == _INT64_MAX else hi
        raise ValueError(f"{name} must be an integer in [{lo_s}, {hi_s}], got {out}")
    return out


def flag(name: str, value) -> bool:
    """A boolean switch: ``True``/``False`` (numpy booleans and the integers 0/1 too), else ``TypeError``.

    ``if value:`` alone would take any truthy object (``"no"``, ``nan``) as ``True`` and fail with
    numpy's unnamed "truth value of an array is ambiguous" for an array.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise TypeError(
        f"{name} must be True or False, got {_show(value) if isinstance(value, np.ndarray) else repr(value)}"
    )


def check_rng(name: str, rng) -> None:
    """Raise unless ``rng`` is what SPEC 7 and ``numpy.random.default_rng`` take: ``None``, an int >= 0 (or a
    sequence of them), a ``SeedSequence``, a ``BitGenerator`` or a ``Generator``; errors name ``name``."""
    if isinstance(rng, np.random.RandomState):
        raise TypeError(
            f"{name} must be a numpy.random.Generator, SeedSequence, int or None (legacy RandomState is not supported)"
        )
    seq = isinstance(rng, (list, tuple)) and all(
        isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) for x in rng
    )
    if isinstance(rng, (bool, np.bool_)) or not (
        rng is None
        or seq
        or isinstance(
            rng,
            (numbers.Integral, np.random.SeedSequence, np.random.Generator, np.random.BitGenerator),
        )
    ):
        raise TypeError(
            f"{name} must be None, a non-negative int (or a sequence of them), a SeedSequence or a numpy.random.Generator, got {rng!r}"
        )
    if (isinstance(rng, numbers.Integral) and rng < 0) or (seq and any(x < 0 for x in rng)):
        raise ValueError(f"{name} must be a non-negative integer seed, got {rng!r}")


def as_generator(rng, name: str = "rng") -> np.random.Generator:
    """``None``/int/SeedSequence/Generator -> ``numpy.random.Generator``; errors name ``name``."""
    check_rng(name, rng)
    return np.random.default_rng(rng)


def size_arg(name: str, size, *, allow_none: bool = True):
    """Validate an output shape: ``None`` (if allowed), an int >= 0 or a tuple of them.

    Returns ``None``, an ``int`` or a ``tuple`` of ints; a non-integral float (``1.5``), a boolean or a
    negative entry raises instead of being truncated.
    """
    if size is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a non-negative integer or a tuple of them, got None")
    if isinstance(size, (tuple, list)):
        out = tuple(int_scalar(name, s, 0) for s in size)
        if math.prod(out) > _MAX_ELEMENTS:  # numpy's own error ("array is too big") names nothing
            raise ValueError(f"{name} must describe at most 2**60 elements, got {out}")
        return out
    return int_scalar(name, size, 0, _MAX_ELEMENTS)


def broadcast(**arrays) -> list[np.ndarray]:
    """``np.broadcast_arrays`` of the named arrays, with an error that names the parameters."""
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        named = {
            k: v for k, v in arrays.items() if not k.startswith("_")
        }  # "_x": internal companions
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in named.items())
        raise ValueError(
            f"{' and '.join(named)} must broadcast against each other, got shapes {shapes}"
        ) from None


def check_frozen_continuous(name: str, dist) -> None:
    """A frozen ``scipy.stats`` continuous law with finite, valid scalar parameters (else raise).

    Catches what scipy accepts silently: ``norm(nan)``, ``norm(0, -1)``, ``norm(0, inf)``, shape
    parameters outside their domain -- each of which would make every method return NaN.
    """
    import scipy.stats

    if isinstance(dist, scipy.stats.rv_continuous):
        raise TypeError(
            f"{name} must be a *frozen* continuous distribution: call it, e.g. scipy.stats.{dist.name}(), got the unfrozen {dist.name!r}"
        )
    family = getattr(dist, "dist", None)
    if isinstance(family, scipy.stats.rv_discrete):
        raise TypeError(
            f"{name} must be a continuous distribution, got the discrete scipy.stats.{family.name}"
        )
    if not isinstance(family, scipy.stats.rv_continuous):
        raise TypeError(
            f"{name} must be a frozen scipy.stats continuous distribution (e.g. scipy.stats.norm(0, 1)), got {dist!r}"
        )
    try:
        shapes, loc, scale = family._parse_args(*dist.args, **dist.kwds)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} has invalid parameters {dist.args} {dist.kwds}: {exc}") from None
    if any(np.ndim(v) != 0 for v in (*shapes, loc, scale)):
        raise ValueError(
            f"{name} must have scalar parameters, got a frozen {family.name} with array parameters"
        )
    try:
        params = np.asarray([*shapes, loc, scale], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} has invalid parameters {dist.args} {dist.kwds}: {exc}") from None
    if (
        not np.isfinite(params).all()
        or not scale > 0
        or not bool(np.all(family._argcheck(*shapes)))
    ):
        raise ValueError(
            f"{name} has invalid parameters: {family.name}{dist.args} {dist.kwds} (they must be finite, scale > 0)"
        )


def scalar_or_array(out: np.ndarray):
    """Return a Python float for 0-d results (numpy-ufunc-like scalar in -> scalar out)."""
    if out.ndim == 0:
        return out[()]
    return out


def temperature_array(name: str, tau, allow_zero: bool = False) -> np.ndarray:
    """A temperature (or array of them) in (0, inf], or [0, inf] when ``allow_zero``."""
    t = as_float_array(name, tau, allow_inf=True)
    return check_range(name, t, 0.0, float("inf"), lo_open=not allow_zero)
