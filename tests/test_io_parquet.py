"""Parquet in and out on the pandas path: read_run / write_run / read_qrels / write_qrels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.core.schema import canonical_qrels, canonical_run
from pdireval.errors import SchemaError


def _collection():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=10, rng=5)
    run["score"] = run["score"] / 3.0  # full float64 precision must survive
    return run, qrels


def test_run_round_trip_is_exact_and_keeps_every_column(tmp_path):
    run, qrels = _collection()
    run = run.assign(rank=run.groupby(["system", "query"]).cumcount() + 1)
    run = run.merge(qrels, on=["query", "doc"], how="left")  # a label column (NaN = unjudged)
    path = tmp_path / "run.parquet"
    pdireval.write_run(run, path)
    back = pdireval.read_run(path)
    pd.testing.assert_frame_equal(back, canonical_run(run), check_exact=True)
    assert pdireval.evaluate(back, "AP", qrels=qrels).equals(pdireval.evaluate(run, "AP", qrels=qrels))


def test_qrels_round_trip_keeps_nan_labels(tmp_path):
    _, qrels = _collection()
    qrels = qrels.astype({"label": np.float64})
    qrels.loc[0, "label"] = np.nan  # pooled but unjudged: not writable as TREC text, fine here
    path = tmp_path / "qrels.pq"
    pdireval.write_qrels(qrels, path)
    pd.testing.assert_frame_equal(pdireval.read_qrels(path), canonical_qrels(qrels), check_exact=True)


def test_a_folder_mixing_trec_and_parquet_files(tmp_path):
    run, _ = _collection()
    a, b, c = sorted(run["system"].unique())
    pdireval.write_run(run[run["system"] == a], tmp_path / "a.txt")
    pdireval.write_run(run[run["system"].isin([b, c])].drop(columns="rank", errors="ignore"), tmp_path / "b.parquet")
    both = pdireval.read_run(tmp_path)
    assert sorted(both["system"].unique()) == [a, b, c]
    (tmp_path / "one").mkdir()
    pdireval.write_run(run[run["system"] == c], tmp_path / "one" / "c-run.parquet")
    named = pdireval.read_run(tmp_path / "one" / "c-run.parquet", system="filename")
    assert set(named["system"]) == {"c-run"}


def test_bad_parquet_files_name_the_file(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet")
    with pytest.raises(SchemaError, match="junk.parquet: not a readable Parquet file"):
        pdireval.read_run(junk)
    run, _ = _collection()
    bad = run.copy()
    bad.loc[2, "score"] = np.nan
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(SchemaError, match=r"bad.parquet: the run column 'score' has 1 NaN"):
        pdireval.read_run(tmp_path / "bad.parquet")
    with pytest.raises(SchemaError, match="no column 'label'"):
        pdireval.read_qrels(tmp_path / "bad.parquet")
    with pytest.raises(SchemaError, match="no such qrels file"):
        pdireval.read_qrels(tmp_path / "absent.parquet")
