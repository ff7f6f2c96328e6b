r"""Recompute a committed ``thesis-tables`` report from its CSV files: the prose kept, every number recomputed.

A report folder written by ``negtheory reproduce thesis-tables`` often grows after its first run: rows of a
later invocation (another method, a validation search, more seeds) are appended to ``thesis_tables.csv``,
and the markdown beside it (``thesis_tables.md``, ``verdicts_strict.md``) gets a hand-written header that
states the commands and the protocol. :func:`refresh_report` rewrites those markdown files and the verdict
CSVs from the tidy table alone:

* the **header** (everything above the first second-level heading, ``##``) and the **prose** of the sections named below
  (the lines above a section's first table or sub-heading) are kept as they are;
* every **section it knows** is recomputed by the functions that write it in a fresh run (the metric tables
  of :func:`~negtheory.reproduce.thesis_report.markdown`, the lenient and strict verdicts, the validation
  searches of ``tuning.csv``, the sampling quality of ``sampling_quality.csv``, the alternative readings of
  :data:`~negtheory.reproduce.verdicts.ALTERNATIVE_READINGS` named in the report, the stated reasons of
  :data:`~negtheory.reproduce.verdicts.MISS_REASONS_BY_DATASET`);
* a section it does not know is an error, not kept: a number nobody can recompute has no place in a
  report that claims to be recomputed from its CSVs.

So a folder is *consistent* when :func:`refresh_report` with ``check=True`` finds nothing to change; the
test suite asserts that for every committed report.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["refresh_report"]

_METRIC = re.compile(r"^## (NDCG|PRECISION|RECALL)@(\d+)$")


def _sections(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """Split markdown lines into the header and the second-level (``##``) sections (each a list starting with its heading)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    if not starts:
        return lines, []
    bounds = [*starts, len(lines)]
    return lines[: starts[0]], [lines[a:b] for a, b in zip(bounds, bounds[1:])]


def _prose(section: list[str]) -> list[str]:
    """The heading and the hand-written lines of a section: up to its first table row or sub-heading."""
    for i, line in enumerate(section[1:], 1):
        if line.startswith("|") or line.startswith("### "):
            return section[:i]
    return section


def _same_tail(new: list[str], old: list[str]) -> list[str]:
    """``new`` with the blank lines that end ``old`` (whitespace between sections is the old file's)."""

    def blanks(x: list[str]) -> int:
        n = 0
        while n < len(x) and x[len(x) - 1 - n] == "":
            n += 1
        return n

    return new[: len(new) - blanks(new)] + [""] * blanks(old)


class _Inputs:
    """The CSVs of one report folder, read once, and the verdicts computed from them once."""

    def __init__(self, folder: Path, dataset: str):
        import pandas as pd

        from .thesis_numbers import THESIS_BY_DATASET
        from .thesis_report import verdicts
        from .verdicts import MISS_REASONS_BY_DATASET

        self.folder = folder
        self.df = pd.read_csv(folder / "thesis_tables.csv", dtype={"table": str})
        self.printed = THESIS_BY_DATASET[dataset]
        self.reasons = MISS_REASONS_BY_DATASET.get(dataset)
        self.lenient = verdicts(self.df)
        self._strict = None

    def strict(self):
        """The strict verdicts with the data set's stated reasons (``conjecture: no reason recorded`` without)."""
        from .verdicts import strict_verdicts

        if self._strict is None:
            self._strict = strict_verdicts(self.df, printed=self.printed, reasons=self.reasons)
        return self._strict

    def csv(self, name: str):
        import pandas as pd

        path = self.folder / name
        if not path.is_file():
            raise ValueError(
                f"folder {self.folder}: the report has a section computed from {name}, which is missing"
            )
        return pd.read_csv(path, dtype={"table": str})


def _lenient(sec: list[str], inp: _Inputs):
    """The lenient verdicts for a strict section that compares with them (its "Before ... and after" part)."""
    return inp.lenient if "### Before (lenient verdicts.csv) and after" in sec else None


def _tables_section(sec: list[str], inp: _Inputs, file: str) -> list[str]:
    """One second-level (``##``) section of ``thesis_tables.md`` recomputed (see the module notes)."""
    from .thesis_report import _sampling_quality_lines, markdown, verdicts_markdown
    from .thesis_tuning import tuning_markdown
    from .verdicts import strict_markdown

    head = sec[0]
    m = _METRIC.match(head)
    if m:
        return [head, "", markdown(inp.df, m.group(1).lower(), int(m.group(2))), ""]
    if head.startswith("## Verdicts"):  # the heading states the convention and any note: kept
        return [head, "", verdicts_markdown(inp.lenient), ""]
    if head.startswith("## Strict verdicts"):
        return [strict_markdown(inp.strict(), lenient=_lenient(sec, inp), title=head[3:]), ""]
    if head == "## Hyper-parameters chosen on validation":
        tun = inp.csv("tuning.csv")
        recs = [
            {k: (None if isinstance(x, float) and x != x else x) for k, x in r.items()}
            for r in tun.to_dict("records")
        ]
        new = tuning_markdown(recs)
        return (
            _prose(sec) + new[len(_prose(new)) :]
        )  # the stated validation share and seed are the old prose's
    if head.startswith("## Sampling quality"):
        return _sampling_quality_lines(inp.csv("sampling_quality.csv"))
    raise ValueError(f"{file}: section {head!r} is not one refresh_report can recompute")


def _strict_section(sec: list[str], inp: _Inputs, file: str) -> list[str]:
    """One second-level (``##``) section of ``verdicts_strict.md`` recomputed (see the module notes)."""
    from .verdicts import (
        ALTERNATIVE_READINGS,
        _md_table,
        alternatives_markdown,
        distinct_verdicts,
        strict_markdown,
    )

    head = sec[0]
    v = inp.strict()
    if head.startswith("## Strict verdicts"):
        out = [strict_markdown(v, lenient=_lenient(sec, inp), title=head[3:])]
        if "### Distinct rows" in sec:  # the merged occurrences with the largest miss of each row
            cols = ["row_id", "occurrences", "outcome", "delta_ndcg@10", "max_abs_delta", "failing"]
            out += ["### Distinct rows", "", *_md_table(distinct_verdicts(v)[cols]), ""]
        return out
    if head.startswith("## Alternative readings"):
        names = [line[4:] for line in sec if line.startswith("### ")]
        known = {a[0]: a for a in ALTERNATIVE_READINGS}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(
                f"{file}: alternative readings {unknown} are not in ALTERNATIVE_READINGS"
            )
        # each reading's stated "why" is the report's prose (the sentence before its tally): kept
        whys = {}
        for i, line in enumerate(sec[:-2]):
            if line.startswith("### ") and ". Distinct rows: " in sec[i + 2]:
                whys[line[4:]] = sec[i + 2].split(". Distinct rows: ")[0]
        alts = [(n, *known[n][1:3], whys.get(n, known[n][3])) for n in names]
        return [
            alternatives_markdown(
                inp.df, printed=inp.printed, alternatives=alts, reasons=inp.reasons
            )
        ]
    if head.startswith("## Stated reasons for the misses"):
        miss = v[v.outcome != "reproduced"].copy()
        miss["support"] = [
            "conjecture" if r.startswith("conjecture") else "committed ablation"
            for r in miss.reason
        ]
        return _prose(sec) + _md_table(
            miss[["table", "method", "setting", "outcome", "support", "reason"]]
        )
    raise ValueError(f"{file}: section {head!r} is not one refresh_report can recompute")


def refresh_report(folder, dataset: str = "ml-100k", *, check: bool = False) -> list[str]:
    """Rewrite a ``thesis-tables`` report's markdown and verdict CSVs from its tidy table.

    Parameters
    ----------
    folder : str or path-like
        The report folder: ``thesis_tables.csv`` (the tidy table of
        :func:`~negtheory.reproduce.thesis_report.summarize`) and the files to refresh, each where it exists:
        ``thesis_tables.md``, ``verdicts.csv``, ``verdicts_strict.md`` and
        ``verdicts_strict.csv`` (the strict verdicts with the data set's stated reasons for its misses).
        ``tuning.csv`` and ``sampling_quality.csv`` are read
        for their sections.
    dataset : str
        Whose printed numbers and stated reasons the verdicts use: a key of
        :data:`~negtheory.reproduce.thesis_numbers.THESIS_BY_DATASET` (default ``"ml-100k"``).
    check : bool
        Write nothing; return the files that would change.

    Returns
    -------
    list of str
        The names of the files that changed (or would change, with ``check``).

    Raises
    ------
    ValueError
        ``folder`` without ``thesis_tables.csv``, an unknown ``dataset``, or a markdown section this function
        cannot recompute (its heading named).

    Examples
    --------
    After appending the rows of a later run to a committed ``thesis_tables.csv``::

        from negtheory.reproduce import refresh_report
        refresh_report("notebooks/data/thesis_tables", "ml-100k")          # rewrites the markdown
        assert refresh_report("notebooks/data/thesis_tables", check=True) == []
    """
    from .thesis_numbers import THESIS_BY_DATASET

    folder = Path(folder)
    if not (folder / "thesis_tables.csv").is_file():
        raise ValueError(f"folder: {folder} holds no thesis_tables.csv")
    if dataset not in THESIS_BY_DATASET:
        raise ValueError(f"dataset must be one of {sorted(THESIS_BY_DATASET)}, got {dataset!r}")
    inp = _Inputs(folder, dataset)
    new: dict[str, str] = {}
    for name, section in (
        ("thesis_tables.md", _tables_section),
        ("verdicts_strict.md", _strict_section),
    ):
        path = folder / name
        if not path.is_file():
            continue
        header, secs = _sections(path.read_text().split("\n"))
        lines = list(header)
        for sec in secs:
            lines += _same_tail(_flat(section(sec, inp, name)), sec)
        new[name] = "\n".join(lines)
    new["verdicts.csv"] = inp.lenient.to_csv(index=False)
    new["verdicts_strict.csv"] = inp.strict().to_csv(index=False)
    changed = []
    for name, text in new.items():
        path = folder / name
        if name.endswith(".csv") and not path.is_file():
            continue  # a fresh run writes these only when there are verdicts; not created here
        if not path.is_file() or path.read_text() != text:
            changed.append(name)
            if not check:
                path.write_text(text)
    return changed


def _flat(parts: list[str]) -> list[str]:
    """Lines from a list whose items may hold several lines (the markdown helpers return joined strings)."""
    return [line for p in parts for line in p.split("\n")]
