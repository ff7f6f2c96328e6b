"""refresh_report: every committed thesis-tables report is what its CSVs give, and a stale number is put right.

The committed reports (``notebooks/data/thesis_tables*``) grow by appended runs and carry hand-written headers;
their markdown and verdict CSVs must still be recomputable from the tidy table alone. The first test is that
check on every committed folder (it found the Yahoo!-R3 report stale after its early-stopped rows were appended:
the tables lacked the ``best validation epoch`` column). The others edit a copy of a small committed report and
check that refresh_report restores the numbers, keeps the prose and refuses what it cannot recompute.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from negtheory.reproduce import refresh_report

DATA = Path(__file__).resolve().parent.parent / "notebooks" / "data"
COMMITTED = [
    ("thesis_tables", "ml-100k"),
    ("thesis_tables_ml1m", "ml-1m"),
    ("thesis_tables_yahoo", "yahoo-r3"),
    ("thesis_tables_gowalla", "gowalla"),
]


@pytest.mark.parametrize(("folder", "dataset"), COMMITTED)
def test_committed_reports_are_recomputed_from_their_csvs(folder, dataset):
    assert (DATA / folder / "thesis_tables.md").is_file()
    assert refresh_report(DATA / folder, dataset, check=True) == []


@pytest.fixture
def report(tmp_path):
    """A copy of the (small) committed Gowalla report."""
    dst = tmp_path / "gowalla"
    shutil.copytree(
        DATA / "thesis_tables_gowalla", dst, ignore=shutil.ignore_patterns("runs", "*.png")
    )
    return dst


def test_a_stale_number_is_recomputed_and_the_prose_kept(report):
    md = report / "thesis_tables.md"
    original = md.read_text()
    lines = original.split("\n")
    row = next(i for i, line in enumerate(lines) if line.startswith("| 5.2 | BPR | MF |"))
    cells = lines[row].split(" | ")
    cells[5] = (
        "0.9999 [0.9999, 0.9999]"  # the measured mean, as if a run had been appended but not reported
    )
    lines[row] = " | ".join(cells)
    lines[2] = lines[2] + " Edited by hand."  # prose in the header
    md.write_text("\n".join(lines))
    (report / "verdicts.csv").write_text("stale\n")
    assert refresh_report(report, "gowalla", check=True) == ["thesis_tables.md", "verdicts.csv"]
    assert (report / "verdicts.csv").read_text() == "stale\n"  # check writes nothing
    assert refresh_report(report, "gowalla") == ["thesis_tables.md", "verdicts.csv"]
    fixed = md.read_text().split("\n")
    assert fixed[row] == original.split("\n")[row]
    assert fixed[2].endswith(" Edited by hand.")
    assert (report / "verdicts.csv").read_text() == (
        DATA / "thesis_tables_gowalla" / "verdicts.csv"
    ).read_text()
    assert refresh_report(report, "gowalla", check=True) == []


def test_the_verdicts_follow_the_tidy_table(report):
    import pandas as pd

    csv = report / "thesis_tables.csv"
    df = pd.read_csv(csv, dtype={"table": str})
    # the 5.2 BPR row moved onto its printed NDCG@10: the strict verdict CSV must change with it
    at = (df.method == "BPR") & (df.metric == "ndcg") & (df.k == 10)
    for col in ("mean", "ci_low", "ci_high"):
        df.loc[at, col] = df.loc[at, "thesis"]
    df.to_csv(csv, index=False)
    changed = refresh_report(report, "gowalla")
    assert "verdicts_strict.csv" in changed and "thesis_tables.md" in changed
    sv = pd.read_csv(report / "verdicts_strict.csv", dtype={"table": str})
    assert sv.loc[sv.method == "BPR", "delta_ndcg@10"].abs().max() == pytest.approx(0.0, abs=1e-12)


def test_a_section_it_cannot_recompute_is_refused(report):
    md = report / "thesis_tables.md"
    md.write_text(md.read_text() + "\n## My own numbers\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    with pytest.raises(ValueError, match="'## My own numbers'"):
        refresh_report(report, "gowalla", check=True)


def test_bad_arguments(report, tmp_path):
    with pytest.raises(ValueError, match="folder"):
        refresh_report(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="dataset"):
        refresh_report(report, "movielens")
    (report / "sampling_quality.csv").unlink()
    with pytest.raises(ValueError, match="sampling_quality.csv"):
        refresh_report(report, "gowalla", check=True)
