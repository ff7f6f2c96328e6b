"""Pieces shared by the ``negtheory`` command line (private): help formatting, option types, path checks.

Nothing here imports torch, matplotlib or pandas, so building the parser (and ``--help``) stays fast.

Default outputs
---------------
No command writes into the committed folders of a source checkout (``figures/``,
``notebooks/data/``) unless told so: every default output folder is
:func:`default_output` (``negtheory_output/NAME`` under the current folder, ``NAME_quick`` for a
``--quick`` run, ignored by git), and the committed results change only with an explicit
``--out`` / ``--figures`` or ``--update-committed`` (:func:`committed_dir`).

Output paths
------------
Every command checks its output paths *before* computing anything (:func:`output_dir`,
:func:`output_file`): an output folder is created if missing (with its parents); the parent
folder of an output file is created likewise; an existing path of the wrong kind (a file where a
folder is expected, a folder where a file is expected, a file in the middle of the path) or a
location that cannot be created or written is an error naming the option.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

__all__ = [
    "CommandError",
    "HelpFormatter",
    "real",
    "integer",
    "output_dir",
    "output_file",
    "input_file",
    "input_dir",
    "require_torch",
    "default_output",
    "committed_dir",
    "INSTALL_HINT",
    "OUTPUT_ROOT",
]

#: folder (relative to the current folder) holding every command's default output; git ignores it
OUTPUT_ROOT = "negtheory_output"

#: how to get an extra while negtheory is on no package index: from a source checkout
INSTALL_HINT = 'the negtheory[{extra}] extra: python -m pip install -e ".[{extra}]" in a source checkout; negtheory is not on PyPI yet'


def default_output(name: str, quick: bool = False) -> Path:
    """The default output folder of a command: ``negtheory_output/NAME`` (``NAME_quick`` for ``--quick``).

    >>> default_output("relaxed_softmax", quick=True).as_posix()
    'negtheory_output/relaxed_softmax_quick'
    """
    return Path(OUTPUT_ROOT) / (f"{name}_quick" if quick else name)


def committed_dir(relative: str, option: str = "--update-committed") -> Path:
    """The committed folder ``relative`` (e.g. ``"figures"``) of the source checkout this package runs from.

    Raises :class:`CommandError` when negtheory is not running from a source checkout (an
    installed wheel has no committed results to update).
    """
    root = Path(__file__).resolve().parent.parent
    target = root / relative
    if not (
        (root / "pyproject.toml").is_file() and (root / "negtheory").is_dir() and target.is_dir()
    ):
        raise CommandError(
            f"{option} writes into the committed {relative}/ of a source checkout, and this negtheory is not "
            "running from one; give the output folders explicitly instead"
        )
    return target


class CommandError(Exception):
    """A failure reported by the command line as one line ``negtheory CMD: error: MESSAGE``.

    ``exit_code`` is 2 for bad input (as argparse's usage errors) and 1 for failures at run time
    (a missing extra, an unreachable scheduler, non-finite results).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


class HelpFormatter(argparse.HelpFormatter):
    """Shows ``(default: X)`` after every option whose help text does not already state its default.

    Flags (``store_true``) and options without a default (required ones, or ``None`` defaults
    whose meaning the help text spells out) get nothing appended. Descriptions and epilogs are
    wrapped line by line, so a newline in them starts a new paragraph.
    """

    def _fill_text(self, text, width, indent):
        return "\n".join(
            super(HelpFormatter, self)._fill_text(line, width, indent) for line in text.splitlines()
        )

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" in text.lower()
            or action.default is None
            or action.default is argparse.SUPPRESS
            or action.required
            or isinstance(
                action, (argparse._StoreTrueAction, argparse._VersionAction, argparse._HelpAction)
            )
        ):
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


def _num(x) -> str:
    return (
        str(x) if isinstance(x, int) else f"{x:g}"
    )  # an integer bound in full: 1000000, not 1e+06


def _interval(lo, hi, lo_open, hi_open) -> str:
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{_num(lo)}, {_num(hi)}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {_num(lo)}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {_num(hi)}"
    return "finite"


def real(lo=None, hi=None, *, lo_open=False, hi_open=False):
    """An argparse ``type`` for a finite real number in an interval; errors name the option.

    >>> real(0.0, lo_open=True)("0.5")
    0.5
    """
    where = _interval(lo, hi, lo_open, hi_open)

    def number(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(x):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        ok = (lo is None or (x > lo if lo_open else x >= lo)) and (
            hi is None or (x < hi if hi_open else x <= hi)
        )
        if not ok:
            raise argparse.ArgumentTypeError(f"must be {where}, got {text}")
        return x

    return number


def integer(lo=None, hi=None):
    """An argparse ``type`` for an integer in ``[lo, hi]``; errors name the option.

    >>> integer(1)("3")
    3
    """
    where = _interval(lo, hi, False, False)

    def whole_number(text: str) -> int:
        try:
            x = int(text)
        except ValueError:
            try:  # 1e6 is an integer too
                f = float(text)
            except ValueError:
                f = math.nan
            if not (math.isfinite(f) and f.is_integer()):
                raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
            x = int(f)
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise argparse.ArgumentTypeError(f"must be an integer {where}, got {text}")
        return x

    return whole_number


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _make_folder(folder: Path, message: str) -> None:
    """Create ``folder`` with its parents; CommandError ``"<message> (<reason>)"`` if that fails."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"{message} ({_reason(exc)})") from None


def output_dir(path, option: str) -> Path:
    """Check (and create, with its parents) the output folder given to ``option``; return it."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise CommandError(f"{option} {p}: exists and is not a folder")
    _make_folder(p, f"{option} {p}: cannot create the folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise CommandError(f"{option} {p}: the folder is not writable")
    return p


def output_file(path, option: str) -> Path:
    """Check the output file given to ``option`` (creating its parent folder); return it."""
    p = Path(path)
    if p.is_dir() or str(path).endswith(("/", os.sep)):
        raise CommandError(f"{option} {p}: is a folder; give a file name")
    parent = p.parent
    if parent.exists() and not parent.is_dir():
        raise CommandError(f"{option} {p}: {parent} is not a folder")
    _make_folder(parent, f"{option} {p}: cannot create the folder {parent}")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise CommandError(f"{option} {p}: not writable")
    return p


def input_file(path, option: str, folder_ok: bool = False) -> Path:
    """Check that the interaction file given to ``option`` exists and is a regular file of bounded size.

    Uses the guards of :func:`negtheory.recsys.read_interactions` (no FIFO, device or oversized
    file); with ``folder_ok`` a folder holding MovieLens ``u.data`` is accepted.
    """
    from negtheory.recsys.interactions import _check_file

    p = Path(path)
    if not p.exists():
        raise CommandError(f"{option} {p}: no such file" + (" or directory" if folder_ok else ""))
    if p.is_dir() and not folder_ok:
        raise CommandError(f"{option} {p}: is a folder, expected a file")
    try:
        return _check_file(p)
    except (OSError, ValueError) as exc:
        raise CommandError(f"{option}: {exc}") from None


def input_dir(path, option: str) -> Path:
    """Check that the folder given to ``option`` exists and is a folder; return it."""
    p = Path(path)
    if not p.exists():
        raise CommandError(f"{option} {p}: no such directory")
    if not p.is_dir():
        raise CommandError(f"{option} {p}: is not a directory")
    return p


def require_torch(command: str) -> None:
    """Raise :class:`CommandError` (exit 1) with the install hint when torch cannot be imported."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise CommandError(
            f"{command} requires torch ({INSTALL_HINT.format(extra='torch')})", exit_code=1
        ) from None
