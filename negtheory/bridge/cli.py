"""``negtheory bridge ...`` subcommands (registered by :func:`add_bridge_parser`).

``negtheory bridge train --data synthetic|digits --model mf|mlp --loss NAME
[--epochs E] [--device auto|cpu|cuda] [--out DIR]`` trains one configuration with progress bars,
prints the final metrics and writes ``DIR/results.json`` (+ ``DIR/probes.csv``).
``negtheory bridge train --train FILE --test FILE --loss NAME [--optimizer sgd|adam] ...`` follows
the thesis's real-data protocol on an explicit split (:mod:`negtheory.recsys`,
:mod:`negtheory.bridge.recommend`) and writes ``DIR/results.json`` and ``DIR/history.csv``.
``negtheory bridge experiments [--out DIR] [--quick]`` reruns the simulation-vs-training
experiments and writes their CSV tables and PNG figures.

The parser is defined in :mod:`negtheory._cli_bridge`, which imports no torch, so ``negtheory
--help`` is fast and ``negtheory bridge`` is always listed; without torch its commands fail with the
``torch`` extra's install hint. Output folders and input files are checked before any training;
non-finite final metrics are reported with exit status 1 (after writing the results for inspection).

The commands themselves live in :mod:`negtheory.bridge._commands` (re-exported here), so that
the parser module can dispatch to them without an import circle.
"""

from __future__ import annotations

from .._cli_bridge import LOSSES, add_bridge_parser  # the parser lives outside this torch-importing package
from ._commands import _check_finite, _cmd_experiments, _cmd_train, _cmd_train_split  # noqa: F401

__all__ = ["add_bridge_parser", "add_subparsers", "LOSSES"]

add_subparsers = add_bridge_parser  # alias: the hook name in the design brief
