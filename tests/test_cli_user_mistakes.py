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
    rows = [
        (u, int(i)) for u in range(1, 41) for i in g.choice(np.arange(1, 61), 12, replace=False)
    ]
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
    assert (
        "no interaction file found in this folder" in err and "u.data" in err and "FIFO" not in err
    )
    assert ("a.csv, b.csv" in err) if folder == "csvs" else ("it is empty" in err)


@pytest.mark.parametrize("fmt", [[], ["--format", "csv"]])
def test_data_dir_with_u_data_gz_trains(fmt, data, capsys):
    code, out, err = _run([*SPLIT, "--loss", "bpr", "--data-dir", str(data / "mlgz"), *fmt], capsys)
    assert code == 0, err
    summary = json.loads(out[out.index("{") :])
    assert (
        summary["data"]["n_train"] + summary["data"]["n_test"] == 480
        and summary["data"]["n_test"] > 0
    )


def test_data_dir_file_too_small_to_split_is_an_error(data, capsys):
    code, out, err = _run([*SPLIT, "--loss", "bpr", "--data-dir", str(data / "tiny.csv")], capsys)
    assert code == 2 and "leaves no test interaction" in err and "--data-dir" in err
    assert '"n_test": 0' not in out


def test_binary_file_error_names_the_file(data, capsys):
    code, _, err = _run(
        [
            *SPLIT,
            "--loss",
            "bpr",
            "--train",
            str(data / "image.csv"),
            "--test",
            str(data / "test.csv"),
        ],
        capsys,
    )
    assert code == 2
    assert "image.csv is not a text file" in err and "89 50 4e 47" in err and "codec" not in err


def test_a_short_csv_row_is_reported_as_a_missing_field(data, capsys):
    code, _, err = _run(
        [
            *SPLIT,
            "--loss",
            "bpr",
            "--train",
            str(data / "short_row.csv"),
            "--test",
            str(data / "test.csv"),
        ],
        capsys,
    )
    assert code == 2
    assert "short_row.csv, line 3: the rating field is missing" in err and "nan" not in err


def test_topk_longer_than_the_catalogue_names_the_flag_before_training(data, capsys):
    argv = [
        "bridge",
        "train",
        "--loss",
        "bpr",
        "--train",
        str(data / "train.csv"),
        "--test",
        str(data / "test.csv"),
    ]
    code, out, err = _run([*argv, "--topk", "5000"], capsys)
    assert code == 2 and "--topk 5000" in err and "60 items" in err
    assert "it/s" not in err and "epoch" not in err.lower()  # refused before any progress bar


# --------------------------------------------------------------------------- bridge train flag combinations
def _config(data, capsys, *flags):
    argv = [*SPLIT, "--train", str(data / "train.csv"), "--test", str(data / "test.csv"), *flags]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    return json.loads(out[out.index("{") :])["config"]


def _results(data, tmp_path, capsys, *flags):
    """``bridge train`` on the CSV split with ``flags``: the results.json it wrote."""
    out = tmp_path / "out"
    argv = [
        *SPLIT,
        "--train",
        str(data / "train.csv"),
        "--test",
        str(data / "test.csv"),
        "--topk",
        "5",
        "--out",
        str(out),
    ]
    code, _, err = _run([*argv, *flags], capsys)
    assert code == 0, err
    return json.loads((out / "results.json").read_text())


def test_minibatch_bpr_with_bns_runs_bns(data, capsys):
    assert (
        _config(data, capsys, "--loss", "bpr", "--optimizer", "adam", "--sampler", "bns")["sampler"]
        == "bns"
    )


@pytest.mark.parametrize(
    "flags",
    [
        [
            "--loss",
            "bpr",
            "--optimizer",
            "adam",
            "--sampler",
            "aobpr",
        ],  # was "runs on the batch-1 SGD path only"
        ["--loss", "infonce", "--optimizer", "adam", "--sampler", "bns"],  # was "needs --loss bpr"
        ["--loss", "dcl", "--sampler", "bns"],
        [
            "--loss",
            "dcl",
            "--optimizer",
            "sgd",
            "--sampler",
            "srns",
        ],  # batch-1 SGD with a loss of the torch backend
        ["--loss", "bpr", "--optimizer", "sgd", "--sampler", "bns", "--prior", "oracle"],
        [
            "--loss",
            "bpr",
            "--optimizer",
            "adam",
            "--sampler",
            "bns",
            "--prior",
            "oracle",
        ],  # was "--prior oracle is ..."
        ["--loss", "hcl", "--sampler", "shared_uniform"],
        [
            "--loss",
            "infonce",
            "--optimizer",
            "sgd",
            "--batch-size",
            "16",
            "--sampler",
            "catalogue_uniform",
        ],
        [
            "--model",
            "lightgcn",
            "--loss",
            "bpr",
            "--optimizer",
            "sgd",
            "--batch-size",
            "32",
            "--layers",
            "2",
        ],
        ["--loss", "ccl", "--similarity", "cosine", "--negatives", "8"],
        [
            "--loss",
            "bpr",
            "--optimizer",
            "sgd",
            "--valid-fraction",
            "0.2",
            "--patience",
            "2",
        ],  # was "SGD runs its fixed epochs"
    ],
    ids=" ".join,
)
def test_every_combination_fit_runs_is_accepted(flags, data, tmp_path, capsys):
    res = _results(data, tmp_path, capsys, *flags)
    assert (
        set(res) >= {"data", "config", "specs", "final", "seconds"} and res["final"]["epoch"] == 1
    )
    sampler = flags[flags.index("--sampler") + 1] if "--sampler" in flags else "rns"
    assert res["specs"]["sampler"]["kind"].lower() == sampler.replace("_", "")
    optimizer = flags[flags.index("--optimizer") + 1] if "--optimizer" in flags else "adam"
    assert res["specs"]["optimizer"]["kind"].lower() == optimizer
    assert ("best_valid_epoch" in res) == ("--valid-fraction" in flags)


