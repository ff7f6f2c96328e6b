"""``negtheory reproduce NAME ...``: the argparse wiring of :mod:`negtheory.reproduce`."""

from __future__ import annotations

import argparse
import importlib

from .._cli_common import HelpFormatter
from . import REPRODUCTIONS

__all__ = ["add_reproduce_parser"]


def _available() -> dict:
    """The registered reproduction modules that exist in this installation."""
    mods = {}
    for name, path in REPRODUCTIONS.items():
        try:
            mods[name] = importlib.import_module(path)
        except ModuleNotFoundError as exc:  # a reproduction not shipped in this build
            if exc.name != path:
                raise
    return mods


def add_reproduce_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``reproduce`` with one sub-command per module of :data:`REPRODUCTIONS`."""
    p = subparsers.add_parser(
        "reproduce",
        help=f"rerun a paper's experiment ({', '.join(REPRODUCTIONS)}); needs the torch extra",
        description="Rerun a paper's experiment and write a tidy CSV, a markdown table beside the paper's numbers and a "
        f"figure: {', '.join(REPRODUCTIONS)}. `negtheory reproduce NAME --help` lists each one's options.",
        formatter_class=HelpFormatter,
    )
    rsub = p.add_subparsers(dest="reproduction", required=True, metavar="NAME")
    for name, mod in _available().items():
        q = rsub.add_parser(
            name, help=mod.HELP, description=mod.HELP, formatter_class=HelpFormatter
        )
        mod.add_arguments(q)
        q.set_defaults(func=mod.run)
    return p
