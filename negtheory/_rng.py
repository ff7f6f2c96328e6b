"""Turning an ``rng`` argument (SPEC 7) into the integer seed some code paths need (private).

Most functions pass ``rng`` straight to :func:`numpy.random.default_rng` (via
:func:`negtheory._validation.as_generator`). A few need a plain integer: keyed streams spawned per
sweep point (:func:`negtheory.studies.mse_study`), run names and checkpoints, numba kernels and
``torch.manual_seed`` in the bridge. :func:`int_seed` is the one rule for them:

* an ``int`` (>= 0) is the seed itself, so ``rng=7`` reproduces what ``seed=7`` gave;
* anything else :func:`numpy.random.default_rng` accepts (``None``, a ``Generator``, a
  ``SeedSequence``, a ``BitGenerator``, a sequence of ints) gives one draw
  ``numpy.random.default_rng(rng).integers(2**63)``: a Generator is advanced by that draw (as
  SPEC 7 expects), a SeedSequence or a sequence of ints always gives the same seed, ``None``
  gives a fresh one.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from ._validation import as_generator, int_scalar

if TYPE_CHECKING:
    from ._typing import RNGLike

_SPAN = 2**63


def int_seed(name: str, rng: RNGLike) -> int:
    """An integer seed in [0, 2**63) derived from ``rng`` (see the module docstring).

    Parameters
    ----------
    name : str
        The user-facing parameter name used in error messages.
    rng : None, int, SeedSequence, Generator, BitGenerator or sequence of int
        The value passed by the user.

    Returns
    -------
    int
    """
    if isinstance(rng, (numbers.Real, np.bool_)) and not isinstance(rng, np.ndarray):
        return int_scalar(name, rng, 0, math.inf)  # ints, and integral floats as before the rename
    try:
        gen = as_generator(rng, name)  # the shared check (check_rng), RandomState included
    except ValueError as exc:  # a negative entry of a sequence: a wrong seed type here, as before
        raise TypeError(str(exc)) from exc
    return int(gen.integers(_SPAN))


def random_state_or_rng(random_state: RNGLike, rng: RNGLike) -> RNGLike:
    """The one of ``random_state`` (scipy's frozen-distribution keyword) and ``rng`` (SPEC 7) given.

    ``rvs`` methods keep scipy's ``random_state`` and accept ``rng`` as an alias; both is an error.
    """
    if random_state is not None and rng is not None:
        raise TypeError(
            "rvs() got both random_state and rng; they are the same argument, pass only one"
        )
    return rng if rng is not None else random_state
