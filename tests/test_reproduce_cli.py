"""``negtheory reproduce`` as a user runs it (issue 30): the help lists every reproduction, ``thesis-tables --quick``
exists, one-seed figures say they have no interval, overridden epochs are stated beside the verdicts, and the final
"wrote" line names every file written."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from negtheory import cli
from negtheory.reproduce import REPRODUCTIONS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    root = tmp_path_factory.mktemp("split")
    g = np.random.default_rng(0)
    rows = [
        (u, int(i)) for u in range(1, 41) for i in g.choice(np.arange(1, 61), 12, replace=False)
    ]
    (root / "train.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in rows[::2]))
    (root / "test.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in rows[1::2]))
    return root


def _run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", [["--help"], ["reproduce", "--help"]])
def test_help_lists_every_reproduction(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # no wrapping inside the names
    code, out, _ = _run(argv, capsys)
    assert code == 0
    for name in REPRODUCTIONS:
        assert name in out, name


def _wrote(out: str) -> list[Path]:
    line = next(ln for ln in out.splitlines() if ln.startswith("wrote "))
    return [Path(p) for p in re.findall(r"(\S+\.(?:csv|md|png))", line)]


def test_thesis_tables_quick_is_a_labelled_smoke_run(split, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(split / "train.csv"),
        "--test",
        str(split / "test.csv"),
        "--quick",
    ]
    code, out, err = _run([*argv, "--quiet"], capsys)
    assert code == 0, err
    folder = tmp_path / "negtheory_output" / "thesis_tables_quick"
    written = _wrote(out)
    on_disk = {p.name for p in folder.glob("*.*")}
    assert {p.name for p in written} == on_disk, (
        written,
        on_disk,
    )  # every file written is named, and only those
    assert {
        "thesis_tables.csv",
        "thesis_tables.md",
        "thesis_tables.png",
        "verdicts.csv",
        "runs.csv",
    } <= on_disk
    md = (folder / "thesis_tables.md").read_text()
    verdict_heading = next(ln for ln in md.splitlines() if ln.startswith("## Verdicts"))
    assert "QUICK smoke run" in verdict_heading and "epochs overridden to 2" in verdict_heading
    assert "1 seed: no interval" in out


def test_overridden_epochs_are_stated_beside_the_verdicts(split, tmp_path, capsys):
    argv = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(split / "train.csv"),
        "--test",
        str(split / "test.csv"),
        "--tables",
        "4.2",
        "--methods",
        "RNS",
        "--seeds",
        "2",
        "--epochs",
        "3",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    md = (tmp_path / "thesis_tables.md").read_text()
    heading = next(ln for ln in md.splitlines() if ln.startswith("## Verdicts"))
    assert (
        "epochs overridden to 3" in heading
        and "QUICK" not in heading
        and "no interval" not in heading
    )
    assert "note: epochs overridden to 3" in out


def test_one_seed_figure_legend_says_no_interval(split, tmp_path, capsys):
    import pandas as pd

    from negtheory.reproduce.thesis_tables import figure

    argv = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(split / "train.csv"),
        "--test",
        str(split / "test.csv"),
        "--tables",
        "4.2",
        "--methods",
        "RNS",
        "--seeds",
        "1",
        "--epochs",
        "1",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    assert _run(argv, capsys)[0] == 0
    df = pd.read_csv(tmp_path / "thesis_tables.csv")
    fig = figure(df)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "negtheory (1 seed: no interval)" in labels and not any("95" in lab for lab in labels)
    two = df.assign(n_seeds=3)
    labels = [t.get_text() for legend in figure(two).legends for t in legend.get_texts()]
    assert "negtheory (mean, 95 % CI)" in labels


def test_wu_k_sweep_wrote_line_names_its_files(split, tmp_path, capsys):
    pytest.importorskip("torch")

    argv = [
        "reproduce",
        "wu-k-sweep",
        "--train",
        str(split / "train.csv"),
        "--test",
        str(split / "test.csv"),
        "--ks",
        "1",
        "2",
        "--seeds",
        "1",
        "--epochs",
        "1",
        "--eval-every",
        "1",
        "--out",
        str(tmp_path),
        "--quiet",
    ]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    assert {p.name for p in _wrote(out)} == {"wu_k_sweep.csv", "wu_k_sweep.md", "wu_k_sweep.png"}
    assert all(p.exists() for p in _wrote(out))
