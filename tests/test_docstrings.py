"""negtheory._docstrings: the docstring templates that write shared documentation once."""

from __future__ import annotations

import pytest

from negtheory._docstrings import docstring, fill


def test_a_field_on_its_own_line_takes_the_block_indented_like_the_field():
    template = "Summary.\n\n    Parameters\n    ----------\n    %(xy)s\n    z : int\n"
    block = """
        x : int
            The x.
        y : int
            The y."""
    out = fill(template, {"xy": block})
    assert out == (
        "Summary.\n\n    Parameters\n    ----------\n    x : int\n        The x.\n    y : int\n        The y.\n    z : int\n"
    )


def test_a_field_inside_a_line_takes_the_stripped_block_and_a_lone_percent_stays():
    assert (
        fill("Return %(what)s (100 % sure).", {"what": "\n  the answer\n"})
        == "Return the answer (100 % sure)."
    )


def test_blank_lines_of_a_block_stay_empty():
    out = fill("  %(b)s", {"b": "a\n\nb"})
    assert out == "  a\n\n  b"


def test_an_unknown_field_fails_when_the_template_is_filled():
    with pytest.raises(KeyError, match="typo"):
        fill("%(typo)s", {"name": "x"})


def test_the_decorator_fills_a_function_a_class_and_its_methods():
    doc = docstring({"a": "first"}, b="second")

    @doc
    def f():
        """%(a)s and %(b)s."""

    @doc
    class C:
        """%(a)s."""

        def m(self):
            """%(b)s."""

    assert f.__doc__ == "first and second."
    assert C.__doc__ == "first."
    assert C.m.__doc__ == "second."


def test_the_decorator_leaves_a_stripped_docstring_alone():
    def g():
        pass

    assert docstring(a="x")(g).__doc__ is None
