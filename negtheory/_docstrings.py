"""Docstring templates: shared documentation written once and filled into many docstrings.

A template is an ordinary docstring holding ``%(name)s`` fields. A field alone on its line is
replaced by the block ``blocks[name]`` (dedented, then indented like the field), so a block of
parameter descriptions written once at module level lands, correctly indented, in the
Parameters section of every class or function that names it; a field inside a line is replaced
by the block's stripped text. Only the ``%(name)s`` fields are touched (a lone ``%`` stays), and
a field whose name is not in ``blocks`` raises ``KeyError`` when the module is imported, so a
typo cannot ship. Decorating a class fills its docstring and those of the functions its body
defines. Under ``python -OO`` (docstrings stripped) the decorator does nothing.

Usage inside the package::

    _doc = docstring(reduction='''
        reduction : {"mean", "sum", "none"}, default "mean"
            Mean or sum over the anchors, or "none" for the per-anchor losses.
        ''')

    @_doc
    def loss(x, reduction="mean"):
        '''The loss.

        Parameters
        ----------
        x : Tensor
            Input.
        %(reduction)s
        '''
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["RVS_DOC", "docstring", "fill"]

_T = TypeVar("_T")

#: the Parameters and Returns of the ``rvs`` methods (the frozen scipy.stats surface)
RVS_DOC = """
Parameters
----------
size : int or tuple of int, optional
    Output shape; ``None`` returns a single float.
random_state : None, int, SeedSequence or numpy.random.Generator
    Source of randomness (passed to ``numpy.random.default_rng``); scipy's name.
rng : None, int, SeedSequence or numpy.random.Generator
    The same, under the SPEC 7 name used by the rest of negtheory; pass one of the two.

Returns
-------
float or ndarray
    One draw (a float) for ``size=None``, else an array of shape ``size``."""
_FIELD = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$|%\((\w+)\)s", re.MULTILINE)


def _block(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def fill(template: str, blocks: Mapping[str, str]) -> str:
    """The template with every ``%(name)s`` field replaced by its block.

    Parameters
    ----------
    template : str
        A docstring with ``%(name)s`` fields.
    blocks : mapping of str to str
        The text of each field; a multi-line block is dedented first.

    Returns
    -------
    str
        The filled docstring: a field alone on its line takes the block indented like the field,
        a field inside a line takes the block's stripped text.

    Examples
    --------
    >>> from negtheory._docstrings import fill
    >>> print(fill("Parameters\\n    %(x)s\\nDone.", {"x": "x : int\\n    A number."}))
    Parameters
        x : int
            A number.
    Done.
    """

    def substitute(match: re.Match) -> str:
        indent, own_line, inline = match.group(1), match.group(2), match.group(3)
        if own_line is not None:
            return textwrap.indent(
                _block(blocks[own_line]), indent, lambda line: bool(line.strip())
            )
        return _block(blocks[inline]).strip()

    return _FIELD.sub(substitute, template)


def docstring(blocks: Mapping[str, str] | None = None, /, **more: str) -> Callable[[_T], _T]:
    """A decorator that fills the decorated object's docstring template.

    Parameters
    ----------
    blocks : mapping of str to str, optional
        The blocks by field name.
    **more : str
        Further blocks by field name (they take precedence over ``blocks``).

    Returns
    -------
    callable
        The decorator: it sets ``obj.__doc__`` to :func:`fill` of it (for a class, also the
        docstrings of the functions its body defines) and returns ``obj``.

    Examples
    --------
    >>> from negtheory._docstrings import docstring
    >>> @docstring(what="the answer")
    ... def f():
    ...     '''Return %(what)s.'''
    >>> f.__doc__
    'Return the answer.'
    """
    table = {**(blocks or {}), **more}

    def decorate(obj: _T) -> _T:
        members = (
            [m for m in vars(obj).values() if inspect.isfunction(m)] if inspect.isclass(obj) else []
        )
        for target in [obj, *members]:
            if target.__doc__ is not None:
                target.__doc__ = fill(target.__doc__, table)
        return obj

    return decorate
