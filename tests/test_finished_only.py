"""``thesis-tables --finished-only``: the stored runs reported as they are, nothing trained.

A reproduction that runs for days (Gowalla's LightGCN rows: 1.5-3 h a run on 2 cores) has rows at different seed
counts while it goes. The report of the stored runs must equal, row for row, the reports of the calls that trained
them, and a row with no stored run must read "not run".
"""

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def split(tmp_path):
    rng = np.random.default_rng(7)
    pairs = np.unique(rng.integers(0, [30, 40], size=(500, 2)), axis=0)
    perm = rng.permutation(len(pairs))
    pd.DataFrame(pairs[perm[:400]], columns=["user", "item"]).to_csv(
        tmp_path / "train.csv", index=False
    )
    pd.DataFrame(pairs[perm[400:]], columns=["user", "item"]).to_csv(
        tmp_path / "test.csv", index=False
    )
    return tmp_path / "train.csv", tmp_path / "test.csv"


def _ndcg10(out):
    df = pd.read_csv(out / "thesis_tables.csv", dtype={"table": str})
    df = df[(df.metric == "ndcg") & (df.k == 10) & (df.convention == "final epoch")]
    return df.set_index("method")[["mean", "n_seeds"]]


def test_finished_only_reports_each_row_over_the_seeds_it_has(split, tmp_path, monkeypatch):
    import negtheory.training as training
    from negtheory.cli import main

    train, test = split
    out = tmp_path / "out"
    base = [
        "reproduce",
        "thesis-tables",
        "--train",
        str(train),
        "--test",
        str(test),
        "--tables",
        "5.2",
        "--epochs",
        "1",
        "--eval-every",
        "1",
        "--out",
        str(out),
        "--quiet",
    ]
    # seed 0 of InfoNCE and DCL, then seed 1 of InfoNCE: InfoNCE has 2 stored seeds, DCL 1, HCL none
    assert main([*base, "--methods", "InfoNCE", "DCL", "--seeds", "1"]) == 0
    one_seed = _ndcg10(out)
    assert main([*base, "--methods", "InfoNCE", "--seeds", "2"]) == 0
    two_seeds = _ndcg10(out)
    assert two_seeds.loc["InfoNCE", "n_seeds"] == 2

    monkeypatch.setattr(
        training, "fit", lambda *a, **k: pytest.fail("--finished-only trained a run")
    )
    assert (
        main([*base, "--methods", "InfoNCE", "DCL", "HCL", "--seeds", "3", "--finished-only"]) == 0
    )
    got = _ndcg10(out)
    assert (
        got.loc["InfoNCE", "n_seeds"] == 2
        and got.loc["InfoNCE", "mean"] == two_seeds.loc["InfoNCE", "mean"]
    )
    assert got.loc["DCL", "n_seeds"] == 1 and got.loc["DCL", "mean"] == one_seed.loc["DCL", "mean"]
    assert got.loc["HCL", "n_seeds"] == 0 and np.isnan(got.loc["HCL", "mean"])
    md = (out / "thesis_tables.md").read_text()
    hcl = [line for line in md.splitlines() if line.startswith("| 5.2 | HCL | MF |")]
    assert hcl and all("not run" in line for line in hcl)
    assert (
        "finished runs only (--finished-only)" in md
    )  # the report says the rows may stand on fewer seeds


def test_finished_only_refuses_what_it_cannot_do(split, tmp_path):
    import negtheory.reproduce.thesis_tables as tt

    train, test = split
    o = tt.TableOptions(tables=["5.2"], methods=["InfoNCE"], seeds=1, epochs=1, finished_only=True)
    with pytest.raises(ValueError, match="finished_only needs a cache_dir"):
        tt.run_tables(train, test, o)
    with pytest.raises(ValueError, match="finished_only: none of these rows' runs is finished"):
        tt.run_tables(train, test, o, cache_dir=tmp_path / "empty", progress=False)
    with pytest.raises(ValueError, match="finished_only trains nothing"):
        tt.run_tables(
            train,
            test,
            tt.TableOptions(tables=["6.3"], tune=["BCL"], finished_only=True),
            cache_dir=tmp_path,
        )
