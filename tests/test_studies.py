"""Tests of negtheory.studies.mse_study: numbers, determinism, checkpoint/resume, executors."""

from __future__ import annotations

import concurrent.futures as cf
import json

import numba
import numpy as np
import pandas as pd
import pytest

from negtheory import estimators as E
from negtheory import studies
from negtheory.generators import score_sets
from negtheory.studies import Execution

QUIET = Execution(progress=False)


def test_tidy_frame_and_independent_mse():
    df = studies.mse_study("tau_plus", [0.05, 0.2], n_anchors=1500, rng=3, execution=QUIET)
    assert list(df.columns) == [
        "tau_plus",
        "estimator",
        "mse",
        "mse_se",
        "mean",
        "truth_mean",
        "n_anchors",
    ]
    assert len(df) == 2 * len(studies.ESTIMATORS)
    # recompute point 1 (tau+ = 0.2) directly: same generator key, plain numpy statistics
    s = score_sets(
        1500, 64, 0.9, 0.2, 0.1, 0.5, 10, None, "inverse", np.random.SeedSequence(3, spawn_key=(1,))
    )
    truth = E.theta_sup(s.scores, s.is_true_negative)
    direct = {
        "biased": E.theta_biased(s.scores),
        "dcl": E.theta_dcl(s.scores, s.positives, 0.2),
        "bcl": E.theta_bcl(s.scores, 0.9, 0.5, 0.2),
    }
    for name, values in direct.items():
        row = df[(df.tau_plus == 0.2) & (df.estimator == name)].iloc[0]
        err2 = (values - truth) ** 2
        assert row.mse == pytest.approx(err2.mean(), rel=1e-12)
        assert row.mse_se == pytest.approx(err2.std(ddof=1) / np.sqrt(err2.size), rel=1e-9)
        assert row["mean"] == pytest.approx(values.mean(), rel=1e-12)
        assert row.truth_mean == pytest.approx(truth.mean(), rel=1e-12)


def test_thesis_findings_at_default_parameters():
    """Fig. 6.9: BCL has the lowest MSE; Fig. 6.10: BCL and DCL are unbiased, Biased is not."""
    df = studies.mse_study("alpha", [0.9], n_anchors=4000, rng=1, execution=QUIET).set_index(
        "estimator"
    )
    assert df.loc["bcl", "mse"] < df.loc["dcl", "mse"] < df.loc["biased", "mse"]
    truth = df.loc["bcl", "truth_mean"]
    for name in ("bcl", "dcl"):
        # unbiased: the mean estimate is within 5 standard errors of the mean truth
        se = np.sqrt(df.loc[name, "mse"] / df.loc[name, "n_anchors"])
        assert abs(df.loc[name, "mean"] - truth) < 5 * se
    assert df.loc["biased", "mean"] > truth + 10 * np.sqrt(df.loc["biased", "mse"] / 4000)


def test_same_seed_same_frame_whatever_chunks_and_threads():
    kw = dict(n_anchors=2500, rng=11, estimators=("biased", "bcl", "bcl_norm"))
    a = studies.mse_study(
        "gamma", [0.0, 0.3], execution=Execution(progress=False, chunk_size=1024), **kw
    )
    b = studies.mse_study(
        "gamma", [0.0, 0.3], execution=Execution(progress=False, chunk_size=100_000), **kw
    )
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        c = studies.mse_study(
            "gamma", [0.0, 0.3], execution=Execution(progress=False, chunk_size=2048), **kw
        )
    finally:
        numba.set_num_threads(old)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    pd.testing.assert_frame_equal(a, c, check_exact=True)
    d = studies.mse_study(
        "gamma",
        [0.0, 0.3],
        execution=Execution(progress=False, chunk_size=1024),
        **{**kw, "rng": 12},
    )
    assert not np.array_equal(a.mse.values, d.mse.values)


def test_executor_does_not_change_the_result():
    kw = dict(n_anchors=2100, rng=5, estimators=("dcl", "bcl"))
    local = studies.mse_study(
        "n_unlabeled", [16, 48], execution=Execution(progress=False, chunk_size=1024), **kw
    )
    with cf.ThreadPoolExecutor(max_workers=3) as ex:
        threaded = studies.mse_study(
            "n_unlabeled", [16, 48], execution=Execution(ex, progress=False, chunk_size=1024), **kw
        )
    pd.testing.assert_frame_equal(local, threaded, check_exact=True)


