r"""Reproductions of the papers' experiments: ``negtheory reproduce NAME``.

Each reproduction is a thin script over the library's parts (data, samplers, losses, training
loop, evaluation) that writes a tidy CSV, a markdown table beside the paper's numbers and a
figure. Every reproduction lives in its own module of this package and registers itself in
:data:`REPRODUCTIONS` (command name -> module path). A module defines

* ``HELP`` — one line for ``negtheory reproduce --help``;
* ``add_arguments(parser)`` — its options (with defaults and help texts); it must not import
  torch, so that ``--help`` stays fast;
* ``run(args) -> int`` — the work (imports torch lazily) and the process's exit code.

Importing this package imports neither torch nor matplotlib.
"""

from __future__ import annotations

from .report_refresh import refresh_report
from .verdicts import distinct_verdicts, strict_markdown, strict_tally, strict_verdicts

__all__ = [
    "REPRODUCTIONS",
    "strict_verdicts",
    "distinct_verdicts",
    "strict_tally",
    "strict_markdown",
    "refresh_report",
]

#: command name -> module implementing it (imported only when the command is used or listed)
REPRODUCTIONS: dict[str, str] = {
    "thesis-tables": "negtheory.reproduce.thesis_tables",
    "wu-k-sweep": "negtheory.reproduce.wu_k_sweep",
    "relaxed-softmax": "negtheory.reproduce.relaxed_softmax",
    "sim-vs-train": "negtheory.reproduce.sim_vs_train",
    "gowalla-benchmark": "negtheory.reproduce.gowalla_benchmark",
}