def test_sampler_aobpr_with_adam_runs(data, tmp_path, capsys):
    res = _results(
        data, tmp_path, capsys, "--sampler", "aobpr", "--optimizer", "adam", "--loss", "bpr"
    )
    assert (
        res["specs"]["sampler"] == {"kind": "AOBPR", "rank_scale": None}
        and res["specs"]["optimizer"]["kind"] == "Adam"
    )


def test_lightgcn_with_bcl_and_bns_runs(data, tmp_path, capsys):
    res = _results(
        data, tmp_path, capsys, "--model", "lightgcn", "--loss", "bcl", "--sampler", "bns"
    )
    assert res["specs"]["model"]["kind"] == "LightGCN" and res["specs"]["model"]["layers"] == 1
    assert res["specs"]["loss"]["kind"] == "BCL" and res["specs"]["sampler"]["kind"] == "BNS"


def test_a_flag_left_out_takes_the_spec_default(data, tmp_path, capsys):
    from negtheory.training import BCL, BNS, HCL, MF, SGD, Adam

    res = _results(data, tmp_path, capsys, "--loss", "bcl", "--alpha", "0.7")
    assert (
        res["specs"]["loss"] == BCL(alpha=0.7).to_dict()
    )  # beta 0.6, tau+ 0.06, N 5: the spec's, not the CLI's own
    assert (
        res["specs"]["optimizer"] == Adam(milestones=(100,)).to_dict()
    )  # lr 1e-3, weight decay 1e-5, batch 1024
    assert res["specs"]["model"] == MF().to_dict()
    res = _results(data, tmp_path, capsys, "--loss", "hcl", "--sampler", "bns", "--lam", "2")
    assert (
        res["specs"]["loss"] == HCL().to_dict()
        and res["specs"]["sampler"] == BNS(lam=2.0).to_dict()
    )
    res = _results(data, tmp_path, capsys, "--loss", "bpr", "--optimizer", "sgd")
    assert (
        res["specs"]["optimizer"] == SGD().to_dict()
    )  # batch 1, lr 0.01, reg 0.01, no schedule: thesis ch. 4


