"""pdireval.dask: the Dask path gives pandas' frame exactly, for every partitioning."""

from __future__ import annotations

import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask", reason="the Dask tests need the 'dask' extra (pip install pdireval[dask])")
dd = pytest.importorskip("dask.dataframe")

import pdireval  # noqa: E402
import pdireval.dask as pdask  # noqa: E402
from pdireval.errors import MeasureError, OptionError, PdirevalWarning, SchemaError  # noqa: E402

MEASURES = ["nDCG@10", "AP", "ERR@20", "RR", "P@5", "NumRel", "Rprec", "nDCG(bounds=minmax)@10", "AP(bounds=ul2)",
            "nDCG(bounds=ul1,lb=mc,mc_samples=20)@5"]


def _collection():
    """Systems that skip queries, queries without judgments, tied scores, a query judged but
    never answered."""
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=12, depth=30, rng=7)
    rng = np.random.default_rng(3)
    run = run.iloc[rng.permutation(len(run))].reset_index(drop=True)  # rows in any order
    run["score"] = np.round(run["score"], 1)  # ties
    # system 0 skips two queries; query of the last system answered partially
    queries = sorted(run["query"].unique())
    skip = (run["system"] == sorted(run["system"].unique())[0]) & run["query"].isin(queries[:2])
    run = run.loc[~skip].reset_index(drop=True)
    # two run queries without judgments, one judged query nobody answers
    extra = run[run["query"] == queries[3]].copy()
    extra["query"] = "unjudged-1"
    extra2 = run[run["query"] == queries[4]].copy()
    extra2["query"] = "unjudged-2"
    run = pd.concat([run, extra, extra2], ignore_index=True)
    qrels = pd.concat([qrels, pd.DataFrame({"query": ["never"], "doc": ["d0"], "label": [1]})], ignore_index=True)
    return run, qrels


RUN, QRELS = _collection()


