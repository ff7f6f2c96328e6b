"""The command line as a new user meets it (issue 30): each mistake of the fresh-clone run gets one clear line.

Every test runs the command as a user types it: ``negtheory.cli.main`` with the argv of the shell line (the
console script calls exactly that), or the console script itself where the pipe matters.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import numpy as np
import pytest

from negtheory import cli


def _run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A small MovieLens-like data set in the layouts of the report: u.data, u.data.gz, a train/test CSV pair."""
    root = tmp_path_factory.mktemp("data")
    g = np.random.default_rng(0)
    rows = [(u, int(i)) for u in range(1, 41) for i in g.choice(np.arange(1, 61), 12, replace=False)]
    text = "".join(f"{u}\t{i}\t4\t881250949\n" for u, i in rows)
    (root / "ml").mkdir()
    (root / "ml" / "u.data").write_text(text)
    (root / "mlgz").mkdir()
    (root / "mlgz" / "u.data.gz").write_bytes(gzip.compress(text.encode()))
    (root / "csvs").mkdir()
    (root / "csvs" / "a.csv").write_text("user,item\n1,2\n")
    (root / "csvs" / "b.csv").write_text("user,item\n1,3\n")
    (root / "empty").mkdir()
    (root / "tiny.csv").write_text("user,item\n1,2\n1,3\n")
    (root / "image.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "short_row.csv").write_text("user,item,rating\n1,2,5\nfoo,bar\n")
    (root / "train.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in rows[::2]))
    (root / "test.csv").write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in rows[1::2]))
    return root


SPLIT = ["bridge", "train", "--quiet", "--epochs", "1"]


# --------------------------------------------------------------------------- --data-dir and the readers
@pytest.mark.parametrize("folder", ["csvs", "empty"])
def test_data_dir_without_a_known_file_says_what_it_looked_for(folder, data, capsys):
    code, _, err = _run([*SPLIT, "--loss", "bpr", "--data-dir", str(data / folder)], capsys)
    assert code == 2
    assert "no interaction file found in this folder" in err and "u.data" in err and "FIFO" not in err
    assert ("a.csv, b.csv" in err) if folder == "csvs" else ("it is empty" in err)


@pytest.mark.parametrize("fmt", [[], ["--format", "csv"]])
def test_data_dir_with_u_data_gz_trains(fmt, data, capsys):
    code, out, err = _run([*SPLIT, "--loss", "bpr", "--data-dir", str(data / "mlgz"), *fmt], capsys)
    assert code == 0, err
    summary = json.loads(out[out.index("{") :])
    assert summary["data"]["n_train"] + summary["data"]["n_test"] == 480 and summary["data"]["n_test"] > 0


def test_data_dir_file_too_small_to_split_is_an_error(data, capsys):
    code, out, err = _run([*SPLIT, "--loss", "bpr", "--data-dir", str(data / "tiny.csv")], capsys)
    assert code == 2 and "leaves no test interaction" in err and "--data-dir" in err
    assert '"n_test": 0' not in out


def test_binary_file_error_names_the_file(data, capsys):
    code, _, err = _run([*SPLIT, "--loss", "bpr", "--train", str(data / "image.csv"), "--test", str(data / "test.csv")], capsys)
    assert code == 2
    assert "image.csv is not a text file" in err and "89 50 4e 47" in err and "codec" not in err


def test_a_short_csv_row_is_reported_as_a_missing_field(data, capsys):
    code, _, err = _run(
        [*SPLIT, "--loss", "bpr", "--train", str(data / "short_row.csv"), "--test", str(data / "test.csv")], capsys
    )
    assert code == 2
    assert "short_row.csv, line 3: the rating field is missing" in err and "nan" not in err


def test_topk_longer_than_the_catalogue_names_the_flag_before_training(data, capsys):
    argv = ["bridge", "train", "--loss", "bpr", "--train", str(data / "train.csv"), "--test", str(data / "test.csv")]
    code, out, err = _run([*argv, "--topk", "5000"], capsys)
    assert code == 2 and "--topk 5000" in err and "60 items" in err
    assert "it/s" not in err and "epoch" not in err.lower()  # refused before any progress bar


# --------------------------------------------------------------------------- bridge train flag combinations
def _config(data, capsys, *flags):
    argv = [*SPLIT, "--train", str(data / "train.csv"), "--test", str(data / "test.csv"), *flags]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    return json.loads(out[out.index("{") :])["config"]


