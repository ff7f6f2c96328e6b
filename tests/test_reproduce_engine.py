"""The reproduce engine (issue 32): plans of runs executed, stored and resumed; the thesis tables through it give the
numbers of negtheory.training.fit called with the protocol's specs; the data sets of issue 29 (--dataset gowalla|yelp2018, --data, --split-seed, --estimate)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from toy_data import planted_split

from negtheory.cli import main
from negtheory.reproduce.engine import Plan, RunSpec, execute
from negtheory.reproduce.thesis_numbers import DATASETS, TABLES_BY_DATASET, THESIS_BY_DATASET

CALLS: list[tuple] = []


def _square(shared, task):
    CALLS.append(task)
    return {"value": shared * task[0], "seed": task[1]}


def test_execute_returns_plan_order_and_resumes_from_the_store(tmp_path):
    specs = tuple(
        RunSpec(key=("x", i), replicate=i, task=(i, i), name=f"x{i}.json", cost=float(i % 2))
        for i in range(4)
    )
    plan = Plan(specs, _square, lambda: 10, desc="test")
    CALLS.clear()
    first = execute(plan, cache_dir=tmp_path, progress=False)
    assert first == [{"value": 10 * i, "seed": i} for i in range(4)]
    assert [t[0] for t in CALLS] == [1, 3, 0, 2]  # the costlier runs first, ties in plan order
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"x{i}.json" for i in range(4)
    ]  # no temporary file left
    (tmp_path / "x2.json").unlink()
    CALLS.clear()
    again = execute(plan, cache_dir=tmp_path, progress=False, executor="local", jobs=1)
    assert again == first and CALLS == [(2, 2)]  # only the missing run
    # a spec without a name is never stored; load is not called when nothing runs
    unnamed = Plan((RunSpec(key=("y",), replicate=0, task=(5, 0)),), _square, lambda: 2)
    assert execute(unnamed, cache_dir=tmp_path / "u", progress=False) == [{"value": 10, "seed": 0}]
    assert not list((tmp_path / "u").iterdir())
    stored = Plan(specs[:1], _square, lambda: pytest.fail("loaded the data with every run stored"))
    assert execute(stored, cache_dir=tmp_path, progress=False) == first[:1]
    with pytest.raises(ValueError, match="jobs"):
        execute(plan, jobs=0)


# ------------------------------------------------------------------------------------------ thesis tables
def _planted(n_users=30, n_items=40, seed=5):
    return planted_split(n_users, n_items, seed)


@pytest.fixture
def split_files(tmp_path):
    d = _planted()
    for part in ("train", "test"):
        pairs = getattr(d, part)
        pd.DataFrame({"user": d.user_ids[pairs[:, 0]], "item": d.item_ids[pairs[:, 1]]}).to_csv(
            tmp_path / f"{part}.csv", index=False
        )
    return tmp_path / "train.csv", tmp_path / "test.csv"


def test_thesis_runs_through_the_engine_are_the_trainers_own_numbers(split_files):
    pytest.importorskip("torch")
    from negtheory.recsys import load_split
    from negtheory.reproduce import thesis_tables as tt
    from negtheory.training import BNS, DPL, RELEASED_MINIBATCH_MF, Evaluation, fit

    tr, te = split_files
    o = tt.TableOptions(
        tables=["4.2", "5.2"], methods=["BNS", "DPL"], seeds=2, epochs=2, eval_every=1
    )
    rows, runs, hist = tt.run_tables(tr, te, o, progress=False)
    assert [r[4] for r in rows] == [("sgd", "bns", 5, "popularity"), ("mf", "dpl")]
    data = load_split(tr, te)
    for seed in (0, 1):
        direct = {  # the thesis's BPR-MF by batch-1 SGD (fit's defaults) with BNS; the released mini-batch MF with DPL
            ("sgd", "bns", 5, "popularity"): fit(
                data, sampler=BNS(candidates=5, prior="popularity"), epochs=2, rng=seed
            ),
            ("mf", "dpl"): fit(
                data,
                **dict(RELEASED_MINIBATCH_MF, epochs=2),
                loss=DPL(),
                evaluation=Evaluation(),
                rng=seed,
            ),
        }
        for key, res in direct.items():
            got = runs[
                (runs.run == str(key))
                & (runs.seed == seed)
                & (runs.convention == "reported")
                & (runs.metric == "ndcg")
            ]
            assert got.set_index("k").value.to_dict() == {
                k: res.history[-1][f"test_ndcg@{k}"] for k in (5, 10, 20)
            }
            assert [h["epoch"] for h in hist[(key, seed)]] == [1, 2]
    # the keyword call before issue 32 gives the same runs
    with pytest.warns(DeprecationWarning):
        _, legacy, _ = tt.run_tables(
            tr, te, ["4.2", "5.2"], ["BNS", "DPL"], 2, 2, eval_every=1, progress=False
        )
    pd.testing.assert_frame_equal(legacy.drop(columns="seconds"), runs.drop(columns="seconds"))
    with pytest.raises(TypeError, match="unexpected"):
        tt.run_tables(tr, te, ["4.2"], nonsense=1)


def _direct(data, key, seed, epochs):
    """A run key's training called by hand with specs, as the thesis's protocol states it (module notes of thesis_tables)."""
    from negtheory import training as T

    common = dict(epochs=epochs, evaluation=T.Evaluation(every=1), rng=seed)
    sgd, mb, lgcn = (
        dict(p, **common) for p in (T.THESIS_BPR_MF, T.RELEASED_MINIBATCH_MF, T.THESIS_LIGHTGCN)
    )
    if key == ("sgd", "bns", 3, "oracle", "hard"):  # Table 4.5, |M_u| = 3, labels as the prior
        return T.fit(
            data,
            sampler=T.BNS(candidates=3, prior="oracle", oracle_levels=(1.0, 0.0), ecdf="negatives"),
            **sgd,
        )
    if key == (
        "sgd",
        "srns",
        5,
        "popularity",
        "alpha0",
    ):  # Table 4.2, SRNS without its variance term
        return T.fit(data, sampler=T.SRNS(alpha=0.0), **sgd)
    if key == ("sgd", "rns", 5, "popularity", "infonce"):  # Table 4.4, InfoNCE with N = 2
        return T.fit(data, loss=T.InfoNCE(negatives=2), sampler=T.RNS(), **sgd)
    if key == ("mf", "dpl", "sampler=dns", "tau_plus=0.3"):  # Table 5.3, DPL with hard samples
        return T.fit(data, loss=T.DPL(tau_plus=0.3), sampler=T.DNS(), **mb)
    if key == (
        "lightgcn",
        "bcl",
        "rns",
    ):  # Table 6.3, LightGCN with the thesis's settings, uniform negatives
        return T.fit(data, loss=T.BCL(), sampler=T.RNS(), **lgcn)
    raise AssertionError(key)


@pytest.mark.parametrize(
    ("table", "method", "variant", "key"),
    [
        ("4.5", "BNS-oracle", "hard", ("sgd", "bns", 3, "oracle", "hard")),
        ("4.2", "SRNS", "alpha0", ("sgd", "srns", 5, "popularity", "alpha0")),
        ("4.4", "RNS", "-", ("sgd", "rns", 5, "popularity", "infonce")),
        ("5.3", "DPL-hard", "-", ("mf", "dpl", "sampler=dns", "tau_plus=0.3")),
        ("6.3", "BCL", "-", ("lightgcn", "bcl", "rns")),
    ],
)
def test_published_configurations_through_the_engine(split_files, table, method, variant, key):
    pytest.importorskip("torch")
    from negtheory.recsys import load_split
    from negtheory.reproduce import thesis_tables as tt

    tr, te = split_files
    o = tt.TableOptions(
        tables=[table],
        methods=[method],
        seeds=1,
        epochs=2,
        eval_every=1,
        bns_sizes=["3"],
        bns_variants=["hard"],
        srns_variants=["alpha0"],
        models=[key[0].replace("sgd", "mf")],
    )
    rows, runs, _ = tt.run_tables(tr, te, o, progress=False)
    assert key in [r[4] for r in rows if r[3] == variant]
    res = _direct(load_split(tr, te), key, 0, 2)
    got = runs[(runs.run == str(key)) & (runs.convention == "reported")]
    assert {(m, k): v for m, k, v in zip(got.metric, got.k, got.value)} == {
        tuple(n[5:].split("@")[:1]) + (int(n.split("@")[1]),): v
        for n, v in res.history[-1].items()
        if n.startswith("test_")
    }


def test_every_data_set_is_data():
    # adding a data set: its printed rows, the tables run on it, Table 5.1: no code path
    from negtheory.reproduce.thesis_numbers import TABLE_5_1
    from negtheory.reproduce.thesis_plan import ALL_BNS_SIZES, plan

    assert DATASETS == tuple(THESIS_BY_DATASET) == tuple(TABLES_BY_DATASET) and set(
        DATASETS
    ) == set(TABLE_5_1)
    for ds in DATASETS:
        planned = {
            (t, m, s)
            for t, m, s, _, _ in plan(
                TABLES_BY_DATASET[ds], models=["mf", "lightgcn"], bns_sizes=ALL_BNS_SIZES
            )
        }
        printed = set(THESIS_BY_DATASET[ds])
        assert {t for t, _, _ in printed} <= set(TABLES_BY_DATASET[ds]), ds
        assert printed <= planned, (ds, printed - planned)  # every printed row has its run spec
    assert TABLES_BY_DATASET["gowalla"] == TABLES_BY_DATASET["yelp2018"] == ("5.2", "6.3")


def _ml1m_folder(root):
    d = _planted(seed=11)
    pairs = np.concatenate([d.train, d.test])
    root.mkdir()
    (root / "ratings.dat").write_text("".join(f"{u + 1}::{i + 1}::4::0\n" for u, i in pairs))
    return root


def test_data_folder_and_split_seed_prepare_the_split(tmp_path, capsys):
    pytest.importorskip("torch")
    src = _ml1m_folder(tmp_path / "ml1m")
    base = [
        "reproduce",
        "thesis-tables",
        "--dataset",
        "ml-1m",
        "--data",
        str(src),
        "--tables",
        "4.2",
        "--methods",
        "RNS",
        "--seeds",
        "1",
        "--epochs",
        "1",
        "--eval-every",
        "1",
        "--quiet",
    ]
    for seed in (0, 1):
        assert main([*base, "--split-seed", str(seed), "--out", str(tmp_path / "o")]) == 0
    splits = sorted(p.name for p in (tmp_path / "o" / "splits").iterdir())
    assert splits == [f"ml-1m_seed{s}_{part}.csv" for s in (0, 1) for part in ("test", "train")]
    # each split seed has its own runs (the file names enter the runs' names)
    assert len(list((tmp_path / "o" / "runs").glob("*.json"))) == 2
    from negtheory.recsys.datasets import thesis_split

    want = thesis_split("ml-1m", src, 1)
    got = pd.read_csv(tmp_path / "o" / "splits" / "ml-1m_seed1_train.csv")
    assert len(got) == len(want.train)
    capsys.readouterr()
    # errors: both inputs, neither, a table the thesis does not print for the data set
    assert main([*base, "--train", str(src / "ratings.dat"), "--out", str(tmp_path / "e")]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["reproduce", "thesis-tables", "--out", str(tmp_path / "e")]) == 2
    assert "--data" in capsys.readouterr().err
    assert (
        main(
            [
                "reproduce",
                "thesis-tables",
                "--dataset",
                "gowalla",
                "--data",
                str(src),
                "--tables",
                "4.2",
                "--out",
                str(tmp_path / "e"),
            ]
        )
        == 2
    )
    assert "5.2 6.3 for gowalla" in capsys.readouterr().err


def test_estimate_times_one_epoch_per_run_and_runs_nothing(split_files, tmp_path, capsys):
    pytest.importorskip("torch")
    from negtheory.reproduce import thesis_tables as tt

    tr, te = split_files
    o = tt.TableOptions(tables=["4.2", "5.2"], methods=["RNS", "BNS", "DPL"], seeds=3, epochs=None)
    est = tt.estimate(tr, te, o, jobs=2)
    assert list(est.run) == [
        str(("sgd", "rns", 5, "popularity")),
        str(("sgd", "bns", 5, "popularity")),
        str(("mf", "dpl")),
    ]
    assert (
        list(est.epochs) == [100, 100, 200]
        and (est.runs == 3).all()
        and (est.seconds_per_epoch > 0).all()
    )
    # an epoch's training plus its share of an evaluation (every eval_every epochs), each timed apart
    assert (est.train_seconds >= 0).all() and (est.eval_seconds >= 0).all()
    assert est.seconds_per_epoch.to_numpy() == pytest.approx(
        est.train_seconds + est.eval_seconds / o.eval_every
    )
    assert est.core_hours.to_numpy() == pytest.approx(3 * est.epochs * est.seconds_per_epoch / 3600)
    assert est.attrs["core_hours"] == pytest.approx(est.core_hours.sum())
    assert est.attrs["wall_hours"] == pytest.approx(est.attrs["core_hours"] / 2)
    out = tmp_path / "est"
    argv = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(tr),
        "--test",
        str(te),
        "--tables",
        "5.2",
        "--methods",
        "DPL",
        "--seeds",
        "4",
        "--epochs",
        "7",
        "--jobs",
        "3",
        "--estimate",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "| ('mf', 'dpl') | 4 | 7 |" in text and "core-hours; over 3 workers" in text
    assert not (out / "runs").exists() and not (out / "thesis_tables.csv").exists()
    with pytest.raises(ValueError, match="jobs"):
        tt.estimate(tr, te, dataclasses.replace(o, tables=["5.2"], methods=["DPL"]), jobs=0)


def test_estimate_warms_up_before_timing_and_takes_the_fastest_repeat(split_files, monkeypatch):
    # The engine starts the longest runs first; the estimate must not hand it its timed runs, or a
    # two-epoch run is timed before its warm-up and carries the compilation (DPL's epoch came out as 0 s).
    from negtheory.reproduce import thesis_tables as tt

    tr, te = split_files
    setup, epoch, evaluation, compile_ = 0.5, 2.0, 3.0, 100.0
    calls, seen, noise = [], set(), iter([0.0, 7.0, 0.0, 0.0, 5.0])  # noise on some timed runs only
    clock = [0.0]  # the CPU clock the estimate reads: advanced by the fake runs only

    def fake_job(data, task):
        key, epochs, eval_every = task[0], task[4], task[7]
        calls.append((key, epochs))
        cold = compile_ if key not in seen else 0.0
        seen.add(key)
        extra = next(noise) if cold == 0.0 else 0.0
        clock[0] += cold + setup + epochs * epoch + (epochs // eval_every) * evaluation + extra
        return {"seconds": -1.0}  # a wall-clock time the estimate must not use

    monkeypatch.setattr(tt, "_job", fake_job)
    monkeypatch.setattr(tt, "_cpu_clock", lambda: clock[0])
    o = tt.TableOptions(tables=["5.2"], methods=["DPL"], seeds=1, epochs=None)
    est = tt.estimate(tr, te, o, repeats=2)
    assert [e for _, e in calls] == [1, 1, 2, 1, 2]  # warm-up, then T1 / T2 interleaved
    # t = T2 - T1 and e = 2 T1 - T2 from the fastest repeats (the set-up is carried by e)
    assert est.train_seconds.iloc[0] == pytest.approx(epoch)
    assert est.eval_seconds.iloc[0] == pytest.approx(setup + evaluation)
    with pytest.raises(ValueError, match="repeats"):
        tt.estimate(tr, te, o, repeats=0)


def test_gowalla_rows_run_from_the_release_files(tmp_path):
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    src = tmp_path / "gowalla"
    src.mkdir()
    for name in (
        "train.txt",
        "test.txt",
    ):  # the LightGCN release's layout: a user and its items per line
        lines = [
            " ".join(map(str, [u, *rng.choice(60, size=int(rng.integers(3, 8)), replace=False)]))
            for u in range(40)
        ]
        (src / name).write_text("\n".join(lines) + "\n")
    out = tmp_path / "o"
    assert (
        main(
            [
                "reproduce",
                "thesis-tables",
                "--dataset",
                "gowalla",
                "--data",
                str(src),
                "--quick",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    ndcg = df[(df.metric == "ndcg") & (df.k == 10) & (df.convention == "final epoch")]
    assert set(ndcg.table) == {"5.2"} and list(ndcg.method) == [
        "BPR",
        "DPL",
    ]  # --quick on a data set without Table 4.2
    printed = THESIS_BY_DATASET["gowalla"]
    assert ndcg.thesis.tolist() == [printed[("5.2", m, "MF")][("ndcg", 10)] for m in ("BPR", "DPL")]
    assert (ndcg.n_seeds == 1).all()


def test_relaxed_softmax_stacks_through_an_executor_equal_the_local_run():
    pytest.importorskip("torch")
    import concurrent.futures as cf

    from negtheory.reproduce.relaxed_softmax import PRESETS, run_temperature

    p = dict(PRESETS["quick"], steps=3, temperatures=(0.5, 2.0))
    local = run_temperature(p, (0, 1), 0, "cpu", False, ("uniform", "inverse"))
    with cf.ThreadPoolExecutor(
        max_workers=1
    ) as ex:  # the engine's Executor path: submit, as_completed, JSON
        remote = run_temperature(p, (0, 1), 0, "cpu", False, ("uniform", "inverse"), executor=ex)
    pd.testing.assert_frame_equal(local, remote)
    assert list(local.degeneracy.unique()) == ["uniform", "inverse"] and len(local) == 2 * 2 * 2


def test_dpl_hard_takes_the_data_sets_tau_plus():
    # thesis §5.6.2.3: "DPL with Hard Samples" uses tau+ = 0.3 on MovieLens-100K and 0.25 on MovieLens-1M
    from negtheory.reproduce.thesis_plan import plan
    from negtheory.reproduce.thesis_tables import TableOptions

    keys = {ds: plan(["5.3"], ["DPL-hard"], dataset=ds)[0][4] for ds in ("ml-100k", "ml-1m")}
    assert keys["ml-100k"][-1] == "tau_plus=0.3" and keys["ml-1m"][-1] == "tau_plus=0.25"
    assert (
        TableOptions(tables=["5.3"], methods=["DPL-hard"], dataset="ml-1m").rows()[0][4]
        == keys["ml-1m"]
    )
    # the rows that share runs with Tables 4.2 / 5.2 do not depend on the data set
    assert plan(["5.3"], ["BPR", "BNS", "DPL"], dataset="ml-1m") == plan(
        ["5.3"], ["BPR", "BNS", "DPL"]
    )


def test_bpr_minibatch_reading_is_an_extra_row_of_table_5_2():
    from negtheory.reproduce.thesis_plan import plan

    rows = plan(["5.2"], ["BPR"], bpr_variants=["minibatch"])
    assert [(r[3], r[4]) for r in rows] == [
        ("-", ("sgd", "rns", 5, "popularity")),
        ("minibatch", ("mf", "bpr")),
    ]
    assert plan(["5.2"], ["BPR"]) == rows[:1]  # off by default
    with pytest.raises(ValueError, match="bpr_variants"):
        plan(["5.2"], bpr_variants=["full-batch"])


def test_tau_density_reading_adds_a_row_beside_every_class_prior_row_of_tables_5_2_and_6_3():
    from negtheory.reproduce.thesis_plan import DATASET_DENSITY, _split_key, plan

    # Table 5.1's densities agree with its own counts |D| / (|U| |I|) (users, items, interactions as printed)
    counts = {
        "ml-100k": (943, 1682, 100_000),
        "ml-1m": (6040, 3952, 1_000_000),
        "yahoo-r3": (5400, 1000, 182_000),
        "yelp2018": (31_668, 38_048, 1_561_406),
        "gowalla": (29_858, 40_981, 1_027_370),
    }
    for ds, (u, i, d) in counts.items():
        assert DATASET_DENSITY[ds] == pytest.approx(d / (u * i), abs=6e-5), ds
    rows = plan(
        ["5.2", "6.3"], models=("mf", "lightgcn"), dataset="gowalla", tau_variants=["density"]
    )
    plain = plan(["5.2", "6.3"], models=("mf", "lightgcn"), dataset="gowalla")
    extra = [r for r in rows if r[3] == "tau=density"]
    # every row of a loss with a class prior gets exactly one reading row, the others none: one reading per table
    with_prior = [r for r in plain if r[1] in ("DCL", "HCL", "DPL", "BCL", "BCL-released")]
    assert len(with_prior) == 14 and len(extra) == len(with_prior)
    assert [
        r for r in rows if r[3] != "tau=density"
    ] == plain  # off by default, and the rows as written unchanged
    for r, base in zip(extra, with_prior):
        assert r[:3] == base[:3] and r[4][:-1] == base[4]
        assert _split_key(r[4])[1] == {"tau_plus": 0.00084}
    assert {
        r[4][-1] for r in plan(["6.3"], ["DCL"], dataset="ml-1m", tau_variants=["density"])[1:]
    } == {"tau_plus=0.04189"}
    with pytest.raises(ValueError, match="tau_variants"):
        plan(["5.2"], tau_variants=["median"])