def _pandas(run=RUN, measures=MEASURES, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        return pdireval.evaluate(run, measures, qrels=QRELS, **kw)


def _by(run: pd.DataFrame, key: str, n_parts: int) -> dd.DataFrame:
    """A Dask frame whose partitions hold whole values of ``key`` (several per partition),
    in the original row order within each."""
    values = sorted(run[key].unique())
    groups = [values[i::n_parts] for i in range(n_parts)]
    return dd.from_map(lambda g: run[run[key].isin(g)].reset_index(drop=True), groups, meta=run.iloc[:0])


def _compute(lazy, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        return lazy.compute(scheduler="threads", **kw)


@pytest.mark.parametrize("missing", ["zero", "drop"])
@pytest.mark.parametrize(
    "layout,partitioned_by",
    [("system", "system"), ("query", "query"), ("rows", None), ("system", None), ("one", None)],
)
def test_equals_pandas_for_every_partitioning(layout, partitioned_by, missing):
    expected = _pandas(missing=missing)
    if layout == "rows":  # arbitrary: lists split across partitions, shuffled by query
        ddf = dd.from_pandas(RUN, npartitions=4, sort=False)
    elif layout == "one":
        ddf = dd.from_pandas(RUN, npartitions=1)
    else:
        ddf = _by(RUN, layout, 3)
    got = _compute(pdask.evaluate(ddf, MEASURES, qrels=QRELS, missing=missing, partitioned_by=partitioned_by))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert got.dtypes.equals(expected.dtypes)
    assert isinstance(got.index, pd.RangeIndex)


def test_rows_split_across_partitions_are_an_error_never_a_wrong_number():
    ddf = dd.from_pandas(RUN, npartitions=4, sort=False)  # cuts ranked lists in two
    with pytest.raises(SchemaError, match="split across partitions") as info:
        _compute(pdask.evaluate(ddf, "AP", qrels=QRELS, partitioned_by="system"))
    assert "partitioned_by=None" in str(info.value)


def test_the_same_single_warning_as_pandas():
    ddf = _by(RUN, "system", 3)
    with pytest.warns(PdirevalWarning) as expected:  # the whole run: the partitions in order
        pdireval.evaluate(ddf.compute(), "AP", qrels=QRELS)
    lazy = pdask.evaluate(ddf, "AP", qrels=QRELS, partitioned_by="system")
    with pytest.warns(PdirevalWarning) as got:
        lazy.compute(scheduler="threads")
    assert [str(w.message) for w in got] == [str(w.message) for w in expected]
    assert len(got) == 2  # once each (not once per partition): unjudged queries, filled pairs


@pytest.mark.parametrize("layout", ["shuffle", "system"])
def test_the_same_doc_id_warnings_as_pandas(layout):
    """Doc ids that miss the qrels: the whole-run and the per-list warnings, examples
    included, as pandas gives them, whatever the partitioning (issue 13)."""
    run = RUN[~RUN["query"].str.startswith("unjudged")].sort_values("system", kind="stable", ignore_index=True)
    first = sorted(run["system"].unique())[0]
    some = run.assign(doc=run["doc"].where(~((run["system"] == first) & run["query"].isin(["3", "5", "7", "8"])), run["doc"].str.lower()))
    every = run.assign(doc=run["doc"].str.lower())
    for odd, start in ((some, "4 ranked lists of at least 10 documents"), (every, "none of the run's retrieved documents")):
        with warnings.catch_warnings(record=True) as expected:
            warnings.simplefilter("always", PdirevalWarning)
            pdireval.evaluate(odd, "AP", qrels=QRELS, missing="drop")
        assert [str(w.message)[: len(start)] for w in expected] == [start]
        ddf = _by(odd, "system", 3) if layout == "system" else dd.from_pandas(odd.sample(frac=1.0, random_state=0), npartitions=4, sort=False)
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always", PdirevalWarning)
            pdask.evaluate(ddf, "AP", qrels=QRELS, missing="drop", partitioned_by=layout if layout == "system" else None).compute(scheduler="threads")
        assert [str(w.message) for w in got] == [str(w.message) for w in expected]


def test_the_same_warnings_after_a_shuffle():
    ddf = dd.from_pandas(RUN, npartitions=4, sort=False)  # shuffled by query: rows move
    with pytest.warns(PdirevalWarning) as expected:
        pdireval.evaluate(RUN, MEASURES, qrels=QRELS)
    with pytest.warns(PdirevalWarning) as got:
        pdask.evaluate(ddf, MEASURES, qrels=QRELS).compute(scheduler="threads")
    assert [str(w.message) for w in got] == [str(w.message) for w in expected]
    other = RUN.assign(query="x" + RUN["query"])  # no judged query: the error lists them in run order
    with pytest.raises(SchemaError) as expected_error:
        pdireval.evaluate(other, "AP", qrels=QRELS)
    with pytest.raises(SchemaError) as got_error:
        pdask.evaluate(dd.from_pandas(other, npartitions=4, sort=False), "AP", qrels=QRELS).compute(scheduler="threads")
    assert str(got_error.value) == str(expected_error.value)


def test_finalize_false_gives_the_partition_rows_unordered():
    lazy = pdask.evaluate(_by(RUN, "query", 3), MEASURES, qrels=QRELS, partitioned_by="query", finalize=False)
    assert lazy.npartitions == 3
    got = lazy.compute(scheduler="threads")  # no warning: the final task is not run
    expected = _pandas(missing="drop")
    key = ["system", "query", "measure"]
    got = got.sort_values(key, ignore_index=True)
    pd.testing.assert_frame_equal(got, expected.sort_values(key, ignore_index=True), check_exact=True)


def test_judgments_from_a_dask_qrels_frame_and_from_the_run_labels():
    expected = _pandas()
    qddf = dd.from_pandas(QRELS, npartitions=3)
    got = _compute(pdask.evaluate(_by(RUN, "system", 2), MEASURES, qrels=qddf, partitioned_by="system"))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    # the re-ranking case: labels in the run (NaN = unjudged)
    labelled = RUN.merge(QRELS, on=["query", "doc"], how="left")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        expected = pdireval.evaluate(labelled, MEASURES)
    got = _compute(pdask.evaluate(_by(labelled, "system", 2), MEASURES, partitioned_by="system"))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_column_mapping_and_rank_order():
    renamed = RUN.rename(columns={"query": "qid", "doc": "docno"})
    ranked = renamed.assign(rank=renamed.groupby(["system", "qid"])["score"].rank(method="first", ascending=False).astype(int))
    cols = {"query": "qid", "doc": "docno"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        expected = pdireval.evaluate(ranked, MEASURES, qrels=QRELS, columns=cols, order="rank")
    got = _compute(pdask.evaluate(dd.from_pandas(ranked, npartitions=3), MEASURES, qrels=QRELS, columns=cols, order="rank"))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_errors_raised_in_partitions_are_pdireval_errors_with_pandas_messages():
    bad = RUN.copy()
    bad.loc[len(bad) // 2, "score"] = np.nan
    with pytest.raises(SchemaError) as expected:
        pdireval.evaluate(bad, "AP", qrels=QRELS)
    with pytest.raises(SchemaError) as got:
        _compute(pdask.evaluate(dd.from_pandas(bad, npartitions=3), "AP", qrels=QRELS))
    assert str(got.value) == str(expected.value)
    # no judged query at all: checked by the final task, pandas' message
    other = _by(RUN.assign(query="x" + RUN["query"]), "system", 2)
    with pytest.raises(SchemaError) as expected:  # the whole run: the partitions in order
        pdireval.evaluate(other.compute(), "AP", qrels=QRELS)
    with pytest.raises(SchemaError) as got:
        _compute(pdask.evaluate(other, "AP", qrels=QRELS, partitioned_by="system"))
    assert str(got.value) == str(expected.value)


def test_bad_options_fail_at_once_without_reading_data():
    ddf = dd.from_pandas(RUN, npartitions=2)
    with pytest.raises(MeasureError):
        pdask.evaluate(ddf, "nDCG@ten", qrels=QRELS)
    with pytest.raises(OptionError, match="partitioned_by"):
        pdask.evaluate(ddf, "AP", qrels=QRELS, partitioned_by="doc")
    with pytest.raises(OptionError, match="missing"):
        pdask.evaluate(ddf, "AP", qrels=QRELS, missing="zeros")
    with pytest.raises(SchemaError, match="no column 'doc'"):
        pdask.evaluate(ddf.drop(columns="doc"), "AP", qrels=QRELS)
    with pytest.raises(SchemaError, match="no judgments"):
        pdask.evaluate(ddf, "AP")
    with pytest.raises(OptionError, match="rlb_pool=qrels"):
        pdask.evaluate(ddf, "nDCG(bounds=ul1,lb=mc,rlb_pool=run)@5", qrels=QRELS)
    with pytest.raises(TypeError, match="pdireval.evaluate"):
        pdask.evaluate(RUN, "AP", qrels=QRELS)


def test_nothing_is_computed_before_compute():
    from dask.callbacks import Callback

    executed = []

    class Count(Callback):
        def _pretask(self, key, dsk, state):
            executed.append(key)

    with Count(), dask.config.set(scheduler="sync"):
        ddf = dd.from_pandas(RUN, npartitions=3)
        lazy = ddf.ireval.evaluate(MEASURES, qrels=dd.from_pandas(QRELS, npartitions=2))
        assert executed == []
        assert list(lazy.columns) == ["system", "query", "measure", "value"]
        assert executed == []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)
            lazy.compute()
    assert len(executed) > 0


def test_accessor_matches_the_function():
    ddf = _by(RUN, "system", 2)
    got = _compute(ddf.ireval.evaluate(MEASURES, qrels=QRELS, partitioned_by="system"))
    pd.testing.assert_frame_equal(got, _pandas(), check_exact=True)


@pytest.mark.slow  # over 3 s; CI's second step runs it
def test_import_pdireval_does_not_import_dask_but_registers_when_dask_is_loaded():
    code = (
        "import sys, pdireval; assert 'dask' not in sys.modules, 'pdireval imported dask'; "
        "import pandas as pd, pdireval.dask; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
    code = (
        "import dask.dataframe as dd, pandas as pd, pdireval; "
        "ddf = dd.from_pandas(pd.DataFrame({'a': [1]}), npartitions=1); "
        "print(hasattr(ddf, 'ireval'), 'pdireval.dask' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", "import sys; " + code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True True"


def test_read_run_one_partition_per_file_and_per_parquet_row_group(tmp_path):
    systems = sorted(RUN["system"].unique())
    for s in systems[:3]:
        pdireval.write_run(RUN[RUN["system"] == s], tmp_path / f"{s}.txt")
    ddf = pdask.read_run(str(tmp_path / "*.txt"))
    assert ddf.npartitions == 3
    got = ddf.compute(scheduler="threads")
    pd.testing.assert_frame_equal(got.reset_index(drop=True), pdireval.read_run(tmp_path), check_exact=True)
    # Parquet: one partition per row group, whole systems in each
    part = RUN[RUN["system"].isin(systems[3:])].sort_values(["system", "query"], kind="stable", ignore_index=True)
    path = tmp_path / "rest.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pdireval.read_run(tmp_path / f"{systems[0]}.txt").iloc[:0], preserve_index=False)
    with pq.ParquetWriter(path, table.schema) as writer:
        for s in systems[3:]:
            writer.write_table(pa.Table.from_pandas(part[part["system"] == s].assign(rank=1).astype({"rank": "int64"})[list(table.schema.names)], schema=table.schema, preserve_index=False))
    pq_ddf = pdask.read_run(path)
    assert pq_ddf.npartitions == len(systems) - 3
    whole = pdask.read_run([*(str(tmp_path / f"{s}.txt") for s in systems[:3]), str(path)])
    got = _compute(pdask.evaluate(whole, MEASURES, qrels=QRELS, partitioned_by="system"))
    full = pd.concat([pdireval.read_run(tmp_path / f"{s}.txt") for s in systems[:3]] + [pq_ddf.compute()], ignore_index=True)
    pd.testing.assert_frame_equal(got, _pandas(full), check_exact=True)


def test_read_qrels_lazily(tmp_path):
    pdireval.write_qrels(QRELS.iloc[:100], tmp_path / "a.txt")
    pdireval.write_qrels(QRELS.iloc[100:], tmp_path / "b.txt")
    q = pdask.read_qrels(tmp_path)
    assert q.npartitions == 2
    got = _compute(pdask.evaluate(_by(RUN, "system", 2), MEASURES, qrels=q, partitioned_by="system"))
    pd.testing.assert_frame_equal(got, _pandas(), check_exact=True)


def test_read_run_errors_name_the_path(tmp_path):
    with pytest.raises(SchemaError, match="no file matches"):
        pdask.read_run(str(tmp_path / "*.gz"))
    (tmp_path / "bad.txt").write_text("1 Q0 d1 1 notanumber tag\n")
    with pytest.raises(SchemaError, match="bad.txt"):
        pdask.read_run(tmp_path / "bad.txt").compute(scheduler="sync")


def test_evaluate_variants_means_equal_the_pandas_path():
    sub = pdireval.subsample_qrels(QRELS, levels=(30, 70), n_resamples=2, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        full = pdireval.evaluate_variants(RUN, ["AP", "nDCG@10", "NumRel"], sub)
    keys = ["level", "repeat", "system", "measure"]
    g = full.groupby(keys, sort=False)["value"]
    expected = g.mean().reset_index()
    expected["n_queries"] = g.size().to_numpy()
    for ddf, by in [(dd.from_pandas(RUN, npartitions=3, sort=False), None), (_by(RUN, "system", 2), "system")]:
        got = _compute(pdask.evaluate_variants(ddf, ["AP", "nDCG@10", "NumRel"], sub, partitioned_by=by))
        exp = expected.sort_values(keys[:3], kind="stable", ignore_index=True)
        pd.testing.assert_frame_equal(got.reset_index(drop=True), exp, check_exact=True, check_dtype=False)
    with pytest.raises(OptionError, match="partitioned_by='query'"):
        pdask.evaluate_variants(_by(RUN, "query", 2), "AP", sub, partitioned_by="query")


@pytest.mark.slow
def test_local_cluster_two_workers():
    distributed = pytest.importorskip("distributed")
    expected = _pandas()
    with warnings.catch_warnings():
        # the cluster's own start-up chatter (ports, deprecations in its dependencies)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", ResourceWarning)
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB", dashboard_address=":0")
        client = distributed.Client(cluster)
    try:
        lazy = pdask.evaluate(dd.from_pandas(RUN, npartitions=4, sort=False), MEASURES, qrels=QRELS)
        ddf = dd.from_pandas(RUN, npartitions=4, sort=False)
        with pytest.warns(PdirevalWarning) as pandas_warnings:
            pdireval.evaluate(ddf.compute(), MEASURES, qrels=QRELS)
        want = sorted(str(w.message) for w in pandas_warnings)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", PdirevalWarning)
            got = lazy.compute()
            deadline = time.monotonic() + 10  # a worker's warning travels as a scheduler event

            def ours():
                return sorted(str(w.message) for w in seen if issubclass(w.category, PdirevalWarning))

            while len(ours()) < len(want) and time.monotonic() < deadline:
                time.sleep(0.05)
        assert ours() == want  # each once, as pandas gives them (2: unjudged queries, filled pairs)
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        bad = RUN.copy()
        bad.loc[3, "score"] = np.inf
        with pytest.raises(SchemaError, match="NaN or infinite"):
            pdask.evaluate(dd.from_pandas(bad, npartitions=2), "AP", qrels=QRELS).compute()
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client.close()
            cluster.close()


def _tied_run():
    """Scores that tie at float32 precision but not as doubles (1.2 and 1.2 + 1e-9), so that
    score_precision changes values."""
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=8, depth=30, rng=3, score_decimals=1)
    run["score"] = run["score"] + np.random.default_rng(0).integers(0, 3, len(run)) * 1e-9
    return run, qrels


TIED_RUN, TIED_QRELS = _tied_run()
#: 10.0's interpolated precision (differs from 9.0.8's) and the measures only 10.0 has
MEASURES_10 = ["AP", "nDCG@10", "iprec_at_recall_0.10", "11pt_avg", "P@5", "rbp", "rbp_resid", "unj_5"]


def _messages(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", PdirevalWarning)
        result = call()
    return result, [str(w.message) for w in seen if issubclass(w.category, PdirevalWarning)]


@pytest.mark.parametrize("trec_eval", [None, "9.0.8", "10"])
@pytest.mark.parametrize("score_precision", [None, "float32", "float64"])
def test_trec_eval_and_score_precision_equal_pandas(trec_eval, score_precision):
    measures = MEASURES_10[:5] if trec_eval == "9.0.8" else MEASURES_10
    options = {"qrels": TIED_QRELS, "trec_eval": trec_eval, "score_precision": score_precision}
    expected, expected_warnings = _messages(lambda: pdireval.evaluate(TIED_RUN, measures, **options))
    float32 = score_precision is None and trec_eval != "10"
    # the ties matter: at float32 a warning counts the changed values, as doubles none, and a
    # precision chosen needs none
    assert [m.split(" of ")[1][:3] for m in expected_warnings] == (["256" if len(measures) == 8 else "160"] if float32 else [])
    for ddf, by in [(dd.from_pandas(TIED_RUN, npartitions=3, sort=False), None), (_by(TIED_RUN, "system", 2), "system")]:
        lazy = pdask.evaluate(ddf, measures, partitioned_by=by, **options)
        got, got_warnings = _messages(lambda lazy=lazy: lazy.compute(scheduler="synchronous"))
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert got_warnings == expected_warnings  # the same float32 warning: count and example
    accessor = _compute(_by(TIED_RUN, "system", 2).ireval.evaluate(measures, partitioned_by="system", **options))
    pd.testing.assert_frame_equal(accessor, expected, check_exact=True)


def test_trec_eval_10_reaches_the_partitions():
    """10.0's interpolated precision and doubles differ from the default's numbers."""
    ddf = dd.from_pandas(TIED_RUN, npartitions=3, sort=False)
    nine = _compute(pdask.evaluate(ddf, ["11pt_avg", "AP"], qrels=TIED_QRELS))
    ten = _compute(pdask.evaluate(ddf, ["11pt_avg", "AP"], qrels=TIED_QRELS, trec_eval="10"))
    for measure in ("11pt_avg", "AP"):
        a = nine.loc[nine["measure"] == measure, "value"].to_numpy()
        b = ten.loc[ten["measure"] == measure, "value"].to_numpy()
        assert (a != b).any()
    ten32 = _compute(pdask.evaluate(ddf, ["AP"], qrels=TIED_QRELS, trec_eval="10", score_precision="float32"))
    pd.testing.assert_frame_equal(ten32, nine[nine["measure"] == "AP"].reset_index(drop=True))


def test_trec_eval_options_fail_at_once_with_pandas_messages():
    ddf = dd.from_pandas(TIED_RUN, npartitions=2)
    for options, error, match in [
        ({"trec_eval": "9.0.8"}, MeasureError, "'rbp' .* trec_eval 9.0.8 does not have"),
        ({"trec_eval": "11"}, OptionError, "trec_eval='11'"),
        ({"score_precision": "float16"}, OptionError, "score_precision"),
        ({"trec_eval": "10", "score_precision": "double"}, OptionError, "score_precision"),
    ]:
        with pytest.raises(error, match=match) as expected:
            pdireval.evaluate(TIED_RUN, ["AP", "rbp"], qrels=TIED_QRELS, **options)
        with pytest.raises(error) as got:
            pdask.evaluate(ddf, ["AP", "rbp"], qrels=TIED_QRELS, **options)  # before any compute
        assert str(got.value) == str(expected.value)
        with pytest.raises(error):
            ddf.ireval.evaluate(["AP", "rbp"], qrels=TIED_QRELS, **options)


@pytest.mark.parametrize("score_precision", ["float32", "float64"])
def test_evaluate_variants_score_precision_equals_the_pandas_path(score_precision):
    sub = pdireval.subsample_qrels(TIED_QRELS, levels=(50,), n_resamples=2, rng=0)
    full = pdireval.evaluate_variants(TIED_RUN, ["AP", "nDCG@10"], sub, score_precision=score_precision)
    keys = ["level", "repeat", "system", "measure"]
    g = full.groupby(keys, sort=False)["value"]
    expected = g.mean().reset_index()
    expected["n_queries"] = g.size().to_numpy()
    expected = expected.sort_values(keys[:3], kind="stable", ignore_index=True)
    ddf = dd.from_pandas(TIED_RUN, npartitions=3, sort=False)
    got = _compute(pdask.evaluate_variants(ddf, ["AP", "nDCG@10"], sub, score_precision=score_precision))
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected, check_exact=True, check_dtype=False)
    via = _compute(ddf.ireval.evaluate_variants(["AP", "nDCG@10"], sub, score_precision=score_precision))
    pd.testing.assert_frame_equal(via, got, check_exact=True)
    with pytest.raises(OptionError, match="score_precision"):
        pdask.evaluate_variants(ddf, "AP", sub, score_precision="float16")


@pytest.mark.parametrize("layout", ["shuffle", "system", "query"])
def test_the_same_warnings_as_pandas_with_float32_ties(layout):
    """Unjudged run queries, filled pairs and values changed by float32 ties: pandas' three
    warnings, in its order, with the same counts and first example, for every layout."""
    run = RUN.assign(score=RUN["score"] + np.random.default_rng(1).integers(0, 3, len(RUN)) * 1e-9)
    measures = [*MEASURES, "rbp", "11pt_avg"]
    expected, expected_warnings = _messages(lambda: pdireval.evaluate(run, measures, qrels=QRELS))
    assert len(expected_warnings) == 3 and " equal at float32 precision" in expected_warnings[2]
    ddf = dd.from_pandas(run, npartitions=4, sort=False) if layout == "shuffle" else _by(run, layout, 3)
    lazy = pdask.evaluate(ddf, measures, qrels=QRELS, partitioned_by=None if layout == "shuffle" else layout)
    got, got_warnings = _messages(lambda: lazy.compute(scheduler="threads"))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert got_warnings == expected_warnings


def _seeded():
    """Three seeds of each simulated system (scores perturbed, ties), rows shuffled, seed 2
    missing one query."""
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=6, depth=20, rng=3)
    runs = []
    for s in range(3):
        noise = np.random.default_rng(s).normal(size=len(run))
        runs.append(run.assign(score=np.round(run["score"] + noise, 1), seed=s))
    seeded = pd.concat(runs, ignore_index=True).sample(frac=1, random_state=1)
    seeded = seeded[~((seeded["seed"] == 2) & (seeded["query"] == seeded["query"].iloc[0]))]
    return seeded.reset_index(drop=True), qrels


@pytest.mark.parametrize("npartitions", [1, 3])
def test_a_seed_column_is_evaluated_per_seed_as_pandas_does(npartitions):
    """Issue 33: a run with one ranking per (system, seed, query) was reported as duplicate
    rows, advising drop_duplicates (which would keep one seed only); it is now evaluated per
    seed, giving pandas' frame (seed column included) and pandas' warnings."""
    run, qrels = _seeded()
    measures = ["AP", "nDCG@10", "NumRel"]
    with warnings.catch_warnings(record=True) as expected_warnings:
        warnings.simplefilter("always")
        expected = pdireval.evaluate(run, measures, qrels=qrels)
    assert list(expected.columns[:2]) == ["system", "seed"] and expected["seed"].nunique() == 3
    lazy = dd.from_pandas(run, npartitions=npartitions)
    with warnings.catch_warnings(record=True) as got_warnings:
        warnings.simplefilter("always")
        got = pdask.evaluate(lazy, measures, qrels=qrels).compute()
    pd.testing.assert_frame_equal(got, expected)
    assert [str(w.message) for w in got_warnings] == [str(w.message) for w in expected_warnings]
    pd.testing.assert_frame_equal(lazy.ireval.evaluate(measures, qrels=qrels).compute(), expected)
    rows = pdask.evaluate(lazy, measures, qrels=qrels, missing="drop", finalize=False).compute()
    assert list(rows.columns[:2]) == ["system", "seed"]
    dropped = pdireval.evaluate(run, measures, qrels=qrels, missing="drop")
    key = ["system", "seed", "query", "measure"]
    pd.testing.assert_frame_equal(
        rows.sort_values(key, ignore_index=True), dropped.sort_values(key, ignore_index=True)
    )


def test_seed_columns_by_any_name_and_their_errors():
    run, qrels = _seeded()
    expected = pdireval.evaluate(run, "AP", qrels=qrels)
    trial = dd.from_pandas(run.rename(columns={"seed": "trial"}), npartitions=2)
    got = pdask.evaluate(trial, "AP", qrels=qrels).compute()
    pd.testing.assert_frame_equal(got, expected)
    rep = dd.from_pandas(run.rename(columns={"seed": "rep", "query": "qid"}), npartitions=2)
    got = pdask.evaluate(rep, "AP", qrels=qrels, columns={"seed": "rep", "query": "qid"}).compute()
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(SchemaError, match="maps 'seed' to 'nope'"):
        lazy = dd.from_pandas(run, npartitions=2)
        pdask.evaluate(lazy, "AP", qrels=qrels, columns={"seed": "nope"})
    holes = run.assign(seed=run["seed"].astype(float).where(run.index != 5))
    lazy = pdask.evaluate(dd.from_pandas(holes, npartitions=2), "AP", qrels=qrels)
    with pytest.raises(SchemaError, match="the seed of each ranking"):
        lazy.compute()