def test_minibatch_bpr_with_bns_runs_bns(data, capsys):
    assert _config(data, capsys, "--loss", "bpr", "--optimizer", "adam", "--sampler", "bns")["sampler"] == "bns"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--loss", "bpr", "--optimizer", "adam", "--sampler", "aobpr"], "--sampler aobpr runs on the batch-1 SGD path only"),
        (
            ["--loss", "infonce", "--optimizer", "adam", "--sampler", "bns"],
            "--sampler bns with the mini-batch losses needs --loss bpr",
        ),
        (["--loss", "bns", "--optimizer", "sgd", "--sampler", "rns"], "--loss bns samples by BNS"),
        (["--loss", "bpr", "--optimizer", "sgd", "--device", "cuda"], "--device cuda: the batch-1 SGD path"),
    ],
)
def test_flags_that_would_be_ignored_are_errors(flags, message, data, capsys):
    code, _, err = _run([*SPLIT, "--train", str(data / "train.csv"), "--test", str(data / "test.csv"), *flags], capsys)
    assert code == 2 and message in err


def test_device_cuda_without_cuda_is_an_error(data, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    flags = ["--loss", "infonce", "--optimizer", "adam", "--device", "cuda"]
    code, _, err = _run([*SPLIT, "--train", str(data / "train.csv"), "--test", str(data / "test.csv"), *flags], capsys)
    assert code == 2 and "--device cuda: torch finds no CUDA device" in err


def test_minibatch_sgd_uses_the_documented_learning_rate(data, capsys):
    assert _config(data, capsys, "--loss", "infonce", "--optimizer", "sgd")["lr"] == 0.01
    assert _config(data, capsys, "--loss", "infonce", "--optimizer", "adam")["lr"] == 0.001


def test_lr_help_matches_the_defaults(capsys):
    code, out, _ = _run(["bridge", "train", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert "default: 0.01 with --optimizer sgd" in text and "1e-3 with Adam on a split" in text


# --------------------------------------------------------------------------- study mse and optimal-k
def test_study_mse_into_a_closed_pipe_is_quiet():
    argv = [
        sys.executable,
        "-m",
        "negtheory",
        "study",
        "mse",
        "--vary",
        "alpha",
        "--values",
        "0.6,0.9",
        "--n-anchors",
        "64",
        "--quiet",
    ]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()  # the reader is gone before anything is written: `| head -0`
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=600) == 0, err
    assert "Broken pipe" not in err and err.strip() == ""


def test_study_mse_still_writes_its_file_when_the_pipe_closes(tmp_path):
    out = tmp_path / "mse.csv"
    argv = [sys.executable, "-m", "negtheory", "study", "mse", "--vary", "alpha", "--values", "0.6,0.9", "--n-anchors", "64",
            "--quiet", "--out", str(out)]  # fmt: skip
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()
        assert proc.wait(timeout=600) == 0, proc.stderr.read().decode()
    assert out.read_text().startswith("alpha,estimator")


def test_study_mse_refuses_a_study_that_does_not_fit_in_memory(capsys):
    argv = ["study", "mse", "--vary", "n_unlabeled", "--values", "100000000", "--n-anchors", "2", "--max-memory", "2"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert "needs about 9.6 GB" in err and "--max-memory" in err and "--n-unlabeled" in err


def test_study_mse_warns_before_a_large_study(capsys, monkeypatch):
    import negtheory.studies as studies

    monkeypatch.setattr(studies, "_WARN_BYTES", 1e4)  # this small study then counts as large
    code, _, err = _run(["study", "mse", "--vary", "alpha", "--values", "0.9", "--n-anchors", "8", "--quiet"], capsys)
    assert code == 0 and "negtheory study mse: warning: n_unlabeled = 64 needs about" in err


def test_chunk_size_help_no_longer_promises_to_bound_memory(capsys):
    code, out, _ = _run(["study", "mse", "--help"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "bounds memory" not in text and "--max-memory" in text


def test_optimal_k_cap_is_documented_and_named(capsys):
    code, out, _ = _run(["optimal-k", "--help"], capsys)
    assert code == 0 and "at most 1000000" in " ".join(out.split())
    code, _, err = _run(["optimal-k", "--auc", "0.75", "--k-max", "1e8"], capsys)
    assert code == 2 and "--k-max: must be an integer in [1, 1000000], got 1e8" in err


def test_integer_options_accept_scientific_notation(capsys):
    code, out, _ = _run(["optimal-k", "--auc", "0.75", "--k-max", "1e2", "--steps", "1e2"], capsys)
    assert code == 0 and "K*           = 4" in out
