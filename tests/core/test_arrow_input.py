"""Arrow data (pyarrow Tables, RecordBatchReaders, polars and DuckDB results) is accepted
wherever a run, qrels or scores frame is, with the same results as the pandas frame."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

import pdireval

MEASURES = ["AP", "nDCG@10", "P@5"]


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=12, depth=25, rng=6)
    run = run.astype({"system": str, "query": str, "doc": str})
    qrels = qrels.astype({"query": str, "doc": str})
    scores = pdireval.evaluate(run, MEASURES, qrels=qrels)
    return run, qrels, scores


def _table(frame):
    return pa.Table.from_pandas(frame, preserve_index=False)


def test_pyarrow_tables_and_readers_equal_pandas(collection):
    run, qrels, want = collection
    got = pdireval.evaluate(_table(run), MEASURES, qrels=_table(qrels))
    pd.testing.assert_frame_equal(got, want)
    t = _table(run)
    reader = pa.RecordBatchReader.from_batches(t.schema, t.to_batches(max_chunksize=97))
    pd.testing.assert_frame_equal(pdireval.evaluate(reader, MEASURES, qrels=qrels), want)
    batch = t.combine_chunks().to_batches()[0]
    pd.testing.assert_frame_equal(pdireval.evaluate(batch, MEASURES, qrels=qrels), want)


def test_scores_as_arrow_in_meta_functions(collection):
    *_, scores = collection
    table = _table(scores.astype({"system": str, "query": str, "measure": str}))
    pd.testing.assert_frame_equal(pdireval.aggregate(table), pdireval.aggregate(scores))
    pd.testing.assert_frame_equal(pdireval.compare(table, method="t"),
                                  pdireval.compare(scores, method="t"))


def test_polars_frames(collection):
    pl = pytest.importorskip("polars", reason="polars is a test dependency")
    run, qrels, want = collection
    got = pdireval.evaluate(pl.from_pandas(run), MEASURES, qrels=pl.from_pandas(qrels))
    pd.testing.assert_frame_equal(got, want)
    scores = pl.from_pandas(want.astype({"system": str, "query": str, "measure": str}))
    pd.testing.assert_frame_equal(pdireval.reliability(scores), pdireval.reliability(want))


def test_duckdb_results(collection):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a test dependency")
    run, qrels, want = collection
    con = duckdb.connect()
    con.register("run_view", run)
    relation = con.sql("select system, query, doc, score from run_view")
    pd.testing.assert_frame_equal(pdireval.evaluate(relation, MEASURES, qrels=qrels), want)


def test_the_caller_keeps_its_arrow_table_and_errors_stay_clear(collection):
    run, qrels, _ = collection
    t = _table(run)
    before = t.to_pandas()
    pdireval.evaluate(t, ["AP"], qrels=qrels)
    pd.testing.assert_frame_equal(t.to_pandas(), before)
    with pytest.raises(pdireval.SchemaError, match="score"):
        pdireval.evaluate(t.drop_columns(["score", "rank"]), ["AP"], qrels=qrels)
    with pytest.raises(TypeError, match="Arrow data"):
        pdireval.aggregate(42)
    with pytest.raises(TypeError, match="the run must be a pandas DataFrame"):
        pdireval.evaluate(pa.array([1.0, 2.0]), ["AP"], qrels=qrels)  # an array, not a table