@pytest.mark.slow
def test_dask_executor_matches_local():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    kw = dict(n_anchors=2100, rng=5, estimators=("biased", "bcl"))
    local = studies.mse_study(
        "t", [0.5, 1.0], execution=Execution(progress=False, chunk_size=1024), **kw
    )
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        remote = studies.mse_study(
            "t", [0.5, 1.0], execution=Execution(client, progress=False, chunk_size=1024), **kw
        )
    pd.testing.assert_frame_equal(local, remote, check_exact=True)


def test_checkpoint_resumes_without_recomputing(tmp_path, count_chunks):
    path = tmp_path / "study.jsonl"
    kw = dict(n_anchors=1200, rng=2, estimators=("biased", "bcl"))
    full = studies.mse_study("alpha", [0.6, 0.8, 1.0], execution=QUIET, **kw)
    saved = Execution(checkpoint=path, progress=False)
    # a first run that finished two points, then was interrupted inside the third
    studies.mse_study("alpha", [0.6, 0.8, 1.0], execution=saved, **kw)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 3
    path.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2])  # cut mid-line
    calls = count_chunks()
    resumed = studies.mse_study("alpha", [0.6, 0.8, 1.0], execution=saved, **kw)
    assert set(calls) == {2}  # only the point in flight is redone
    pd.testing.assert_frame_equal(full, resumed, check_exact=True)
    # a checkpoint of another study is refused
    with pytest.raises(ValueError, match="different study"):
        studies.mse_study("alpha", [0.6, 0.8], execution=saved, **kw)
    header = json.loads(path.read_text().splitlines()[0])
    assert "signature" in header


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(vary="lambda", values=[1]), "vary"),
        (dict(vary="alpha", values=[0.3]), "alpha"),
        (dict(vary="tau_plus", values=[1.0]), "tau_plus"),
        (dict(vary="n_unlabeled", values=[0]), "n_unlabeled"),
        (dict(vary="alpha", values=[0.9], estimators=("nope",)), "estimators"),
        (dict(vary="n_positives", values=[0]), "n_positives"),
        (dict(vary="beta", values=[1.0], alpha=1.0), "Z = 0"),
    ],
)
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        studies.mse_study(execution=QUIET, n_anchors=10, **kwargs)


def test_fused_kernel_matches_public_estimators():
    """The study's one-pass kernel against the public estimator functions (separate code)."""
    s = score_sets(700, 33, 0.8, 0.2, 0.2, 0.7, 4, None, "inverse", 9)
    point = studies._Point(
        0, 700, 33, 0.8, 0.2, 0.2, 0.7, 0.3, 4, studies.ESTIMATORS, 9, None, "inverse", 0.6
    )
    truth, out = studies._estimates(point, s)
    np.testing.assert_allclose(truth, E.theta_sup(s.scores, s.is_true_negative), rtol=1e-13)
    want = [
        E.theta_biased(s.scores),
        E.theta_dcl(s.scores, s.positives, 0.2),
        E.theta_hcl(s.scores, s.positives, 0.2, 0.6),
        E.theta_bcl(s.scores, 0.8, 0.3, 0.2),
        E.theta_bcl(s.scores, 0.8, 0.3, 0.2, normalize=True),
    ]
    for got, ref in zip(out, want):
        np.testing.assert_allclose(got, ref, rtol=1e-12)
    for hb in (0.5, 1.0):  # the kernel's fast paths for these concentrations
        p2 = studies._Point(
            0, 700, 33, 0.8, 0.2, 0.2, 0.7, 0.3, 4, ("hcl",), 9, None, "inverse", hb
        )
        _, o2 = studies._estimates(p2, s)
        np.testing.assert_allclose(o2[0], E.theta_hcl(s.scores, s.positives, 0.2, hb), rtol=1e-12)


# ---------------------------------------------------------------- Execution / Generation (issue 32)
def test_signature_has_at_most_15_parameters():
    import inspect

    params = inspect.signature(studies.mse_study).parameters
    assert len(params) <= 15, list(params)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert {"execution", "generation"} <= set(params)
    assert not {
        "executor",
        "checkpoint",
        "progress",
        "chunk_size",
        "max_memory",
        "base_interval",
        "method",
    } & set(params)


