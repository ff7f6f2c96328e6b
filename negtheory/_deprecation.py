"""Deprecation helpers shared by the public API (private).

Keyword renames follow one rule, implemented once in :func:`renamed_keyword`: for one release the
old keyword keeps working and emits a ``DeprecationWarning`` that names the new keyword (numpy's
and scipy's convention; Python shows it for calls from ``__main__``, scripts, notebooks and test
runs); passing both names is a ``TypeError``. Functions, classes and options on their way out
warn through :func:`warn_deprecated`, whose message names the replacement. Keywords gathered into
one settings object (``f(a=, b=)`` -> ``f(settings=Settings(a=, b=))``) keep working for one
release through :func:`grouped_keywords`, which warns callers outside negtheory only.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import warnings
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "renamed_keyword",
    "grouped_keywords",
    "warn_renamed",
    "deprecated_message",
    "warn_deprecated",
]

F = TypeVar("F", bound="Callable")

#: release in which everything deprecated in 0.1 (keywords, functions, options) is removed
REMOVED_IN = "0.2"


def deprecated_message(
    what: str, replacement: str, *, since: str = "0.1", removed: str = REMOVED_IN
) -> str:
    """The text of a removal notice: ``WHAT is deprecated since negtheory SINCE and removed in REMOVED; use ...``."""
    return f"{what} is deprecated since negtheory {since} and removed in {removed}; use {replacement} instead"


def warn_deprecated(
    what: str,
    replacement: str,
    *,
    since: str = "0.1",
    removed: str = REMOVED_IN,
    stacklevel: int = 3,
) -> None:
    """Emit the ``DeprecationWarning`` of a function, class or option ``what`` that is going away.

    The message (:func:`deprecated_message`) names the release that deprecated it, the release
    that removes it, and ``replacement``. ``stacklevel`` counts from this function: 3 points at the
    caller of the function that calls this one.
    """
    warnings.warn(
        deprecated_message(what, replacement, since=since, removed=removed),
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def warn_renamed(
    owner: str,
    old: str,
    new: str,
    *,
    since: str = "0.1",
    what: str = "keyword",
    stacklevel: int = 3,
) -> None:
    """Emit the ``DeprecationWarning`` of a renamed keyword or attribute ``old`` -> ``new`` of ``owner``."""
    warnings.warn(
        f"{owner}: the {what} {old!r} is deprecated since negtheory {since} and removed in {REMOVED_IN}; "
        f"use {new!r} instead (same values, same results)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def _respell(exc: BaseException, new: str, old: str) -> None:
    """Name the keyword in ``exc`` as the user spelled it: ``new`` -> ``old`` (in place).

    A call that passed the deprecated ``old=`` and failed validation of the value would otherwise
    get an error about ``new``, a keyword the caller never wrote. Only plain ``ValueError`` /
    ``TypeError`` with one string argument that names ``new`` as a word are rewritten.
    """
    if (
        type(exc) not in (ValueError, TypeError)
        or len(exc.args) != 1
        or not isinstance(exc.args[0], str)
    ):
        return
    word = re.compile(r"(?<![\w.])" + re.escape(new) + r"(?!\w)")
    msg = exc.args[0]
    if word.search(msg) is None:
        return
    exc.args = (f"{word.sub(old, msg)} ({old} is the deprecated name of {new})",)


def renamed_keyword(old: str, new: str, *, since: str = "0.1") -> Callable[[F], F]:
    """Decorate a function whose keyword ``old`` was renamed to ``new``.

    Calls that pass ``old=`` still work for one release: the value is forwarded as ``new=``
    and a ``DeprecationWarning`` naming both keywords is emitted (pointing at the caller).
    Passing both raises ``TypeError``. The wrapped function keeps its signature
    (``inspect.signature`` and type checkers see only ``new``).

    Parameters
    ----------
    old : str
        The deprecated keyword name.
    new : str
        The keyword that replaces it; a parameter of the decorated function, or one of the
        names its ``**kwargs`` accepts.
    since : str
        Release that introduced ``new``.

    Returns
    -------
    callable
        The decorator.
    """

    def decorate(func: F) -> F:
        params = inspect.signature(func).parameters
        takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        if new not in params and not takes_kwargs:
            raise TypeError(f"{func.__qualname__} has no parameter {new!r} to rename {old!r} to")
        if old in params:
            raise TypeError(f"{func.__qualname__} still has the parameter {old!r}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                value = kwargs.pop(old)
                if new in kwargs:
                    raise TypeError(
                        f"{func.__qualname__}() got both {new!r} and its deprecated name {old!r}; pass only {new}="
                    )
                warn_renamed(f"{func.__qualname__}()", old, new, since=since)
                kwargs[new] = value
                try:
                    return func(*args, **kwargs)
                except (ValueError, TypeError) as exc:
                    _respell(exc, new, old)
                    raise
            return func(*args, **kwargs)

        renamed = dict(getattr(func, "__renamed_keywords__", {}))
        renamed[old] = new
        wrapper.__renamed_keywords__ = renamed  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def grouped_keywords(
    into: str, names: tuple[str, ...], build: Callable, *, since: str = "0.1"
) -> Callable[[F], F]:
    """Decorate a function whose keywords ``names`` moved into one object, passed as ``into=``.

    For one release a call that passes any of ``names`` still works: they are popped, given to
    ``build`` (the settings class, whose fields carry the same names) and the object is passed as
    ``into=``, so the call gives the same results. A ``DeprecationWarning`` naming the new form is
    emitted for callers outside negtheory (a user's script, notebook or test; the package's own
    callers use the new form). Passing ``into=`` (not None) together with an old keyword raises a
    ``ValueError`` naming both. The wrapped function keeps its signature: ``inspect.signature``
    and type checkers see ``into`` only, not the old keywords.

    Parameters
    ----------
    into : str
        The keyword of the decorated function that takes the settings object.
    names : tuple of str
        The old keywords, each a field of ``build``.
    build : callable
        Makes the settings object from the old keywords (validating them: errors name the field,
        which is the keyword the caller wrote).
    since : str
        The release that introduced ``into=``.

    Returns
    -------
    callable
        A decorator of functions that take ``into=``; the old keywords are removed in 0.2.
    """

    def decorate(func: F) -> F:
        accepted = inspect.signature(func).parameters
        if into not in accepted:
            raise TypeError(f"{func.__qualname__} has no parameter {into!r} to gather {names} into")
        kept = [n for n in names if n in accepted]
        if kept:
            raise TypeError(f"{func.__qualname__} still has the parameters {kept}")
        cls = getattr(build, "__name__", "settings")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            given = {n: kwargs.pop(n) for n in names if n in kwargs}
            if given:
                old = ", ".join(f"{n}=" for n in given)
                if kwargs.get(into) is not None:
                    raise ValueError(
                        f"{func.__qualname__}() got both {into}= and the deprecated keyword(s) {old}; "
                        f"pass only {into}={cls}({old.replace('=', '=...')})"
                    )
                frame, level = (
                    sys._getframe(1),
                    2,
                )  # the caller, past any other wrapper of this module
                while frame is not None and frame.f_globals.get("__name__") == __name__:
                    frame, level = frame.f_back, level + 1
                caller = "" if frame is None else str(frame.f_globals.get("__name__", ""))
                if caller != "negtheory" and not caller.startswith("negtheory."):
                    warnings.warn(
                        f"{func.__qualname__}(): the keyword{'s' if len(given) > 1 else ''} {old} "
                        f"{'are' if len(given) > 1 else 'is'} deprecated since negtheory {since} and removed in "
                        f"{REMOVED_IN}; use {into}={cls}({old.replace('=', '=...')}) instead (same values, same results)",
                        DeprecationWarning,
                        stacklevel=level,
                    )
                kwargs[into] = build(**given)
            return func(*args, **kwargs)

        grouped = dict(getattr(func, "__grouped_keywords__", {}))
        grouped.update(dict.fromkeys(names, into))
        wrapper.__grouped_keywords__ = grouped  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
