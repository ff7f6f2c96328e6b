"""The checkpoint file of negtheory.studies.mse_study: resume, repair, and refusal of foreign data (issue 12 item 8)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from negtheory import studies

VALUES = [0.6, 0.8, 1.0]
KW = dict(n_anchors=300, rng=2, estimators=("biased", "bcl"))


def saved(path):
    """The execution settings of a study checkpointed to ``path`` (no progress bar)."""
    return studies.Execution(checkpoint=path, progress=False)


@pytest.fixture(scope="module")
def uninterrupted():
    return studies.mse_study("alpha", VALUES, execution=studies.Execution(progress=False), **KW)


@pytest.fixture()
def finished(tmp_path):
    """A complete checkpoint of the study (header + 3 records)."""
    path = tmp_path / "study.jsonl"
    studies.mse_study("alpha", VALUES, execution=saved(path), **KW)
    assert len(path.read_text().splitlines()) == 4
    return path


def test_header_holds_every_parameter_and_a_version(finished):
    header = json.loads(finished.read_text().splitlines()[0])
    assert header["format"] == "negtheory.mse_study.checkpoint" and header["version"] == 2
    p = header["params"]
    assert (
        p["seed"] == 2 and p["values"] == VALUES and p["vary"] == "alpha" and p["n_anchors"] == 300
    )
    assert {
        "gamma",
        "tau_plus",
        "t",
        "beta",
        "n_positives",
        "n_unlabeled",
        "estimators",
        "method",
    } <= set(p)
    for line in finished.read_text().splitlines()[1:]:
        rec = json.loads(line)
        assert len(rec["sha256"]) == 64 and rec["value"] == VALUES[rec["index"]]


def test_resume_after_crash_mid_write_is_bit_identical_and_repairs_the_file(
    finished, uninterrupted, count_chunks
):
    lines = finished.read_text().splitlines()
    # two points written, the third cut in mid-write (no newline)
    finished.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2])
    calls = count_chunks()
    resumed = studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)
    assert set(calls) == {2}  # only the point in flight is recomputed
    pd.testing.assert_frame_equal(resumed, uninterrupted, check_exact=True)
    # the cut line was removed before the append: the re-recorded point is not lost
    repaired = finished.read_text().splitlines()
    assert len(repaired) == 4 and all(json.loads(x) for x in repaired)
    calls.clear()
    again = studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)
    assert calls == []
    pd.testing.assert_frame_equal(again, uninterrupted, check_exact=True)


def test_complete_last_record_without_newline_is_kept(finished, uninterrupted, count_chunks):
    finished.write_text(finished.read_text().rstrip("\n"))
    calls = count_chunks()
    resumed = studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)
    assert calls == []
    assert finished.read_text().endswith("\n")
    pd.testing.assert_frame_equal(resumed, uninterrupted, check_exact=True)


def test_cut_header_starts_afresh(tmp_path, uninterrupted):
    path = tmp_path / "ck.jsonl"
    path.write_text('{"format": "negtheory.mse_st')
    df = studies.mse_study("alpha", VALUES, execution=saved(path), **KW)
    pd.testing.assert_frame_equal(df, uninterrupted, check_exact=True)
    assert len(path.read_text().splitlines()) == 4


def test_tampered_mse_is_refused(finished):
    lines = finished.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["rows"][0]["mse"] *= 0.5
    lines[2] = json.dumps(rec)
    finished.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"{finished.name}, line 3: .*checksum"):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)


def test_foreign_record_index_is_refused(finished):
    """A record for index 99 (even with a checksum valid for this study) must not add rows."""
    lines = finished.read_text().splitlines()
    sig = json.loads(lines[0])["signature"]
    rec = json.loads(lines[1])
    rec["index"] = 99
    rec["sha256"] = studies._sha256([sig, 99, rec["value"], rec["rows"]])
    finished.write_text("\n".join(lines + [json.dumps(rec)]) + "\n")
    with pytest.raises(ValueError, match=r"line 5: record index 99 is not a point of this study"):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)


def test_record_of_a_run_with_another_seed_is_refused(finished, tmp_path):
    other = tmp_path / "seed3.jsonl"
    studies.mse_study("alpha", VALUES, execution=saved(other), **{**KW, "rng": 3})
    lines = finished.read_text().splitlines()
    lines[2] = other.read_text().splitlines()[2]  # same index and value, other seed
    finished.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 3: the checksum of record 1 does not match"):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)


def test_checkpoint_of_another_study_names_the_difference(finished):
    with pytest.raises(
        ValueError, match=r"line 1: belongs to a different study \(seed: 2 in the file, 5 now\)"
    ):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **{**KW, "rng": 5})
    with pytest.raises(ValueError, match=r"different study \(values"):
        studies.mse_study("alpha", VALUES[:2], execution=saved(finished), **KW)


def test_duplicate_different_record_is_refused(finished):
    lines = finished.read_text().splitlines()
    lines.append(lines[1])  # an identical repeat is harmless
    finished.write_text("\n".join(lines) + "\n")
    studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)
    lines[-1] = lines[2].replace(
        '"index":1', '"index":0'
    )  # index 0 with point 1's content; caught by the checksum
    finished.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 5: "):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)


@pytest.mark.parametrize(
    "line,lineno,msg",
    [
        ("[1, 2]", 2, "not a checkpoint record"),
        ('"text"', 2, "not a checkpoint record"),
        ('{"index": "a", "value": 1, "rows": [], "sha256": "x"}', 2, "record index 'a'"),
        ("{not json", 2, "not a JSON object"),
        ("\xff\xfe", 2, "not a JSON object"),
    ],
)
def test_wrong_structure_is_a_clean_error(finished, line, lineno, msg):
    lines = finished.read_text().splitlines()
    lines.insert(1, line)
    finished.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    with pytest.raises(ValueError, match=rf"line {lineno}: {msg}"):
        studies.mse_study("alpha", VALUES, execution=saved(finished), **KW)


@pytest.mark.parametrize(
    "header,msg",
    [
        ("{}", "not a negtheory mse_study checkpoint header"),
        ("[]", "not a negtheory mse_study checkpoint header"),
        ('{"signature": "abc", "format": "negtheory.mse_study/1"}', "format version 1"),
        ('{"format": "negtheory.mse_study.checkpoint", "version": 3}', "format version 3"),
        (
            '{"format": "negtheory.mse_study.checkpoint", "version": 2, "params": {"seed": 2}, "signature": "0"}',
            "signature",
        ),
    ],
)
def test_bad_header_is_a_clean_error(tmp_path, header, msg):
    path = tmp_path / "ck.jsonl"
    path.write_text(header + "\n")
    with pytest.raises(ValueError, match=rf"line 1: .*{msg}"):
        studies.mse_study("alpha", VALUES, execution=saved(path), **KW)


def test_checkpoint_that_is_a_folder(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        studies.mse_study("alpha", VALUES, execution=saved(tmp_path), **KW)
