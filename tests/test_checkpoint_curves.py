"""benchmarks/checkpoint_curves.py: the evaluations a checkpointed run has made, read without resuming it.

Checked against the run itself: a ``fit`` run stopped after 4 of its epochs (evaluated every 2) and the same run
carried on to 6 both leave checkpoints whose rows equal the evaluated rows of the returned history.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def mod(load_script):
    return load_script("benchmarks/checkpoint_curves.py")


def test_rows_are_the_runs_evaluations(mod, tmp_path, capsys):
    from negtheory.recsys import load_split
    from negtheory.training import MF, Adam, Evaluation, InfoNCE, fit

    pairs = np.unique(np.random.default_rng(0).integers(0, [20, 30], size=(300, 2)), axis=0)
    d = load_split(pairs[:200], pairs[200:])
    kw = dict(
        model=MF(dim=4),
        loss=InfoNCE(negatives=4),
        optimizer=Adam(batch_size=32),
        evaluation=Evaluation(ks=(5,), every=2),
        rng=1,
    )
    path = tmp_path / "run.pt"
    short = fit(d, epochs=4, checkpoint=path, **kw)
    df = mod.curves([path])
    evaluated = [h for h in short.history if "test_ndcg@5" in h]
    assert df.epoch.tolist() == [h["epoch"] for h in evaluated] == [2, 4]
    assert (df.last_epoch == 4).all() and not df.stopped_on_patience.any()
    np.testing.assert_array_equal(df["test_ndcg@5"], [h["test_ndcg@5"] for h in evaluated])
    np.testing.assert_array_equal(df["loss"], [h["loss"] for h in evaluated])
    longer = fit(d, epochs=6, checkpoint=path, **kw)  # the same file, carried on
    out = tmp_path / "curves.csv"
    mod.main([str(path), "--out", str(out)])
    assert "test_ndcg@5" in capsys.readouterr().out
    import pandas as pd

    back = pd.read_csv(out)
    assert back.epoch.tolist() == [2, 4, 6] and (back.run == "run").all()
    np.testing.assert_allclose(
        back["test_ndcg@5"], [h["test_ndcg@5"] for h in longer.history if "test_ndcg@5" in h]
    )
    # --append: a second run's rows join the file; the first run's stay once, even when it is read again
    other = tmp_path / "other.pt"
    fit(d, epochs=2, checkpoint=other, **{**kw, "rng": 2})
    mod.main([str(other), "--out", str(out), "--append"])
    mod.main([str(path), str(other), "--out", str(out), "--append"])
    both = pd.read_csv(out)
    assert sorted(zip(both.run, both.epoch)) == [("other", 2), ("run", 2), ("run", 4), ("run", 6)]
    pd.testing.assert_frame_equal(both[both.run == "run"].reset_index(drop=True), back)


def test_append_keeps_the_runs_not_read(mod):
    import pandas as pd

    old = pd.DataFrame(dict(run=["a", "a", "b"], epoch=[20, 40, 20], x=[1.0, 2.0, 3.0]))
    new = pd.DataFrame(dict(run=["b", "c"], epoch=[20, 20], x=[4.0, 5.0], y=[0.1, 0.2]))
    out = mod.merged(old, new)
    assert out.columns.tolist() == ["run", "epoch", "x", "y"]
    assert list(zip(out.run, out.x)) == [("a", 1.0), ("a", 2.0), ("b", 4.0), ("c", 5.0)]
    with pytest.raises(ValueError, match="out: .* no 'run' column"):
        mod.merged(pd.DataFrame(dict(epoch=[1])), new)


def test_bad_paths_name_the_parameter(mod, tmp_path):
    with pytest.raises(ValueError, match="paths: .* is not a file"):
        mod.curves([tmp_path / "missing.pt"])
    import torch

    other = tmp_path / "other.pt"
    torch.save({"epoch": 1}, other)
    with pytest.raises(ValueError, match="paths: .* is not a negtheory checkpoint"):
        mod.curves([other])
    with pytest.raises(ValueError, match="append: --append needs --out"):
        mod.main([str(other), "--append"])