def test_epochs_default_follows_the_optimizer(monkeypatch, data, capsys):
    import negtheory.training

    seen = []

    def stop(d, **kw):
        seen.append(kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(negtheory.training, "fit", stop)
    argv = [
        "bridge",
        "train",
        "--quiet",
        "--train",
        str(data / "train.csv"),
        "--test",
        str(data / "test.csv"),
        "--loss",
    ]
    for flags in (
        ["bpr", "--optimizer", "sgd"],
        ["bpr"],
        ["dcl", "--optimizer", "sgd", "--batch-size", "64"],
    ):
        assert _run([*argv, *flags], capsys)[0] == 130
    assert [kw["epochs"] for kw in seen] == [100, 200, 200]
    assert [kw["optimizer"].milestones for kw in seen] == [(), (100,), (100,)]
    assert {kw["engine"] for kw in seen} == {
        "auto"
    }  # the backend is fit's choice, never the command's


def test_ccl_on_dot_scores_is_fits_refusal(data, capsys):
    code, out, err = _run(
        [
            *SPLIT,
            "--train",
            str(data / "train.csv"),
            "--test",
            str(data / "test.csv"),
            "--loss",
            "ccl",
        ],
        capsys,
    )
    assert code == 2 and "CCL needs bounded scores" in err and "--similarity cosine" in err
    assert out == "" and "Traceback" not in err


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_loss_bns_on_real_data_names_the_sampler(optimizer, data, capsys):
    argv = [
        *SPLIT,
        "--train",
        str(data / "train.csv"),
        "--test",
        str(data / "test.csv"),
        "--loss",
        "bns",
    ]
    code, out, err = _run([*argv, "--optimizer", optimizer], capsys)
    assert code == 2 and "--loss bpr --sampler bns" in err and out == ""


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--loss", "bpr", "--alpha", "0.7"],
            "--alpha does not apply to --loss bpr (BPR reads --negatives, --temperature)",
        ),
        (["--loss", "hcl", "--beta", "0.7"], "--beta does not apply to --loss hcl"),
        (["--loss", "bpr", "--candidates", "4"], "--candidates does not apply to --sampler rns"),
        (
            ["--loss", "bpr", "--sampler", "dns", "--lam", "2"],
            "--lam does not apply to --sampler dns",
        ),
        (
            ["--loss", "bpr", "--model", "lightgcn", "--similarity", "cosine"],
            "--similarity applies to --model mf",
        ),
        (["--loss", "bpr", "--layers", "2"], "--layers applies to --model lightgcn"),
        (["--loss", "bpr", "--model", "mlp"], "--model mlp is the toy harness's two-tower"),
        (["--loss", "relaxed_softmax"], "--loss relaxed_softmax belongs to the toy harness"),
        (
            ["--loss", "bpr", "--patience", "3"],
            "--patience stops on the validation metric: add --valid-fraction",
        ),
    ],
)
def test_flags_that_would_be_ignored_are_errors(flags, message, data, capsys):
    code, _, err = _run(
        [*SPLIT, "--train", str(data / "train.csv"), "--test", str(data / "test.csv"), *flags],
        capsys,
    )
    assert code == 2 and message in err


def test_split_flags_are_refused_on_toy_data(capsys):
    for flags, message in (
        (["--sampler", "bns"], "--sampler bns applies to real data"),
        (["--model", "lightgcn"], "--model lightgcn trains on real data"),
        (["--similarity", "cosine"], "--similarity cosine applies to real data"),
    ):
        code, _, err = _run(
            ["bridge", "train", "--loss", "bpr", "--data", "synthetic", *flags], capsys
        )
        assert code == 2 and message in err


def test_the_split_vocabulary_is_fits():
    from negtheory._cli_bridge import SPLIT_LOSSES, SPLIT_SAMPLERS
    from negtheory.training.names import LOSS_NAMES, SAMPLER_NAMES

    assert SPLIT_LOSSES == LOSS_NAMES and SPLIT_SAMPLERS == SAMPLER_NAMES


def test_device_cuda_without_cuda_is_an_error(data, capsys):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    for flags in (
        ["--loss", "infonce", "--optimizer", "adam"],
        ["--loss", "bpr", "--optimizer", "sgd"],
    ):
        argv = [
            *SPLIT,
            "--train",
            str(data / "train.csv"),
            "--test",
            str(data / "test.csv"),
            *flags,
            "--device",
            "cuda",
        ]
        code, _, err = _run(argv, capsys)
        assert code == 2 and "--device cuda: torch finds no CUDA device" in err


def test_minibatch_sgd_uses_the_documented_learning_rate(data, capsys):
    assert (
        _config(data, capsys, "--loss", "infonce", "--optimizer", "sgd", "--batch-size", "64")["lr"]
        == 0.01
    )
    assert _config(data, capsys, "--loss", "infonce", "--optimizer", "adam")["lr"] == 0.001


def test_lr_help_matches_the_defaults(capsys):
    code, out, _ = _run(["bridge", "train", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert (
        "default: the optimizer's, 0.01 with --optimizer sgd and 1e-3 with Adam on real data"
        in text
    )
    assert "default: 1 with --optimizer sgd (the thesis's batch-1 SGD), 1024 with Adam" in text
    assert "belong to the harness only" in text  # the toy losses are the harness's


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
        "--out",
        str(out),
    ]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.close()
        assert proc.wait(timeout=600) == 0, proc.stderr.read().decode()
    assert out.read_text().startswith("alpha,estimator")


def test_study_mse_refuses_a_study_that_does_not_fit_in_memory(capsys):
    argv = [
        "study",
        "mse",
        "--vary",
        "n_unlabeled",
        "--values",
        "100000000",
        "--n-anchors",
        "2",
        "--max-memory",
        "2",
    ]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert "needs about 9.6 GB" in err and "--max-memory" in err and "--n-unlabeled" in err


def test_study_mse_warns_before_a_large_study(capsys, monkeypatch):
    import negtheory.studies as studies

    monkeypatch.setattr(studies, "_WARN_BYTES", 1e4)  # this small study then counts as large
    code, _, err = _run(
        ["study", "mse", "--vary", "alpha", "--values", "0.9", "--n-anchors", "8", "--quiet"],
        capsys,
    )
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
