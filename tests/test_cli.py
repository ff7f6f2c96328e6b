"""The ``negtheory`` command line (in-process, through ``negtheory.cli.main``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
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
    assert (
        cli.main(["optimal-k"]) == 2
    )  # one of --auc / --mu is required; main returns argparse's status
    assert "--auc" in capsys.readouterr().err


def test_figures_only_writes_png(tmp_path, capsys):
    assert (
        cli.main(["figures", "--out", str(tmp_path), "--only", "wu_fig9_auc_vs_mu", "--quiet"]) == 0
    )
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
    res = subprocess.run(
        [_console_script(), "optimal-k", "--mu", "1.0"], capture_output=True, text=True, check=True
    )
    assert "K*" in res.stdout


def test_python_dash_m():
    res = subprocess.run(
        [sys.executable, "-m", "negtheory", "optimal-k", "--auc", "0.95"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "K*" in res.stdout


def test_study_mse_cli_writes_csv_and_plot(tmp_path, capsys):
    out, png, ck = tmp_path / "r.csv", tmp_path / "r.png", tmp_path / "ck.jsonl"
    argv = [
        "study",
        "mse",
        "--vary",
        "alpha",
        "--values",
        "0.7:0.9:2",
        "--n-anchors",
        "600",
        "--quiet",
        "--estimators",
        "biased,bcl",
        "--out",
        str(out),
        "--plot",
        str(png),
        "--checkpoint",
        str(ck),
    ]
    assert cli.main(argv) == 0
    import pandas as pd

    from negtheory.studies import Execution, mse_study

    df = pd.read_csv(out)
    want = mse_study(
        "alpha",
        [0.7, 0.9],
        n_anchors=600,
        estimators=("biased", "bcl"),
        execution=Execution(progress=False),
    )
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
    assert (
        cli.main(
            [
                "bridge",
                "train",
                "--data",
                "synthetic",
                "--loss",
                "bcl",
                "--epochs",
                "1",
                "--device",
                "cpu",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    assert (tmp_path / "results.json").exists()


def test_other_subcommands_do_not_import_torch():
    code = "import sys\nfrom negtheory import cli\ncli.main(['optimal-k', '--mu', '1.0'])\nassert 'torch' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


# --------------------------------------------------------------------------------------------
# issue 12 item 9 and issue 13: version, help, option validation, paths, failures, Ctrl-C


def _no_compute(*args, **kwargs):
    raise AssertionError("the command computed before checking its arguments and paths")


def test_version(capsys):
    import negtheory

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"negtheory {negtheory.__version__}"


def test_help_imports_neither_torch_nor_matplotlib():
    code = textwrap.dedent(
        """
        import sys, io, contextlib
        from negtheory import cli
        for argv in (['--help'], ['figures', '--help'], ['study', 'mse', '--help'], ['bridge', 'train', '--help'],
                     ['reproduce', 'thesis-tables', '--help']):
            with contextlib.redirect_stdout(io.StringIO()):
                assert cli.main(argv) == 0, argv
            assert 'torch' not in sys.modules, argv
            assert 'matplotlib' not in sys.modules, argv
        """
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr


def _subparsers(parser, path=("negtheory",)):
    import argparse

    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, path + (name,))


def test_every_command_has_a_description_and_every_option_its_default():
    import argparse

    parsers = list(_subparsers(cli.build_parser()))
    names = {" ".join(p) for p, _ in parsers}
    assert {
        "negtheory study mse",
        "negtheory bridge train",
        "negtheory bridge experiments",
        "negtheory figures",
        "negtheory optimal-k",
        "negtheory reproduce thesis-tables",
    } <= names
    for path, parser in parsers:
        assert parser.description, f"{' '.join(path)} has no description"
        text = parser.format_help()
        in_required_group = {
            a for g in parser._mutually_exclusive_groups if g.required for a in g._group_actions
        }
        for action in parser._actions:
            if not action.option_strings or isinstance(
                action, (argparse._HelpAction, argparse._VersionAction)
            ):
                continue
            assert action.help, f"{' '.join(path)} {action.option_strings[0]} has no help"
            if (
                action.required
                or action in in_required_group
                or isinstance(action, argparse._StoreTrueAction)
            ):
                continue
            help_text = parser._get_formatter()._expand_help(action)
            assert "default" in help_text, (
                f"{' '.join(path)} {action.option_strings[0]}: no default in {help_text!r}"
            )
        assert "%(default)" not in text


def test_study_mse_help_shows_defaults(capsys):
    assert cli.main(["study", "mse", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for piece in (
        "anchors M per point (default: 1000)",
        "(default: 0.9)",
        "(default: 0)",
        "(default: all)",
    ):
        assert piece in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["bridge", "train", "--loss", "bcl", "--k", "-2"], "argument --k: must be >= 1, got -2"),
        (
            ["bridge", "train", "--loss", "bcl", "--k", "nan"],
            "argument --k: must be a finite number, got 'nan'",
        ),
        (
            ["bridge", "train", "--loss", "bcl", "--temperature", "0"],
            "argument --temperature: must be > 0, got 0",
        ),
        (["bridge", "train", "--loss", "bcl", "--lr-schedule", "x"], "argument --lr-schedule:"),
        (["optimal-k", "--auc", "0.3"], "argument --auc: must be in [0.5, 1), got 0.3"),
        (["optimal-k", "--mu", "inf"], "argument --mu: must be a finite number"),
        (["optimal-k", "--mu", "1", "--lam", "2"], "argument --lam: must be in [0, 1], got 2"),
        (
            ["optimal-k", "--mu", "1", "--k-max", "0"],
            "argument --k-max: must be an integer in [1, 1000000], got 0",
        ),
        (
            ["study", "mse", "--vary", "alpha", "--values", "0.7", "--n-anchors", "x"],
            "argument --n-anchors: expected an integer",
        ),
        (
            ["study", "mse", "--vary", "alpha", "--values", "0.7", "--tau-plus", "1"],
            "argument --tau-plus: must be in (0, 1)",
        ),
        (
            ["study", "mse", "--vary", "alpha", "--values", "0.7", "--estimators", "bcl,nope"],
            "argument --estimators:",
        ),
        (
            ["reproduce", "wu-k-sweep", "--train", "a", "--test", "b", "--seeds", "0"],
            "argument --seeds: must be an integer >= 1",
        ),
    ],
)
def test_bad_option_values_are_rejected_when_parsed(argv, message, capsys, monkeypatch):
    monkeypatch.setattr("negtheory.studies.mse_study", _no_compute)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert "mu_label" not in err


def test_values_may_start_with_a_minus(capsys, monkeypatch):
    monkeypatch.setattr("negtheory.studies.mse_study", _no_compute)
    for argv in (["--values", "-1,0.5"], ["--values=-1,0.5"], ["--values", "-1:0.5:3"]):
        assert cli.main(["study", "mse", "--vary", "alpha", *argv]) == 2
        err = capsys.readouterr().err
        assert "--values: alpha must be in [0.5, 1], got -1.0" in err, (
            err
        )  # parsed, then range-checked
    assert cli._attach_negative_values(["--mu", "-1e-3", "--lam", "0.5"]) == [
        "--mu=-1e-3",
        "--lam",
        "0.5",
    ]


def test_optimal_k_at_the_cap_says_so(capsys):
    assert cli.main(["optimal-k", "--auc", "0.5", "--k-max", "50"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"K\*\s+>= 50\b", out) and "--k-max cap" in out
    assert cli.main(["optimal-k", "--auc", "0.75", "--steps", "100", "--k-max", "50"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"K\*\s+= 4\b", out) and "cap" not in out


def test_study_mse_output_paths_are_checked_before_computing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("negtheory.studies.mse_study", _no_compute)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    base = ["study", "mse", "--vary", "alpha", "--values", "0.7", "--quiet"]
    cases = [
        (["--out", str(tmp_path)], f"--out {tmp_path}: is a folder; give a file name"),
        (["--plot", str(a_file / "x.png")], f"{a_file} is not a folder"),
        (["--checkpoint", str(a_file / "ck.jsonl")], f"{a_file} is not a folder"),
        (["--checkpoint", str(tmp_path)], "is a folder"),
        (
            ["--out", str(tmp_path / "r.csv"), "--checkpoint", str(tmp_path / "r.csv")],
            "must name different files",
        ),
        (["--plot", str(tmp_path / "fig.pgn")], "the file name must end with one of"),
    ]
    for extra, message in cases:
        assert cli.main(base + extra) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


def test_study_mse_checkpoint_in_a_missing_folder_is_created(tmp_path, capsys):
    ck = tmp_path / "new" / "sub" / "ck.jsonl"
    out = tmp_path / "other" / "r.csv"
    argv = [
        "study",
        "mse",
        "--vary",
        "alpha",
        "--values",
        "0.7,0.9",
        "--n-anchors",
        "200",
        "--estimators",
        "biased",
        "--quiet",
        "--checkpoint",
        str(ck),
        "--out",
        str(out),
    ]
    assert cli.main(argv) == 0
    assert len(ck.read_text().splitlines()) == 3 and out.exists()
    first = out.read_text()
    assert cli.main(argv) == 0  # resumed from the checkpoint: same table
    assert out.read_text() == first


def test_figures_out_on_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("negtheory.figures.save_figures", _no_compute)
    f = tmp_path / "f.png"
    f.write_text("x")
    assert cli.main(["figures", "--out", str(f), "--only", "wu_fig9_auc_vs_mu"]) == 2
    assert f"--out {f}: exists and is not a folder" in capsys.readouterr().err


def test_dask_dead_address_fails_quickly_and_clearly(capsys, monkeypatch):
    pytest.importorskip("distributed")
    import socket
    import time

    monkeypatch.setattr("negtheory.studies.mse_study", _no_compute)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    rc = cli.main(
        [
            "study",
            "mse",
            "--vary",
            "alpha",
            "--values",
            "0.7",
            "--dask",
            f"tcp://127.0.0.1:{port}",
            "--dask-timeout",
            "1",
        ]
    )
    assert rc == 1 and time.perf_counter() - t0 < 20
    err = capsys.readouterr().err
    assert f"--dask tcp://127.0.0.1:{port}: no Dask scheduler answered within 1 s" in err
    assert len(err.strip().splitlines()) == 1


def test_dask_without_distributed(capsys, monkeypatch):
    monkeypatch.setattr("negtheory.studies.mse_study", _no_compute)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert cli.main(["study", "mse", "--vary", "alpha", "--values", "0.7", "--dask", "local"]) == 1
    assert (
        '--dask requires dask (the negtheory[dask] extra: python -m pip install -e ".[dask]"'
        in capsys.readouterr().err
    )


def test_ctrl_c_is_one_line_and_status_130(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("negtheory.studies.mse_study", interrupted)
    assert cli.main(["study", "mse", "--vary", "alpha", "--values", "0.7"]) == 130
    assert capsys.readouterr().err == "negtheory study mse: interrupted\n"


def test_sigint_to_a_running_command():
    import signal

    # a process started with SIGINT ignored (a background job of a shell without job control)
    # keeps ignoring it: restore Python's handler, the test is about the CLI's KeyboardInterrupt
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import negtheory.studies\n"
        "def slow(*a, **k):\n"
        "    print('started', flush=True)\n"
        "    time.sleep(60)\n"
        "negtheory.studies.mse_study = slow\n"
        "from negtheory import cli\n"
        "sys.exit(cli.main(['study', 'mse', '--vary', 'alpha', '--values', '0.7']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # reap it and close the pipes
    assert proc.returncode == 130
    assert err.strip() == "negtheory study mse: interrupted" and "Traceback" not in err


def test_oserror_is_one_line_and_nonzero(tmp_path, capsys, monkeypatch):
    import pandas as pd

    def disk_full(self, *args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "r.csv"))

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    argv = [
        "study",
        "mse",
        "--vary",
        "alpha",
        "--values",
        "0.7",
        "--n-anchors",
        "200",
        "--estimators",
        "biased",
        "--quiet",
        "--out",
        str(tmp_path / "r.csv"),
    ]
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert "estimator" in captured.out  # the table was printed before the write failed
    assert (
        captured.err.count("\n") == 1
        and "No space left on device" in captured.err
        and "Traceback" not in captured.err
    )


def test_non_finite_study_results_never_exit_0(tmp_path, capsys, monkeypatch):
    import pandas as pd

    def nan_study(vary, values, **kwargs):
        return pd.DataFrame(
            {
                vary: [values[0]],
                "estimator": ["bcl"],
                "mse": [float("nan")],
                "mse_se": [float("nan")],
                "mean": [float("nan")],
                "truth_mean": [float("nan")],
                "n_anchors": [0],
            }
        )

    monkeypatch.setattr("negtheory.studies.mse_study", nan_study)
    out = tmp_path / "r.csv"
    assert cli.main(["study", "mse", "--vary", "alpha", "--values", "0.7", "--out", str(out)]) == 1
    assert "not finite" in capsys.readouterr().err
    assert out.exists()  # written for inspection, but the status says it failed


def test_bridge_is_listed_without_torch_and_names_the_extra():
    code = (
        "import sys, io, contextlib\n"
        "class NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoTorch())\n"
        "from negtheory import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert cli.main(['--help']) == 0\n"
        "assert 'bridge' in out.getvalue()\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert cli.main(['bridge', 'train', '--help']) == 0\n"
        "sys.exit(cli.main(['bridge', 'train', '--loss', 'bcl']))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 1, res.stderr
    assert res.stderr.strip() == (
        "negtheory bridge train: error: negtheory bridge train requires torch (the negtheory[torch] extra: "
        'python -m pip install -e ".[torch]" in a source checkout; negtheory is not on PyPI yet)'
    )


@pytest.fixture()
def fifo(tmp_path):
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def test_loaders_refuse_fifos_and_devices_at_once(fifo, tmp_path, capsys):
    # reproduce: checked before any work (a FIFO would block a reader forever)
    assert (
        cli.main(
            [
                "reproduce",
                "thesis-tables",
                "--train",
                str(fifo),
                "--test",
                str(fifo),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "not a regular file" in capsys.readouterr().err
    from negtheory.recsys import read_interactions

    with pytest.raises(ValueError, match="not a regular file"):
        read_interactions("/dev/zero" if Path("/dev/zero").exists() else fifo)


def test_bridge_loaders_share_the_guards(fifo, tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    import negtheory.bridge.train

    monkeypatch.setattr(negtheory.bridge.train, "train", _no_compute)
    assert cli.main(["bridge", "train", "--loss", "bpr", "--data-dir", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert (
        cli.main(["bridge", "train", "--loss", "bpr", "--train", str(fifo), "--test", str(fifo)])
        == 2
    )
    assert "--train: " in capsys.readouterr().err
    # the toy harness's own MovieLens loader is gone: --data names a toy data set, real data is --data-dir / --train
    assert cli.main(["bridge", "train", "--loss", "bpr", "--data", f"movielens:{fifo}"]) == 2
    assert "--data-dir" in capsys.readouterr().err


def test_bridge_train_out_is_checked_before_training(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    import negtheory.bridge.experiments
    import negtheory.bridge.train

    monkeypatch.setattr(negtheory.bridge.train, "train", _no_compute)
    monkeypatch.setattr(negtheory.bridge.experiments, "run_all", _no_compute)
    f = tmp_path / "f"
    f.write_text("x")
    assert cli.main(["bridge", "train", "--loss", "bcl", "--out", str(f)]) == 2
    assert f"--out {f}: exists and is not a folder" in capsys.readouterr().err
    assert cli.main(["bridge", "experiments", "--figures", str(f)]) == 2
    assert f"--figures {f}: exists and is not a folder" in capsys.readouterr().err


def test_bridge_train_non_finite_metrics_exit_1(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    import negtheory.bridge.train

    def diverged(**kwargs):
        return {
            "final": {"epoch": 1, "loss": float("nan"), "ndcg@10": 0.1},
            "seconds": 0.0,
            "results_file": "x",
        }

    monkeypatch.setattr(negtheory.bridge.train, "train", diverged)
    assert cli.main(["bridge", "train", "--loss", "bcl", "--quiet"]) == 1
    assert "non-finite final metrics loss" in capsys.readouterr().err


def test_reproduce_out_on_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    assert cli.main(["reproduce", "relaxed-softmax", "--quick", "--out", str(f)]) == 2
    assert f"--out {f}: exists and is not a folder" in capsys.readouterr().err


def test_numerical_failure_is_one_line(capsys):
    # t = 0.1 overflows exp(x / t) in the generator: a one-line error, never a traceback
    assert (
        cli.main(
            ["study", "mse", "--vary", "t", "--values", "0.1", "--n-anchors", "100", "--quiet"]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("negtheory study mse: error: ") and err.count("\n") == 1 and "t" in err


def test_figures_bridge_flag_and_list(tmp_path, monkeypatch, capsys):
    """`figures --bridge` passes the bridge options to save_figures; `--list` names every committed figure."""
    import negtheory.figures as figs
    from negtheory.cli import main

    seen = {}

    def fake_save(out, only, **kw):
        seen.update(kw, out=out, only=only)
        return []

    monkeypatch.setattr(figs, "save_figures", fake_save)
    assert (
        main(
            [
                "figures",
                "--out",
                str(tmp_path / "o"),
                "--bridge",
                "--bridge-data",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    assert (
        seen["bridge"] is True
        and str(seen["bridge_data"]) == str(tmp_path)
        and seen["only"] is None
    )
    assert main(["figures", "--list"]) == 0
    listed = capsys.readouterr().out
    for name in [*figs.registry(), *figs.bridge_names(), *figs.EXTERNAL_FIGURES]:
        assert name in listed
    assert [ln.split()[0] for ln in listed.splitlines() if ln.startswith("bridge_")] == [
        "bridge_wu_k_sweep",
        "bridge_downstream",
    ]


# --------------------------------------------------------------------------------------------
# issue 20: default outputs never touch the committed folders; rough edges of the commands


def test_default_outputs_are_under_negtheory_output():
    parser = cli.build_parser()
    assert parser.parse_args(["figures"]).out == str(Path("negtheory_output") / "figures")
    for name in ("thesis-tables", "wu-k-sweep"):
        args = parser.parse_args(["reproduce", name, "--train", "a", "--test", "b"])
        assert Path(args.out).parts[0] == "negtheory_output", (name, args.out)
    # resolved when run (they depend on --quick): None here
    assert parser.parse_args(["reproduce", "relaxed-softmax"]).out is None
    assert (
        parser.parse_args(["reproduce", "sim-vs-train", "--train", "a", "--test", "b"]).out is None
    )
    assert parser.parse_args(["bridge", "experiments"]).out is None
    assert parser.parse_args(["bridge", "train", "--loss", "bpr"]).out is None  # print only


def _stop_at_output(module, monkeypatch, seen):
    """Make ``module.output_dir`` record its folders and stop the command at the second one."""

    def fake(path, option):
        seen.append((option, Path(path)))
        if len(seen) == 2:
            raise cli.CommandError("stopped by the test")
        return Path(path)

    monkeypatch.setattr(module, "output_dir", fake)


def test_relaxed_softmax_quick_writes_a_quick_folder_and_no_progress_is_deprecated(
    tmp_path, monkeypatch, capsys
):
    from negtheory.reproduce import relaxed_softmax as rsrep

    monkeypatch.chdir(tmp_path)
    seen = []
    _stop_at_output(rsrep, monkeypatch, seen)
    assert cli.main(["reproduce", "relaxed-softmax", "--quick", "--quiet"]) == 2
    quick = Path("negtheory_output") / "relaxed_softmax_quick"
    assert seen == [("--out", quick), ("--figures", quick)]
    seen.clear()
    assert cli.main(["reproduce", "relaxed-softmax", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert (
        "--no-progress is deprecated since negtheory 0.1 and removed in 0.2; use --quiet instead"
        in err
    )
    assert seen[0] == ("--out", Path("negtheory_output") / "relaxed_softmax")
    # committed results only on request, and never from a smoke run
    assert cli.main(["reproduce", "relaxed-softmax", "--quick", "--update-committed"]) == 2
    assert (
        "--update-committed writes the committed default-size results: drop --quick"
        in capsys.readouterr().err
    )
    assert cli.main(["reproduce", "relaxed-softmax", "--update-committed", "--out", "x"]) == 2
    assert "drop --out and --figures" in capsys.readouterr().err


def test_bridge_experiments_quick_quiet_says_where_it_wrote(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    import negtheory.bridge.experiments

    seen = {}
    monkeypatch.setattr(negtheory.bridge.experiments, "run_all", lambda **kw: seen.update(kw))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["bridge", "experiments", "--quick", "--quiet"]) == 0
    quick = Path("negtheory_output") / "bridge_experiments_quick"
    assert (
        seen["out"] == quick and seen["figures"] == quick and seen["quick"] and not seen["progress"]
    )
    out = capsys.readouterr().out
    assert out.startswith(f"wrote {quick / 'bridge_wu_k_sweep.csv'}") and "QUICK smoke run" in out
    assert cli.main(["bridge", "experiments", "--quick", "--update-committed"]) == 2
    assert "cannot be combined with --quick" in capsys.readouterr().err


def test_quick_figures_say_quick():
    from negtheory.figures import new_figure
    from negtheory.figures._canvas import QUICK_LABEL, mark_quick

    fig, _ = new_figure()
    assert mark_quick(fig)._suptitle.get_text() == QUICK_LABEL
    fig, _ = new_figure()
    fig.suptitle("Fig. 3")
    assert mark_quick(fig)._suptitle.get_text() == f"{QUICK_LABEL} — Fig. 3"


def _ratings(path, rows):
    path.write_text("user,item,rating\n" + "".join(f"{u},{i},4\n" for u, i in rows))
    return path


def test_thesis_tables_checks_its_inputs_before_any_progress_bar(tmp_path, capsys, monkeypatch):
    from negtheory.reproduce import thesis_tables

    monkeypatch.setattr(thesis_tables, "run_tables", _no_compute)
    good = _ratings(tmp_path / "good.csv", [(1, 2), (1, 3), (2, 3)])
    bad = tmp_path / "bad.csv"
    bad.write_text("user,item,rating\n1,2,4\n1,3\n")  # a rating missing on line 3
    out = str(tmp_path / "o")
    assert (
        cli.main(
            ["reproduce", "thesis-tables", "--train", str(bad), "--test", str(good), "--out", out]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and err.startswith("negtheory reproduce thesis-tables: error: ")
        and "bad.csv" in err
    ), err
    assert not (tmp_path / "o").exists()  # nothing made for a run that cannot start
    # an unknown method: one line listing the valid names of the chosen tables
    assert (
        cli.main(
            [
                "reproduce",
                "thesis-tables",
                "--train",
                str(good),
                "--test",
                str(good),
                "--out",
                out,
                "--tables",
                "4.2",
                "--methods",
                "FOO",
                "rns",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--methods: unknown for tables 4.2: FOO; valid: RNS PNS AOBPR DNS SRNS BNS" in err


def test_thesis_tables_jobs_help_is_readable(capsys):
    assert cli.main(["reproduce", "thesis-tables", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "parallel worker processes" in text and "single-threaded results are identical" not in text
    )


def test_wu_k_sweep_one_seed_prints_no_nan(tmp_path, capsys, monkeypatch):
    import pandas as pd

    from negtheory.reproduce import wu_k_sweep

    def fake_sweep(*args, **kwargs):
        df = pd.DataFrame(
            dict(
                k=[1, 2],
                seed=[0, 0],
                best_epoch=[1, 1],
                valid_ndcg10=[0.1, 0.2],
                test_ndcg10=[0.1, 0.2],
                seconds=[0.0, 0.0],
            )
        )
        summary = dict(
            valid_auc_k1=0.8,
            mu_q=1.2,
            k_star_continuous=4,
            k_star_steps100=4,
            k_best_valid=2,
            k_best_test=2,
        )
        return df, summary

    monkeypatch.setattr(wu_k_sweep, "sweep", fake_sweep)
    f = _ratings(tmp_path / "r.csv", [(1, 2)])
    argv = [
        "reproduce",
        "wu-k-sweep",
        "--train",
        str(f),
        "--test",
        str(f),
        "--ks",
        "1",
        "2",
        "--seeds",
        "1",
    ]
    assert cli.main([*argv, "--out", str(tmp_path / "o"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower() and "0.1000 [n/a: 1 seed]" in out
    assert "nan" not in (tmp_path / "o" / "wu_k_sweep.md").read_text().lower()


def test_bridge_train_data_dir_missing_says_directory(tmp_path, capsys):
    pytest.importorskip("torch")
    nope = tmp_path / "nope"
    assert cli.main(["bridge", "train", "--data-dir", str(nope), "--loss", "bpr"]) == 2
    assert capsys.readouterr().err.strip().endswith(f"--data-dir {nope}: no such directory")


@pytest.mark.slow
def test_bridge_train_epochs_count_from_1_and_config_says_rng_on_both_paths(tmp_path, capsys):
    pytest.importorskip("torch")
    import json

    from negtheory.bridge.train import train

    # toy data (what `bridge train --data synthetic` runs, at a tiny size)
    toy = train(
        data="synthetic",
        loss="bpr",
        epochs=1,
        device="cpu",
        progress=False,
        out=str(tmp_path / "toy"),
        synthetic=dict(n_users=40, n_items=60),
    )
    assert toy["final"]["epoch"] == 1 and [h["epoch"] for h in toy["history"]] == [1]
    assert {row["epoch"] for row in toy["probe_rows"]} == {
        1
    }  # probe rows count epochs as the history does
    saved = json.loads((tmp_path / "toy" / "results.json").read_text())
    assert saved["config"]["rng"] == 0 and "seed" not in saved["config"]
    # an explicit split (BPR-MF by batch-1 SGD), through the command
    rows = [(u, i) for u in range(8) for i in range(30) if (u + i) % 3 == 0]
    train_csv = _ratings(tmp_path / "train.csv", rows[::2])
    test_csv = _ratings(tmp_path / "test.csv", rows[1::2])
    assert (
        cli.main(
            [
                "bridge",
                "train",
                "--train",
                str(train_csv),
                "--test",
                str(test_csv),
                "--loss",
                "bpr",
                "--optimizer",
                "sgd",
                "--epochs",
                "1",
                "--topk",
                "5",
                "--out",
                str(tmp_path / "split"),
                "--quiet",
            ]
        )
        == 0
    )
    split = json.loads((tmp_path / "split" / "results.json").read_text())
    assert split["final"]["epoch"] == 1
    assert split["config"]["rng"] == 0 and "seed" not in split["config"]


def test_update_committed_needs_the_committed_folder():
    from negtheory._cli_common import CommandError, committed_dir

    root = Path(cli.__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / "figures").is_dir():  # a source checkout
        assert committed_dir("figures") == root / "figures"
    with pytest.raises(CommandError, match="not running from one"):
        committed_dir("no_such_committed_folder")


def test_default_output_folder_is_ignored_by_git():
    """Smoke runs from the repository root leave `git status` clean: git ignores negtheory_output/."""
    root = Path(cli.__file__).resolve().parents[1]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    probe = "negtheory_output/relaxed_softmax_quick/relaxed_softmax_fig2_temperature.png"
    res = subprocess.run(
        ["git", "check-ignore", "-q", probe], cwd=root, capture_output=True, check=False
    )
    assert res.returncode == 0, f"{probe} is not ignored by git"
    committed = subprocess.run(
        ["git", "check-ignore", "-q", "figures/thesis_tables_ml100k.png"], cwd=root, check=False
    )
    assert committed.returncode == 1  # the committed figures are not ignored
