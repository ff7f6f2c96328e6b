"""``negtheory reproduce ... --executor local|dask|ADDRESS`` (issue 22, item 6): the sweeps' CSVs are the
same bit for bit on a Dask cluster as in process, and a rerun resumes from OUT/runs/."""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
import pytest
from toy_data import planted_split

from negtheory.cli import main
from negtheory.reproduce._common import open_executor, run_jobs

distributed = pytest.importorskip("distributed")


def _planted(n_users=24, n_items=30, seed=0):
    return planted_split(n_users, n_items, seed, clusters=4, outside=0.05)


@pytest.fixture(scope="module")
def cluster():
    # in-process workers (threads): light on a shared machine, and the jobs still travel through
    # the scheduler (submit, scatter, as_completed) as on a remote cluster
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    d = _planted()
    root = tmp_path_factory.mktemp("split")
    # LightGCN layout: a user and its items on one line (the readers of item 5 behind the sweeps)
    for name, pairs in (("train.txt", d.train), ("test.txt", d.test)):
        lines = [
            " ".join(map(str, [u, *pairs[pairs[:, 0] == u, 1]])) for u in np.unique(pairs[:, 0])
        ]
        (root / name).write_text("\n".join(lines) + "\n")
    return root


def _run(argv):
    assert main(argv) == 0


def _local_and_on_dask(base, tmp_path, cluster):
    """Run the command ``base`` in process into tmp_path/local, then on the cluster into tmp_path/dask."""
    _run([*base, "--out", str(tmp_path / "local")])
    _run([*base, "--out", str(tmp_path / "dask"), "--executor", cluster.scheduler_address])


def test_thesis_tables_on_dask_equal_local_and_resume(cluster, split, tmp_path):
    base = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(split / "train.txt"),
        "--test",
        str(split / "test.txt"),
        "--format",
        "lightgcn",
        "--dataset",
        "ml-1m",
        "--tables",
        "4.2",
        "--methods",
        "RNS",
        "BNS",
        "--seeds",
        "2",
        "--epochs",
        "2",
        "--eval-every",
        "1",
        "--quiet",
    ]
    _local_and_on_dask(base, tmp_path, cluster)
    local = (tmp_path / "local" / "thesis_tables.csv").read_bytes()
    assert (tmp_path / "dask" / "thesis_tables.csv").read_bytes() == local
    runs_l = pd.read_csv(tmp_path / "local" / "runs.csv").drop(columns="seconds")
    runs_d = pd.read_csv(tmp_path / "dask" / "runs.csv").drop(columns="seconds")
    pd.testing.assert_frame_equal(
        runs_l, runs_d
    )  # every per-seed value (only the wall time differs)
    df = pd.read_csv(tmp_path / "dask" / "thesis_tables.csv", dtype={"table": str})
    bns = df[(df.method == "BNS") & (df.metric == "ndcg") & (df.k == 10)]
    assert (bns.thesis == 0.4191).all()  # --dataset ml-1m: MovieLens-1M's printed row
    # resume on the cluster: one stored run deleted, only that one is recomputed
    stored = sorted((tmp_path / "dask" / "runs").glob("*.json"))
    assert len(stored) == 4
    stored[0].unlink()
    stamps = {p.name: p.stat().st_mtime_ns for p in stored[1:]}
    _run([*base, "--out", str(tmp_path / "dask"), "--executor", cluster.scheduler_address])
    assert {p.name: p.stat().st_mtime_ns for p in stored[1:]} == stamps and stored[0].exists()
    assert (tmp_path / "dask" / "thesis_tables.csv").read_bytes() == local


def test_sim_vs_train_on_dask_equals_local(cluster, split, tmp_path):
    base = [
        "reproduce",
        "sim-vs-train",
        "--train",
        str(split / "train.txt"),
        "--test",
        str(split / "test.txt"),
        "--losses",
        "rns",
        "--seeds",
        "2",
        "--epochs",
        "2",
        "--probe-epochs",
        "1",
        "2",
        "--anchors",
        "32",
        "--fit-size",
        "10",
        "--reps",
        "1",
        "--quiet",
    ]
    _local_and_on_dask(base, tmp_path, cluster)
    for name in (
        "sim_vs_train.csv",
        "ablations.csv",
        "posterior_calibration.csv",
        "score_laws.csv",
        "verdicts.csv",
    ):
        assert (tmp_path / "dask" / name).read_bytes() == (
            tmp_path / "local" / name
        ).read_bytes(), name


def test_wu_k_sweep_on_dask_equals_local_and_resumes(cluster, split, tmp_path):
    pytest.importorskip("torch")
    base = [
        "reproduce",
        "wu-k-sweep",
        "--train",
        str(split / "train.txt"),
        "--test",
        str(split / "test.txt"),
        "--ks",
        "1",
        "2",
        "--seeds",
        "2",
        "--epochs",
        "2",
        "--eval-every",
        "1",
        "--quiet",
    ]
    _local_and_on_dask(base, tmp_path, cluster)
    local = pd.read_csv(tmp_path / "local" / "wu_k_sweep.csv")
    dask = pd.read_csv(tmp_path / "dask" / "wu_k_sweep.csv")
    assert list(local[["k", "seed"]].itertuples(index=False, name=None)) == [
        (1, 0),
        (2, 0),
        (1, 1),
        (2, 1),
    ]
    # every column but the wall time, bit for bit
    pd.testing.assert_frame_equal(
        local.drop(columns="seconds"), dask.drop(columns="seconds"), check_exact=True
    )
    assert len(list((tmp_path / "dask" / "runs").glob("*.json"))) == 4
    # a rerun reuses every stored job: the same CSV, timings included
    before = (tmp_path / "dask" / "wu_k_sweep.csv").read_bytes()
    _run([*base, "--out", str(tmp_path / "dask")])
    assert (tmp_path / "dask" / "wu_k_sweep.csv").read_bytes() == before


def test_run_jobs_executors_and_errors(cluster, capsys, split, tmp_path):
    want = {i: 3 * t for i, t in enumerate(range(5))}
    assert dict(run_jobs(operator.mul, 3, range(5))) == want
    assert (
        dict(run_jobs(operator.mul, 3, range(5), jobs=2)) == want
    )  # two spawned processes, shared sent once each
    with distributed.Client(cluster) as client:
        assert dict(run_jobs(operator.mul, 3, range(5), executor=client)) == want
        assert not client.status == "closed"  # a Client given is left open
    for bad in ("", 3, object()):
        with pytest.raises(ValueError, match="executor must be"):
            open_executor(bad)
    rc = main(
        [
            "reproduce",
            "thesis-tables",
            "--train",
            str(split / "train.txt"),
            "--test",
            str(split / "test.txt"),
            "--executor",
            "tcp://127.0.0.1:9",
            "--dask-timeout",
            "0.5",
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ]
    )
    assert rc == 1 and "--executor tcp://127.0.0.1:9" in capsys.readouterr().err
