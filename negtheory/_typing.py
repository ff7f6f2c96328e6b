"""Type aliases of the public signatures (private; imported under ``TYPE_CHECKING`` only).

``RNGLike`` is what every ``rng`` keyword accepts (Scientific Python SPEC 7): anything
:func:`numpy.random.default_rng` takes -- ``None`` (fresh OS entropy), an ``int`` or a sequence
of ints, a :class:`numpy.random.SeedSequence`, a ``BitGenerator`` or a
:class:`numpy.random.Generator` (used as is, and advanced).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ArrayLike",
    "BoolArray",
    "FloatArray",
    "FloatOrArray",
    "FrozenDist",
    "IntArray",
    "IntOrArray",
    "InteractionSource",
    "RNGLike",
    "Size",
]

ArrayLike: TypeAlias = npt.ArrayLike
FloatArray: TypeAlias = npt.NDArray[np.float64]
IntArray: TypeAlias = npt.NDArray[np.int64]
BoolArray: TypeAlias = npt.NDArray[np.bool_]
#: numpy-ufunc-like results: a float for scalar input, an ``NDArray[np.float64]`` of the broadcast
#: shape otherwise. Typed ``Any``, as numpy types its own ufuncs on ArrayLike input, so that callers
#: can index the array case without a cast (a ``float | NDArray`` union would need one at every use).
FloatOrArray: TypeAlias = Any
#: an int for scalar input, an ``NDArray[np.int64]`` otherwise (``Any`` for the same reason)
IntOrArray: TypeAlias = Any
#: what an ``rng`` keyword accepts (SPEC 7)
RNGLike: TypeAlias = (
    np.random.Generator
    | np.random.BitGenerator
    | np.random.SeedSequence
    | int
    | Sequence[int]
    | None
)
#: output shape of a sampler (``None``: one value)
Size: TypeAlias = int | tuple[int, ...] | None
#: a frozen ``scipy.stats`` continuous distribution or a negtheory ``ScoreDistribution``
#: (scipy's frozen distributions carry no static types, so this is ``Any``)
FrozenDist: TypeAlias = Any
#: an interaction set: a file (MovieLens ``u.data``, a folder holding it, a CSV), a DataFrame or pairs
InteractionSource: TypeAlias = "str | os.PathLike[str] | pd.DataFrame | npt.ArrayLike"
