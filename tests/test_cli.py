"""The ``negtheory`` command line (in-process, through ``negtheory.cli.main``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from negtheory import cli, infonce


def test_optimal_k_from_auc_paper_case(capsys):
    assert cli.main(["optimal-k", "--auc", "0.75", "--steps", "100"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"K\*\s+=\s+4\b", out)
    mu = float(re.search(r"mu_q\s+=\s+([0-9.]+)", out).group(1))
    assert mu == pytest.approx(float(infonce.mu_from_auc(0.75)), rel=1e-5)


def test_optimal_k_from_mu(capsys):
    assert cli.main(["optimal-k", "--mu", "2.4", "--lam", "0.9"]) == 0
    out = capsys.readouterr().out
    k = int(re.search(r"K\*\s+=\s+(\d+)", out).group(1))
    assert k == infonce.optimal_k(2.4, 0.9)


def test_optimal_k_bad_input_is_a_clean_error(capsys):
    assert cli.main(["optimal-k", "--auc", "1.5"]) == 2
    err = capsys.readouterr().err
    assert "argument --auc: must be in [0.5, 1), got 1.5" in err
    assert cli.main(["optimal-k"]) == 2  # one of --auc / --mu is required; main returns argparse's status
    assert "--auc" in capsys.readouterr().err


def test_figures_only_writes_png(tmp_path, capsys):
    assert cli.main(["figures", "--out", str(tmp_path), "--only", "wu_fig9_auc_vs_mu", "--quiet"]) == 0
    png = tmp_path / "wu_fig9_auc_vs_mu.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_figures_unknown_name(tmp_path, capsys):
    assert cli.main(["figures", "--out", str(tmp_path), "--only", "no_such_figure"]) == 2
    assert "no_such_figure" in capsys.readouterr().err


def test_figures_list(capsys):
    assert cli.main(["figures", "--list"]) == 0
    assert "wu_fig4_optimal_k_vs_mu" in capsys.readouterr().out


def _console_script():
    here = Path(sys.executable).parent / "negtheory"
    return str(here) if here.exists() else shutil.which("negtheory")


@pytest.mark.skipif(_console_script() is None, reason="console script not installed")
def test_console_script_entry_point():
    res = subprocess.run([_console_script(), "optimal-k", "--mu", "1.0"], capture_output=True, text=True, check=True)
    assert "K*" in res.stdout


def test_python_dash_m():
    res = subprocess.run([sys.executable, "-m", "negtheory", "optimal-k", "--auc", "0.95"], capture_output=True, text=True, check=True)
    assert "K*" in res.stdout


def test_study_mse_cli_writes_csv_and_plot(tmp_path, capsys):
    out, png, ck = tmp_path / "r.csv", tmp_path / "r.png", tmp_path / "ck.jsonl"
    argv = ["study", "mse", "--vary", "alpha", "--values", "0.7:0.9:2", "--n-anchors", "600", "--quiet",
            "--estimators", "biased,bcl", "--out", str(out), "--plot", str(png), "--checkpoint", str(ck)]  # fmt: skip
    assert cli.main(argv) == 0
    import pandas as pd

    from negtheory.studies import mse_study

    df = pd.read_csv(out)
    want = mse_study("alpha", [0.7, 0.9], n_anchors=600, estimators=("biased", "bcl"), progress=False)
    pd.testing.assert_frame_equal(df, want, check_exact=False, rtol=1e-12)
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert len(ck.read_text().splitlines()) == 3


def test_parse_values():
    assert cli.parse_values("0.5:1.0:11")[::5] == [0.5, 0.75, 1.0]
    assert cli.parse_values("16,32,64", integer=True) == [16, 32, 64]
    with pytest.raises(ValueError, match="values"):
        cli.parse_values("1.5,2", integer=True)
    with pytest.raises(ValueError, match="values"):
        cli.parse_values("a:b")


def test_bridge_train_through_the_negtheory_command(tmp_path):
    pytest.importorskip("torch")
    assert cli.main(["bridge", "train", "--data", "synthetic", "--loss", "bcl", "--epochs", "1", "--device", "cpu",
                     "--out", str(tmp_path), "--quiet"]) == 0  # fmt: skip
    assert (tmp_path / "results.json").exists()


def test_other_subcommands_do_not_import_torch():
    code = "import sys\nfrom negtheory import cli\ncli.main(['optimal-k', '--mu', '1.0'])\nassert 'torch' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