def test_old_keywords_warn_and_give_the_same_frame_bit_for_bit(tmp_path):
    kw = dict(n_anchors=2100, n_unlabeled=24, rng=7, estimators=("biased", "dcl", "bcl"))
    new = studies.mse_study(
        "alpha",
        [0.7, 0.9],
        **kw,
        generation=studies.Generation(base_interval=(-1.0, 1.0), method="accept-reject"),
        execution=Execution(
            checkpoint=tmp_path / "new.jsonl", progress=False, chunk_size=1024, max_memory=1e9
        ),
    )
    with pytest.warns(DeprecationWarning) as record:
        old = studies.mse_study(
            "alpha",
            [0.7, 0.9],
            **kw,
            base_interval=(-1.0, 1.0),
            method="accept-reject",
            checkpoint=tmp_path / "old.jsonl",
            progress=False,
            chunk_size=1024,
            max_memory=1e9,
        )
    pd.testing.assert_frame_equal(new, old, check_exact=True)
    messages = [str(w.message) for w in record]
    assert any(
        "use execution=Execution(checkpoint=..., progress=..., chunk_size=..., max_memory=...)" in m
        for m in messages
    )
    assert any("use generation=Generation(base_interval=..., method=...)" in m for m in messages), (
        messages
    )
    assert all(w.filename == __file__ for w in record)  # the warning points at the caller
    # the checkpoints record the same study: each resumes the other
    assert (tmp_path / "new.jsonl").read_text() == (tmp_path / "old.jsonl").read_text()
    with pytest.warns(DeprecationWarning, match="progress="):
        studies.mse_study("alpha", [0.9], n_anchors=10, progress=False)


def test_old_keyword_with_the_new_object_is_refused():
    with pytest.raises(ValueError, match=r"execution=.*progress=") as info:
        studies.mse_study("alpha", [0.9], n_anchors=10, execution=QUIET, progress=False)
    assert "chunk_size" not in str(info.value)
    with pytest.raises(ValueError, match=r"generation=.*method="):
        studies.mse_study(
            "alpha",
            [0.9],
            n_anchors=10,
            execution=QUIET,
            generation=studies.Generation(),
            method="inverse",
        )


def test_the_package_itself_does_not_warn():
    import warnings

    from negtheory import _deprecation

    study = _deprecation.grouped_keywords("execution", ("progress",), Execution)(
        lambda *, execution=None: execution
    )
    study.__module__ = "negtheory.fake"
    ns = {"__name__": "negtheory.fake", "study": study}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        got = eval("study(progress=False)", ns)  # a caller inside negtheory
    assert got == QUIET
    with pytest.warns(DeprecationWarning):
        study(progress=False)


@pytest.mark.parametrize(
    "kwargs, name, error",
    [
        (dict(chunk_size=0), "chunk_size", ValueError),
        (dict(chunk_size=1.5), "chunk_size", ValueError),
        (dict(max_memory=-1.0), "max_memory", ValueError),
        (dict(max_memory=float("nan")), "max_memory", ValueError),
        (dict(executor="spark"), "executor", ValueError),
        (dict(executor=object()), "executor", TypeError),
        (dict(progress="yes"), "progress", TypeError),
        (dict(checkpoint=True), "checkpoint", TypeError),
    ],
)
def test_execution_is_validated_and_names_the_field(kwargs, name, error):
    with pytest.raises(error, match=rf"^{name} must"):
        Execution(**kwargs)
    with pytest.raises(error, match=rf"^{name} must"), pytest.warns(DeprecationWarning):
        studies.mse_study("alpha", [0.9], n_anchors=10, **kwargs)  # the old keyword: the same error


@pytest.mark.parametrize(
    "kwargs, name, error",
    [
        (dict(method="reject"), "method", ValueError),
        (dict(base_interval=(1.0, -1.0)), "base_interval", ValueError),
        (dict(base_interval=True), "base_interval", TypeError),
    ],
)
def test_generation_is_validated_and_names_the_field(kwargs, name, error):
    with pytest.raises(error, match=rf"^{name} must"):
        studies.Generation(**kwargs)


def test_settings_are_frozen_and_typed():
    import dataclasses

    ex = Execution(chunk_size=np.int64(2048), max_memory=2**31)
    assert type(ex.chunk_size) is int and type(ex.max_memory) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.progress = False  # type: ignore[misc]
    with pytest.raises(TypeError, match="^execution must be a negtheory.studies.Execution"):
        studies.mse_study("alpha", [0.9], n_anchors=10, execution={"progress": False})
    assert studies.Generation(base_interval=[-1, 1]).base_interval == (-1, 1)
