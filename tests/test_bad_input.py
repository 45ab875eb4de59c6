"""Bad-input battery: every user mistake raises a pdireval error (or
TypeError for a wrong argument type) whose message names the column, option or line and
says how to fix it; offending rows are attached as ``failure_cases``. None leaks a bare
KeyError / IndexError / numpy error, and the caller's frames are never modified."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MeasureError, OptionError, PdirevalError, PdirevalWarning, SchemaError
from tests.helpers import quietly

RUN = pd.DataFrame(
    {
        "system": ["a", "a", "a", "b", "b"],
        "query": ["1", "1", "1", "1", "2"],
        "doc": ["d1", "d2", "d3", "d1", "d4"],
        "score": [3.0, 2.0, 1.0, 5.0, 1.0],
    }
)
QRELS = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["d1", "d3", "d4"], "label": [1, 2, 0]})


def run_(**changes):
    return RUN.assign(**changes)


def expect(error, call, *fragments, rows=None):
    """``call()`` raises ``error`` whose message holds every fragment; the inputs stay intact."""
    run_before, qrels_before = RUN.copy(), QRELS.copy()
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    if rows is not None:
        assert info.value.failure_cases is not None, message
        assert len(info.value.failure_cases) == rows, info.value.failure_cases
    pd.testing.assert_frame_equal(RUN, run_before)
    pd.testing.assert_frame_equal(QRELS, qrels_before)
    return info.value


def ev(run=RUN, measures="AP", **kw):
    kw.setdefault("qrels", QRELS)
    return pdireval.evaluate(run, measures, **kw)


# --------------------------------------------------------------------------- columns


@pytest.mark.parametrize("column", ["query", "doc"])
def test_run_missing_column(column):
    expect(SchemaError, lambda: ev(RUN.drop(columns=column)), f"no column '{column}'", "columns=")


def test_run_without_system_column_is_one_run():
    # RUN holds two systems: without its system column, (query, doc) keys repeat
    expect(SchemaError, lambda: ev(RUN.drop(columns="system")), "sharing a (system, query, doc) key", "no system column", "'run'")


def test_run_without_score_or_rank():
    expect(SchemaError, lambda: ev(RUN.drop(columns="score")), "'score' or a 'rank'")


@pytest.mark.parametrize("column", ["query", "doc", "label"])
def test_qrels_missing_column(column):
    expect(SchemaError, lambda: ev(qrels=QRELS.drop(columns=column)), f"qrels frame has no column '{column}'")


def test_duplicate_column_names():
    doubled = pd.concat([RUN, RUN[["doc"]]], axis=1)
    expect(SchemaError, lambda: ev(doubled), "more than one column named ['doc']")


# --------------------------------------------------------------------------- values


def test_non_numeric_score():
    err = expect(SchemaError, lambda: ev(run_(score=["high", 2, 1, 5, 1])), "column 'score' must be numeric", "'high'", rows=1)
    assert err.failure_cases["doc"].tolist() == ["d1"]


def test_non_numeric_labels():
    expect(SchemaError, lambda: ev(qrels=QRELS.assign(label=["rel", 1, 0])), "qrels column 'label' must be numeric", "'rel'", rows=1)


def test_non_numeric_rank():
    # ranks are only read when documents are ordered by rank
    bad = run_(rank=["1", "x", "3", "1", "1"])
    expect(SchemaError, lambda: ev(bad, order="rank"), "column 'rank' must be numeric", rows=1)
    pd.testing.assert_frame_equal(ev(bad, missing="drop"), ev(missing="drop"))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_infinite_score(bad):
    expect(SchemaError, lambda: ev(run_(score=[3.0, bad, 1.0, 5.0, 1.0])), "'score' has 1 NaN or infinite", rows=1)


def test_nullable_missing_score():
    score = pd.array([3, None, 1, 5, 1], dtype="Int64")
    expect(SchemaError, lambda: ev(run_(score=score)), "'score' has 1 NaN", rows=1)


@pytest.mark.parametrize("ranks", [[1, np.nan, 3, 1, 1], [1, 2.5, 3, 1, 1], [1, -2, 3, 1, 1], [1, 2, 1e30, 1, 1]])
def test_bad_rank(ranks):
    run = RUN.drop(columns="score").assign(rank=ranks)
    expect(SchemaError, lambda: ev(run), "'rank' must hold whole numbers >= 0", rows=1)


@pytest.mark.parametrize(
    "values",
    [
        [1j, 2, 3, 4, 5],
        pd.date_range("2020-01-01", periods=5),
        pd.to_timedelta([1, 2, 3, 4, 5], unit="s"),
    ],
)
def test_score_of_a_non_real_dtype(values):
    expect(SchemaError, lambda: ev(run_(score=values)), "'score'")


def test_infinite_label():
    expect(SchemaError, lambda: ev(qrels=QRELS.assign(label=[np.inf, 1, 0])), "'label' has 1 infinite", rows=1)


def test_label_beyond_1e100_is_refused_where_its_square_would_overflow():
    huge = QRELS.assign(label=[1.4e154, 1, 0])  # agreement's interval alpha squares labels
    expect(SchemaError, lambda: ev(qrels=huge), "beyond ±1e+100", rows=1)
    expect(SchemaError, lambda: pdireval.agreement(QRELS, huge), "beyond ±1e+100", rows=1)
    assert np.isfinite(ev(qrels=QRELS.assign(label=[1e100, 1, 0]))["value"]).all()


@pytest.mark.parametrize("column", ["system", "query", "doc"])
def test_missing_ids(column):
    values = RUN[column].tolist()
    values[2] = None
    err = expect(SchemaError, lambda: ev(run_(**{column: values})), f"'{column}' has 1 missing value", rows=1)
    assert err.failure_cases.index.tolist() == [2]


# --------------------------------------------------------------------------- keys


def test_duplicate_system_query_doc():
    run = run_(doc=["d1", "d1", "d3", "d1", "d4"])
    err = expect(SchemaError, lambda: ev(run), "2 rows sharing a (system, query, doc) key", "drop_duplicates", rows=2)
    assert err.failure_cases["score"].tolist() == [3.0, 2.0]


def test_duplicate_qrels_with_different_labels():
    qrels = pd.concat([QRELS, QRELS.iloc[[0]].assign(label=0)])
    err = expect(SchemaError, lambda: ev(qrels=qrels), "1 (query, doc) pair(s) more than one label", rows=2)
    assert sorted(err.failure_cases["label"].tolist()) == [0.0, 1.0]


def test_duplicate_qrels_with_equal_labels_are_merged():
    qrels = pd.concat([QRELS, QRELS.iloc[[0]]])
    pd.testing.assert_frame_equal(ev(qrels=qrels), ev())


# --------------------------------------------------------------------------- emptiness and overlap


def test_empty_run_and_qrels():
    expect(SchemaError, lambda: ev(RUN.iloc[:0]), "run frame is empty")
    expect(SchemaError, lambda: ev(qrels=QRELS.iloc[:0]), "qrels frame is empty")


def test_run_sharing_no_query_with_qrels():
    expect(SchemaError, lambda: ev(qrels=QRELS.assign(query="99")), "share nothing with the qrels", "compared as strings")


def test_no_judgments_at_all():
    expect(SchemaError, lambda: pdireval.evaluate(RUN, "AP"), "no judgments", "qrels=")
    expect(SchemaError, lambda: pdireval.evaluate(run_(label=np.nan), "AP"), "no judged (non-NaN) row")


def test_run_queries_without_judgments_dropped_with_one_warning():
    qrels = QRELS[QRELS["query"] == "1"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = ev(qrels=qrels)
    ours = [w for w in caught if issubclass(w.category, PdirevalWarning)]
    assert len(ours) == 1 and len(caught) == 1
    assert "1 run query has no judgments" in str(ours[0].message) and "'2'" in str(ours[0].message)
    assert set(scores["query"]) == {"1"}


# --------------------------------------------------------------------------- options and types


def test_columns_mapping_works():
    mine = RUN.rename(columns={"query": "qid", "doc": "docno", "system": "tag", "score": "sim"})
    theirs = QRELS.rename(columns={"query": "topic", "label": "rel"})
    scores = pdireval.evaluate(
        mine, ["AP", "P@2"], qrels=theirs,
        columns={"query": "qid", "doc": "docno", "system": "tag", "score": "sim"},
        qrels_columns={"query": "topic", "label": "rel"},
    )
    pd.testing.assert_frame_equal(scores, ev(measures=["AP", "P@2"]))
    assert list(mine.columns) == ["tag", "qid", "docno", "sim"]


def test_wrong_columns_mapping():
    expect(SchemaError, lambda: ev(columns={"query": "qid"}), "columns= maps to ['qid']", "does not have")
    expect(SchemaError, lambda: ev(RUN.rename(columns={"query": "qid"}), columns={"qury": "qid"}), "key(s) ['qury']", "'query'")
    expect(TypeError, lambda: ev(columns="qid"), "columns= must be a mapping")
    # an explicit columns= wins: the frame's own 'query' column is then ignored
    both = RUN.assign(qid=RUN["query"], query="text of the query")
    pd.testing.assert_frame_equal(ev(both, columns={"query": "qid"}, missing="drop"), ev(missing="drop"))


@pytest.mark.parametrize(("option", "value"), [("missing", "zeros"), ("missing", None), ("order", "scores"), ("order", ["rank"])])
def test_bad_options(option, value):
    err = expect(OptionError, lambda: ev(**{option: value}), f"{option}= must be one of", repr(value))
    assert isinstance(err, ValueError) and isinstance(err, PdirevalError)


def test_order_rank_without_rank_column():
    expect(SchemaError, lambda: ev(order="rank"), "order='rank' needs a 'rank' column")


@pytest.mark.parametrize("bad", [None, [1, 2], {"query": ["1"]}, pd.Series([1.0]), np.zeros((2, 4))])
def test_non_dataframe_inputs(bad):
    expect(TypeError, lambda: ev(bad), "the run must be a pandas DataFrame")
    if bad is not None:
        expect(TypeError, lambda: ev(qrels=bad), "the qrels must be a pandas DataFrame")


def test_unknown_measure_and_wrong_measure_types():
    err = expect(MeasureError, lambda: ev(measures="nDGC@10"), "unknown measure 'nDGC'", "Did you mean 'nDCG@10'")
    assert isinstance(err, ValueError)
    expect(MeasureError, lambda: ev(measures=[]), "no measure given")
    expect(TypeError, lambda: ev(measures=5), "measure")


# --------------------------------------------------------------------------- judgments from the run


def test_judgments_from_the_runs_label_column():
    labelled = RUN.merge(QRELS, on=["query", "doc"], how="left")
    scores = pdireval.evaluate(labelled, ["P@2", "NumRel"])
    # NumRel counts only the judged documents the run itself holds (d1, d3 for query 1; d4 is 0)
    numrel = scores[scores["measure"] == "NumRel"].set_index(["system", "query"])["value"]
    assert numrel.to_dict() == {("a", "1"): 2.0, ("a", "2"): 0.0, ("b", "1"): 2.0, ("b", "2"): 0.0}
    # the same as passing those judgments explicitly
    explicit = pdireval.evaluate(RUN, ["P@2", "NumRel"], qrels=QRELS)
    pd.testing.assert_frame_equal(scores, explicit)


def test_conflicting_labels_in_the_run():
    labelled = run_(label=[1, 0, 2, 0, 0])  # d1 of query 1: label 1 for system a, 0 for b
    err = expect(SchemaError, lambda: pdireval.evaluate(labelled, "AP"), "run's labels give 1 (query, doc) pair(s) more than one label", rows=2)
    assert set(err.failure_cases["doc"]) == {"d1"}


def test_non_numeric_label_in_the_run():
    expect(SchemaError, lambda: pdireval.evaluate(run_(label=["x", 0, 1, 0, 0]), "AP"), "run column 'label' must be numeric", rows=1)


# --------------------------------------------------------------------------- readers


def test_reader_errors_are_schema_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.0\n")
    expect(SchemaError, lambda: pdireval.read_run(bad), "bad.txt, line 1", "too few fields")
    expect(SchemaError, lambda: pdireval.read_qrels(bad), "bad.txt, line 1", "too many fields")
    expect(SchemaError, lambda: pdireval.read_svmlight(bad), "bad.txt", "no 'qid:' field", "query_file=")


# --------------------------------------------------------------------------- scores frames

SCORES = pd.DataFrame({"system": ["a", "a", "b", "b"], "query": ["1", "2", "1", "2"], "measure": "AP", "value": [0.1, 0.2, 0.3, 0.4]})


def test_scores_frame_problems():
    before = SCORES.copy()
    with pytest.raises(SchemaError, match=r"no column 'value'.*df\.rename") as info:
        pdireval.aggregate(SCORES.drop(columns="value"))
    assert "Pass columns=" not in str(info.value)  # aggregate has no columns= to point at
    with pytest.raises(SchemaError, match="'value' must be numeric") as info:
        pdireval.aggregate(SCORES.assign(value=["x", 1, 2, 3]))
    assert len(info.value.failure_cases) == 1
    with pytest.raises(SchemaError, match="'value' has 1 infinite") as info:
        pdireval.aggregate(SCORES.assign(value=[np.inf, 1, 2, 3]))
    assert info.value.failure_cases["system"].tolist() == ["a"]
    with pytest.raises(SchemaError, match=r"2 rows sharing a \(system, query, measure\) key"):
        pdireval.aggregate(pd.concat([SCORES, SCORES.iloc[[0]]]))
    with pytest.raises(SchemaError, match="scores frame is empty"):
        pdireval.aggregate(SCORES.iloc[:0])
    with pytest.raises(TypeError, match="scores must be a pandas DataFrame"):
        pdireval.aggregate(SCORES.to_dict())
    pd.testing.assert_frame_equal(SCORES, before)
    # NaN marks an undefined value and is allowed
    assert pdireval.aggregate(SCORES.assign(value=[np.nan, 0.2, 0.3, 0.4]))["n_queries"].tolist() == [1, 2]


# --------------------------------------------------------------------------- silent wrong results (issue 13)

SCORES3 = pd.DataFrame({
    "system": np.repeat(["a", "b", "c"], 3), "query": ["1", "2", "3"] * 3, "measure": "AP",
    "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.1, 0.9],
})


@pytest.mark.parametrize("how", ["csv", "reset_index", "float"])
@pytest.mark.parametrize("function", ["aggregate", "compare", "correlate", "reliability"])
def test_row_id_columns_are_not_grouping_keys(tmp_path, how, function):
    scores = pd.concat([SCORES3, SCORES3.assign(measure="P@10")], ignore_index=True)
    if how == "csv":
        scores.to_csv(tmp_path / "s.csv")
        odd = pd.read_csv(tmp_path / "s.csv", dtype={"query": str})
        name = "Unnamed: 0"
    elif how == "reset_index":
        odd, name = scores.reset_index(), "index"
    else:
        odd, name = scores.assign(noise=np.linspace(0.0, 1.0, len(scores))), "noise"
    before = odd.copy()
    with pytest.raises(SchemaError, match="look like row ids") as info:
        getattr(pdireval, function)(odd)
    assert repr(name) in str(info.value) and "drop(columns=" in str(info.value)
    pd.testing.assert_frame_equal(odd, before)


def test_a_real_grouping_key_is_kept():
    two = pd.concat([SCORES3.assign(fold=1), SCORES3.assign(fold=2, value=SCORES3["value"] / 2)], ignore_index=True)
    out = pdireval.aggregate(two)
    assert out["fold"].tolist() == [1, 2, 1, 2, 1, 2] or sorted(out["fold"].tolist()) == [1, 1, 1, 2, 2, 2]
    assert len(out) == 6


def test_doc_ids_that_never_match_the_qrels_warn():
    big = pd.DataFrame({"system": "a", "query": np.repeat(["1", "2", "3"], 10),
                        "doc": [f"d{i}" for i in range(30)], "score": np.arange(30.0)})
    qrels3 = pd.DataFrame({"query": ["1", "2", "3"], "doc": ["d0", "d10", "d20"], "label": 1})
    with pytest.warns(PdirevalWarning, match="none of the run's retrieved documents is in the qrels") as rec:
        out = pdireval.evaluate(big.assign(doc=big["doc"].str.upper()), "AP", qrels=qrels3)
    assert (out["value"] == 0).all()
    assert len(rec) == 1  # the whole-run warning only, not also one about each list
    assert "'D0'" in str(rec[0].message) and "'d0'" in str(rec[0].message)
    # queries without a judged document are normal (shallow pools), and so is a tiny run: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.evaluate(big.assign(doc=big["doc"].where(big["query"] == "1", "x" + big["doc"])), "AP", qrels=qrels3)
        ev(run_(doc=RUN["doc"].str.upper()), missing="drop")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev(missing="drop")  # every query has a judged document: no warning


@pytest.mark.parametrize(
    "function",
    ["correlate", "swap_rate_other", "percentage_absolute_difference", "compare", "reliability"],
)
def test_incomplete_matrices_are_refused_alike(function):
    full = pd.concat([SCORES3, SCORES3.assign(measure="P@10")], ignore_index=True)
    holey = full.iloc[1:].reset_index(drop=True)  # system a lacks query 1 under AP
    call = {
        "correlate": lambda: pdireval.correlate(holey),
        "swap_rate_other": lambda: pdireval.swap_rate(full, other=holey),
        "percentage_absolute_difference": lambda: pdireval.percentage_absolute_difference(holey),
        "compare": lambda: pdireval.compare(holey),
        "reliability": lambda: pdireval.reliability(holey),
    }[function]
    with pytest.raises(SchemaError, match="complete system x query matrix") as info:
        call()
    assert "missing='zero'" in str(info.value)
    # NaN values (undefined per-query values) stay allowed where the function skips them
    if function in ("correlate", "percentage_absolute_difference"):
        call_nan = getattr(pdireval, function)
        assert len(call_nan(full.assign(value=full["value"].where(full.index != 0)))) >= 1


# --------------------------------------------------------------------------- run files (issue 13)


def test_run_file_trailing_tab_does_not_make_a_second_system(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1\tQ0\td1\t1\t2.0\ttag\t\n1\tQ0\td2\t2\t1.0\ttag\n")
    assert pdireval.read_run(path)["system"].unique().tolist() == ["tag"]


def test_empty_path_is_refused_not_the_current_folder():
    for reader in (pdireval.read_run, pdireval.read_qrels, pdireval.read_svmlight):
        with pytest.raises(SchemaError, match="path is empty"):
            reader("")


def test_non_utf8_bytes_name_file_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("1 Q0 d1 1 2.0 tag\n1 Q0 caf\xe9 2 1.0 tag\n1 Q0 cafe 3 0.5 tag\n".encode("latin-1"))
    with pytest.raises(SchemaError, match=r"latin1.txt, line 2: the run file is not UTF-8 text \(byte 0xe9"):
        pdireval.read_run(path)
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"1 0 d\xff 1\n")
    with pytest.raises(SchemaError, match="line 1: the qrels file is not UTF-8"):
        pdireval.read_qrels(qrels)


def test_corrupt_gzip_is_a_schema_error_also_in_the_cli(tmp_path, capsys):
    import gzip

    from pdireval.cli import main

    good = gzip.compress(b"1 Q0 d1 1 2.0 tag\n" * 2000)
    path = tmp_path / "run.gz"
    path.write_bytes(good[: len(good) // 2])  # truncated
    with pytest.raises(SchemaError, match="run.gz: corrupt or truncated gzip archive"):
        pdireval.read_run(path)
    path.write_bytes(good[:20] + b"\x00" * 40 + good[60:])  # corrupt deflate stream
    with pytest.raises(SchemaError, match="corrupt or truncated gzip archive"):
        pdireval.read_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    try:
        code = main(["evaluate", "--qrels", str(qrels), str(path)])
    except SystemExit as exc:
        code = exc.code
    assert code not in (0, None)
    assert "corrupt or truncated gzip archive" in capsys.readouterr().err


def test_gzip_size_guard(tmp_path, monkeypatch):
    import gzip

    import pdireval.io.files as pio

    path = tmp_path / "bomb.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d1 1 2.0 tag\n" * 10000))
    monkeypatch.setattr(pio, "MAX_DECOMPRESSED_BYTES", 50_000)
    monkeypatch.setattr(pio, "_CHECK_CHUNK", 4096)
    with pytest.raises(SchemaError, match="decompresses to more than 50000 bytes"):
        pdireval.read_run(path)


# --------------------------------------------------------------------------- files and ids (issue 13, h13a)


def _lists_run(n_queries=6, depth=12):
    """One system, ``n_queries`` lists of ``depth`` docs; the qrels judge each query's first doc."""
    query = np.repeat([str(q) for q in range(1, n_queries + 1)], depth)
    doc = [f"FBIS3-{q}{i:02d}" for q in range(1, n_queries + 1) for i in range(depth)]
    run = pd.DataFrame({"system": "a", "query": query, "doc": doc, "score": np.tile(np.arange(depth, 0, -1.0), n_queries)})
    qrels = run.groupby("query", sort=False).head(1)[["query", "doc"]].assign(label=1).reset_index(drop=True)
    return run, qrels


def test_doc_ids_misspelled_in_some_lists_warn_once():
    run, qrels = _lists_run()
    lower = run["query"].isin(["2", "4", "5", "6"])
    odd = run.assign(doc=run["doc"].where(~lower, run["doc"].str.lower()))
    before = odd.copy()
    with pytest.warns(PdirevalWarning) as rec:
        out = pdireval.evaluate(odd, "AP", qrels=qrels)
    pd.testing.assert_frame_equal(odd, before)
    assert len(rec) == 1
    message = str(rec[0].message)
    assert message.startswith("4 ranked lists of at least 10 documents retrieve no judged document")
    # the first three lists in query order, each with both spellings; then how many more
    assert "system 'a', query '2': 'fbis3-200' in the run, 'FBIS3-200' in the qrels" in message
    assert "query '4'" in message and "query '5'" in message and "query '6'" not in message
    assert "1 more" in message and "same case" in message
    assert out.loc[out["query"].isin(["2", "4", "5", "6"]), "value"].eq(0).all()
    assert out.loc[out["query"].isin(["1", "3"]), "value"].eq(1).all()
    # whitespace and Unicode forms (full-width letters) are near misses too
    spaced = run.assign(doc=run["doc"].where(run["query"] != "3", run["doc"] + " "))
    with pytest.warns(PdirevalWarning, match=r"^1 ranked list .*'FBIS3-300 ' in the run, 'FBIS3-300' in the qrels"):
        pdireval.evaluate(spaced, "AP", qrels=qrels)
    wide = run.assign(doc=run["doc"].where(run["query"] != "3", run["doc"].str.replace("F", "\uff26")))
    with pytest.warns(PdirevalWarning, match="^1 ranked list "):
        pdireval.evaluate(wide, "AP", qrels=qrels)


def test_lists_without_a_judged_document_but_no_near_miss_stay_quiet():
    run, qrels = _lists_run()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # unpooled documents (no spelling of a judged one): normal with shallow pools
        pdireval.evaluate(run.assign(doc=run["doc"].where(run["query"] == "1", "X" + run["doc"])), "AP", qrels=qrels)
        # a near miss in a list of fewer than 10 documents is too little evidence
        short = run.groupby("query").head(9)
        pdireval.evaluate(short.assign(doc=short["doc"].where(short["query"] == "1", short["doc"].str.lower())), "AP", qrels=qrels)
        # a list with one exactly judged document besides near misses is not reported
        mixed = run.assign(doc=run["doc"].where(run.groupby("query").cumcount() == 0, run["doc"].str.lower()))
        pdireval.evaluate(mixed, "AP", qrels=qrels)


@pytest.mark.parametrize("reader", ["pandas", "dask"])
def test_filename_stems_that_collide_keep_their_whole_name(tmp_path, reader):
    (tmp_path / "bm25.txt").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (tmp_path / "bm25.run").write_text("1 Q0 d1 1 3.0 b\n1 Q0 d3 2 1.0 b\n")
    (tmp_path / "lm.txt.gz").write_bytes(__import__("gzip").compress(b"1 Q0 d2 1 2.0 c\n"))
    if reader == "pandas":
        run = pdireval.read_run(tmp_path, system="filename")
    else:
        pdask = pytest.importorskip("pdireval.dask")
        run = pdask.read_run(tmp_path, system="filename").compute(scheduler="sync")
    assert sorted(run["system"].unique()) == ["bm25.run", "bm25.txt", "lm"]
    assert run.groupby("system")["doc"].apply(list).to_dict() == {"bm25.run": ["d1", "d3"], "bm25.txt": ["d1", "d2"], "lm": ["d2"]}


def test_same_file_name_in_two_folders_is_refused_for_filename_systems(tmp_path):
    pdask = pytest.importorskip("pdireval.dask")
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bm25.txt").write_text("1 Q0 d1 1 2.0 a\n")
    with pytest.raises(SchemaError, match="same system name 'bm25.txt'.*Rename one"):
        pdask.read_run([tmp_path / "x" / "bm25.txt", tmp_path / "y" / "bm25.txt"], system="filename")


@pytest.mark.parametrize("char", ["\u00a0", "\u3000", "\u2009", "\ufeff"])
@pytest.mark.parametrize("where", ["separator", "inside", "trailing"])
def test_unicode_spaces_in_trec_lines_name_file_and_line(tmp_path, char, where):
    second = {"separator": f"1{char}Q0 d2 2 1.0 tag", "inside": f"1 Q0 d{char}2 2 1.0 tag", "trailing": f"1 Q0 d2 2 1.0 tag{char}"}[where]
    path = tmp_path / "run.txt"
    path.write_text(f"# a comment\u00a0with a no-break space is fine\n1 Q0 d1 1 2.0 tag\n{second}\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=rf"run.txt, line 3: the run line holds the character .* \(U\+{ord(char):04X}\)"):
        pdireval.read_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"1 0 d1 1\n1 0 d2{char}1\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="qrels.txt, line 2: the qrels line holds the character"):
        pdireval.read_qrels(qrels)
    # SVMlight comments are free text: not checked there
    svm = tmp_path / "train.txt"
    svm.write_text(f"1 qid:1 1:0.5 # title{char}words\n0 qid:1 1:0.2\n", encoding="utf-8")
    assert len(pdireval.read_svmlight(svm)) == 2


def test_byte_order_mark_and_inner_tabs_read_as_trec_eval(tmp_path):
    bom = tmp_path / "bom.txt"
    bom.write_text("\ufeff1 Q0 d1 1 2.0 tag\n1 Q0 d2 2 1.0 tag\n", encoding="utf-8")
    assert pdireval.read_run(bom)["query"].tolist() == ["1", "1"]  # not '\ufeff1'
    bom.write_text("\ufeff1 0 d1 1\n1 0 d2 x\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="bom.txt, line 2: malformed qrels line"):
        pdireval.read_qrels(bom)
    tabs = tmp_path / "tabs.txt"  # an empty field between two tabs: trec_eval splits on any whitespace
    tabs.write_text("1\tQ0\td1\t\t1\t2.0\ttag\n1\tQ0\td2\t2\t1.0\ttag\t\n")
    run = pdireval.read_run(tabs)
    assert run[["system", "query", "doc", "rank"]].values.tolist() == [["tag", "1", "d1", 1], ["tag", "1", "d2", 2]]


def test_space_inside_an_id_of_a_tab_separated_file(tmp_path):
    path = tmp_path / "run.tsv"
    path.write_text("1\tQ0\td0\t1\t3.0\ttag\n1\tQ0\td1\t1\t2.0\ttag\n\n1\tQ0\td 2\t2\t1.0\ttag\n")
    with pytest.raises(SchemaError, match=r"run.tsv, line 4: the doc field 'd 2' of this tab-separated run file contains whitespace"):
        pdireval.read_run(path)
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("1\t0\td1\t1\n1 2\t0\td2\t1\n")
    with pytest.raises(SchemaError, match=r"qrels.tsv, line 2: the query field '1 2'"):
        pdireval.read_qrels(qrels)
    # also in a file with comment lines (read line by line)
    path.write_text("# tab-separated\n1\tQ0\td1\t1\t2.0\ttag\n\n1\tQ0\td 2\t2\t1.0\ttag\n")
    with pytest.raises(SchemaError, match=r"run.tsv, line 4: the doc field 'd 2' of this tab-separated run line"):
        pdireval.read_run(path)
    # words after the run tag are still ignored, as by trec_eval; so are mixed separators
    path.write_text("1\tQ0\td1\t1\t2.0\ttag extra words\n")
    assert pdireval.read_run(path)["system"].tolist() == ["tag"]
    path.write_text("# mixed\n1 Q0\td1\t1\t2.0\ttag\n1 Q0 d2 2 1.0 tag\n")
    assert pdireval.read_run(path)["doc"].tolist() == ["d1", "d2"]


@pytest.mark.parametrize("line, problem", [
    ("1 Q0 d2 1_000 1.0 tag", "the rank field '1_000' is not a number"),
    ("1 Q0 d2 2 1_0.5 tag", "the score field '1_0.5' is not a number"),
    ("1 Q0 d2 1e300 1.0 tag", "the rank field '1e300' is too large"),
    ("1 Q0 d2 1e19 1.0 tag", "the rank field '1e19' is too large"),
    ("1 Q0 d2 2 \u0661 tag", "the score field '\u0661' is not a number"),
])
def test_numbers_the_readers_refuse_name_file_and_line(tmp_path, line, problem):
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 d1 1 2.0 tag\n{line}\n1 Q0 d3 3 0.5 tag\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning from an overflowing cast
        with pytest.raises(SchemaError, match=rf"run.txt, line 2: malformed run line: {problem}"):
            pdireval.read_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 1_0\n")
    with pytest.raises(SchemaError, match="qrels.txt, line 2: malformed qrels line: the label field '1_0' is not a number"):
        pdireval.read_qrels(qrels)


def test_whole_float_ids_beyond_2_63_stay_distinct():
    ids = [2.0**63, 2.0**63 + 4096, 2.0**64, 3.0]
    run = pd.DataFrame({"query": ids, "doc": "a", "score": 1.0})
    qrels = pd.DataFrame({"query": ids, "doc": "a", "label": [1, 0, 1, 1]})
    with pytest.warns(PdirevalWarning, match=r"whole numbers beyond 2\*\*53 as floats .*dtype=\{'query': str\}"):
        out = pdireval.evaluate(run, "AP", qrels=qrels)
    assert dict(zip(out["query"], out["value"])) == {
        "3": 1.0, "9223372036854775808": 1.0, "9223372036854779904": 0.0, "18446744073709551616": 1.0}
    scores = pd.DataFrame({"system": np.repeat(["x", "y"], 2), "query": [2.0**63, 2.0**64] * 2, "measure": "AP", "value": [0.1, 0.2, 0.3, 0.4]})
    with pytest.warns(PdirevalWarning, match="beyond 2"):
        assert pdireval.aggregate(scores)["n_queries"].tolist() == [2, 2]
    with warnings.catch_warnings():  # ordinary float ids: no warning, "1.0" -> "1"
        warnings.simplefilter("error")
        assert ev(run_(query=[1.0, 1.0, 1.0, 1.0, 2.0]), missing="drop")["query"].tolist() == ["1", "1", "2"]


def test_a_folder_where_a_file_is_expected(tmp_path, capsys):
    from pdireval.cli import main

    folder = tmp_path / "qrels"
    folder.mkdir()
    (folder / "qrels.txt").write_text("1 0 d1 1\n")
    for call, kind in [
        (lambda: pdireval.read_qrels(folder), "qrels"),
        (lambda: ev(qrels=folder), "qrels"),
        (lambda: pdireval.read_svmlight(folder), "SVMlight"),
        (lambda: pdireval.read_qrels(tmp_path / "qrels"), "qrels"),
    ]:
        expect(SchemaError, call, "this is a folder (it holds 'qrels.txt')", f"where a {kind} file is expected", "qrels.txt'")
    (tmp_path / "q.parquet").mkdir()
    expect(SchemaError, lambda: pdireval.read_qrels(tmp_path / "q.parquet"), "this is a folder (it is empty)")
    svm = tmp_path / "s.txt"
    svm.write_text("1 1:0.5\n0 1:0.2\n")
    expect(SchemaError, lambda: pdireval.read_svmlight(svm, query_file=folder), "where a group (query_file=) file is expected")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 2.0 tag\n")
    assert main(["evaluate", "--qrels", str(folder), str(run)]) == 1
    assert "this is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("writer", ["write_run", "write_qrels", "write_scores"])
@pytest.mark.parametrize("suffix", ["", ".parquet"])
def test_writing_to_a_folder_path_is_an_option_error(tmp_path, writer, suffix):
    frame = {"write_run": RUN, "write_qrels": QRELS}.get(writer)
    if frame is None:  # write_scores: a file in a missing folder was a FileNotFoundError
        frame = pdireval.evaluate(RUN, "AP", qrels=QRELS)
    write = getattr(pdireval, writer)
    folder = tmp_path / f"out{suffix}"
    folder.mkdir()
    expect(OptionError, lambda: write(frame, folder), "this is a folder", "needs the path of a")
    expect(OptionError, lambda: write(frame, ""), "path is empty")
    expect(OptionError, lambda: write(frame, tmp_path / "missing" / f"f{suffix or '.txt'}"), "the folder", "does not exist")
    (tmp_path / "afile").write_text("x")
    expect(OptionError, lambda: write(frame, tmp_path / "afile" / f"f{suffix or '.txt'}"), "is a file, not a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", folder.name]  # nothing written


def test_duplicate_advice_never_merges_two_runs(tmp_path):
    # two rankings under one system name: the advice is to name them apart, not drop_duplicates
    two = pd.concat([RUN, RUN.assign(score=RUN["score"] * 2)], ignore_index=True)
    err = expect(SchemaError, lambda: ev(two), "5 of the repeated documents have different score values",
                 "two rankings under one system name", "own system name", "would splice")
    assert "drop them" not in str(err)
    copies = pd.concat([RUN, RUN.iloc[[0]]], ignore_index=True)  # exact copies: dropping them is safe
    expect(SchemaError, lambda: ev(copies), "exact copies", "drop them (e.g. df.drop_duplicates")
    # files sharing a run tag: read them by file name, where colliding stems stay apart
    (tmp_path / "x.txt").write_text("1 Q0 d1 1 2.0 tag\n")
    (tmp_path / "x.run").write_text("1 Q0 d1 1 5.0 tag\n")
    expect(SchemaError, lambda: pdireval.read_run(tmp_path), "Several files share the run tag", "system='filename'")
    assert sorted(pdireval.read_run(tmp_path, system="filename")["system"]) == ["x.run", "x.txt"]


def test_a_ranked_list_spread_over_files_sharing_a_tag_warns(tmp_path):
    # two different runs sharing a tag whose documents never repeat: no duplicate to stop them
    (tmp_path / "bm25.txt").write_text("1 Q0 d1 1 2.0 Anserini\n1 Q0 d2 2 1.0 Anserini\n2 Q0 d5 1 1.0 Anserini\n")
    (tmp_path / "rm3.txt").write_text("1 Q0 d3 1 2.0 Anserini\n1 Q0 d4 2 1.0 Anserini\n")
    with pytest.warns(PdirevalWarning, match=r"1 ranked list\(s\) take lines from more than one file, e.g. query '1' of run tag 'Anserini' \(in bm25.txt, rm3.txt\).*system='filename'"):
        assert len(pdireval.read_run(tmp_path)) == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(pdireval.read_run(tmp_path, system="filename")["system"].unique()) == ["bm25", "rm3"]
        (tmp_path / "rm3.txt").write_text("3 Q0 d3 1 2.0 Anserini\n")  # one run split by query: quiet
        assert pdireval.read_run(tmp_path)["system"].unique().tolist() == ["Anserini"]


def test_rng_true_and_fraction_levels():
    with pytest.raises(TypeError, match="not a bool"):
        pdireval.compare(SCORES3, rng=True)
    with pytest.warns(PdirevalWarning, match="look like fractions and are read as that many percent"):
        pdireval.subsample_qrels(QRELS, levels=(0.1, 0.5, 1), n_resamples=1, rng=0)


# --------------------------------------------------------------------------- raw tracebacks (issue 13)


def test_asl_curve_on_one_system_is_an_empty_table():
    out = pdireval.asl_curve(SCORES3[SCORES3["system"] == "a"], n_resamples=10, rng=0)
    assert len(out) == 0
    assert list(out.columns) == ["measure", "method", "rank", "system_a", "system_b", "p_value"]


def test_report_on_one_system_skips_what_needs_two(tmp_path):
    # a pandas/numpy exception fails this test; the only warning allowed is ours (query 2 unanswered)
    with pytest.warns(PdirevalWarning, match="missing='zero'"):
        made = pdireval.report(RUN[RUN["system"] == "a"], qrels=QRELS, out=tmp_path / "r", n_resamples=10)
    assert made.html.is_file() and made.workbook.is_file()
    notes = " ".join(made.notes.values())
    assert "No significance test: the collection has one system" in notes
    assert "Skipped: 1 system; a rank correlation needs three or more." in notes
    # and the paper table of one system: its mean, no test
    table = pdireval.paper_table(SCORES3[SCORES3["system"] == "a"])
    assert table["mean"].iloc[0] == pytest.approx(0.2) and table["better_than"].iloc[0] == ""
    assert "no significance test" in table.attrs["caption"]
    assert len(pdireval.paper_table(SCORES3, systems=["b"])) == 1


def test_nullable_rank_with_a_missing_value():
    rank = pd.array([1, 2, pd.NA, 1, 1], dtype="Int64")
    expect(SchemaError, lambda: ev(run_(rank=rank), order="rank"), "'rank' must hold whole numbers", rows=1)
    # ordered by score, the broken rank column is not read
    assert len(ev(run_(rank=rank), missing="drop")) == 3
    # complete nullable ranks are fine
    assert len(ev(run_(rank=pd.array([1, 2, 3, 1, 1], dtype="Int64")), order="rank", missing="drop")) == 3


def test_wrong_typed_options_are_type_errors():
    with pytest.raises(TypeError, match="confidence_level= must be a number"):
        pdireval.compare(SCORES3, confidence_level="0.95")
    with pytest.raises(TypeError, match="n_resamples= must be an integer"):
        pdireval.compare(SCORES3, method="bootstrap", n_resamples="1000")


# --------------------------------------------------------------------------- resource guards (issue 13)


def test_resource_ceilings_are_checked_before_allocating(tmp_path):
    from pdireval.meta.significance import MAX_RESAMPLES
    from pdireval.runs.optimize import MAX_K

    with pytest.raises(OptionError, match=f"n_resamples= must be >= 1 and <= {MAX_RESAMPLES}; got 1000000000"):
        pdireval.compare(SCORES3, method="bootstrap", n_resamples=10**9)
    with pytest.raises(OptionError, match=f"k= is at most {MAX_K}.*got 1000000"):
        pdireval.optimize(RUN, qrels=QRELS, k=10**6)
    svm = tmp_path / "wide.txt"
    svm.write_text("1 qid:1 1:0.5 999999999:1\n0 qid:1 1:0.2\n")
    with pytest.raises(SchemaError, match=r"wide.txt, line 1: feature id 999999999 would make a dense matrix of 2 rows x 999999999"):
        pdireval.read_svmlight(svm)
    with pytest.raises(MeasureError, match="largest label is 1e\\+10"):
        ev(qrels=QRELS.assign(label=[1, 1e10, 0]), measures="GAP")


def test_float32_comparison_that_merges_distinct_scores_warns():
    """pdireval compares scores at float32 precision (trec_eval 9); when that makes distinct
    doubles tie and so changes a returned value, one short PdirevalWarning counts the changed
    values, shows one and names the option that compares doubles."""
    # query 1 of system a: d1 (relevant) above d2 as doubles; at float32 both are inf, tie,
    # and doc id descending puts d2 first (trec_eval 9.0.8): AP (1/2 + 2/3) / 2 instead of (1 + 2/3) / 2
    for high, low in [(2e40, 1e40), (2e-50, 1e-50), (0.1000000002, 0.1000000001)]:
        run = run_(score=[high, low, -1.0, 5.0, 1.0])
        for frame in (run, run.iloc[::-1]):  # the ordered path and the sorting path
            with pytest.warns(PdirevalWarning, match="equal at float32 precision") as record:
                out = ev(frame, ["AP", "P@10"], missing="drop")
            ours = [w for w in record if issubclass(w.category, PdirevalWarning)]
            message = str(ours[0].message)
            assert len(ours) == 1 and message.startswith("1 of 6 values (AP: 1) differ between trec_eval 9.0.8 and 10.0")
            assert "system 'a', query '1': AP 0.583333 (0.833333 as doubles)" in message
            assert "score_precision='float64' gives 10.0's" in message and len(message) < 500
            assert out["value"].iloc[0] == pytest.approx((1 / 2 + 2 / 3) / 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exact = ev(run, missing="drop", score_precision="float64")
            # the same tie changes no P@10 (the order inside the top 10 does not count)
            ev(run, "P@10", missing="drop")
        assert exact["value"].iloc[0] == pytest.approx((1 + 2 / 3) / 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev(run_(score=[1e40, 2.0, 1.0, 5.0, 1.0]), missing="drop")  # out of range but ties nothing
        # distinct doubles tied only among unjudged documents change no measure: no warning
        unjudged = RUN.iloc[[0, 1, 2]].assign(doc=["d1", "x1", "x2"], score=[3.0, 0.1000000002, 0.1000000001])
        ev(unjudged, missing="drop")
        # two relevant documents (labels 1 and 2) tied with each other: their order changes
        # no binary measure (nDCG, which reads the grades, would change)
        both = RUN.iloc[[0, 2]].assign(score=[0.1000000002, 0.1000000001])
        ev(both, ["AP", "RR", "P@10"], missing="drop")


# =========================================================================== issue 13, part b:
# API options, measure parameters, frames, report validation, warnings (keep this block together)


@pytest.mark.parametrize(
    "text",
    ["nDCG(gain=exp,gain=linear)", "RBP(p=0.5,P=0.9)", "nDCG(gain=exp,gains={0:0,1:1})", "nDCG(dcg=log2,gain=exp)"],
)
def test_repeated_measure_parameters_are_an_error(text):
    with pytest.raises(MeasureError, match="twice") as info:
        pdireval.parse_measure(text)
    assert "once" in str(info.value)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AP(lb=mc,mc_samples=1e400)", "mc_samples"),
        ("AP(lb=mc,mc_samples=10000000)", "mc_samples"),  # over the ceiling (10^6), before drawing
        ("GAP(probs=['a'])", "probs"),
        ("RBP(p=1e400)", "p"),
        ("nDCG(gain={0:0,1:1e400})", "gain"),
        ("nDCG(discount=[1,1e400])", "discount"),
        ("utility(a=nan)", "a"),
    ],
)
def test_measure_parameter_values_that_cannot_be_converted(text, name):
    with pytest.raises(MeasureError, match=f"parameter {name}=") as info:
        pdireval.parse_measure(text)
    assert "is invalid: expected" in str(info.value)


def test_huge_gains_or_labels_are_a_measure_error_never_inf_or_nan():
    huge = QRELS.assign(label=[1, 5000, 0])  # 2^5000 overflows float64
    with pytest.raises(MeasureError, match=r"nDCG\(gain=exp\) overflows float64") as info:
        ev(measures="nDCG(gain=exp)", qrels=huge, missing="drop")
    assert "largest label: 5000" in str(info.value) and "gain=" in str(info.value)
    with pytest.raises(MeasureError, match=r"F\(beta=1e\+300\) .*\(set: beta=\)"):
        ev(measures="F(beta=1e300)", missing="drop")  # a Python OverflowError inside the kernel
    with pytest.raises(MeasureError, match="too large for float64"):
        ev(measures="nDCG(gain={0:0,1:1.5e308,2:1.5e308})", missing="drop")  # IDCG = inf: nDCG would be a silent 0
    with pytest.raises(MeasureError, match=r"ERR\(max_grade=1e\+300\) overflows"):
        ev(measures="ERR(max_grade=1e300)", missing="drop")
    # large but representable labels are fine, with no RuntimeWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ev(measures=["nDCG(gain=exp)", "ERR"], qrels=QRELS.assign(label=[1, 50, 0]), missing="drop")
    assert np.isfinite(out["value"]).all()


def test_numpy_scalar_options_and_parameters_are_numbers():
    from pdireval.measures.registry import build_measure

    assert build_measure("RBP", {"p": np.float32(0.5)}) == pdireval.parse_measure("RBP(p=0.5)")
    assert build_measure("nDCG", {}, np.int64(10)) == pdireval.parse_measure("nDCG@10")
    assert build_measure("nDCG", {"gain": {np.int64(1): np.float32(2.0)}}) == pdireval.parse_measure("nDCG(gain={1:2})")
    with pytest.raises(MeasureError, match="true or false"):
        build_measure("nDCG", {"clip": "yes"})
    assert str(build_measure("nDCG", {"clip": np.bool_(True), "bounds": "minmax"})) == "nDCG(bounds=minmax,clip=true)"
    run3 = pd.concat([RUN, RUN[RUN["system"] == "a"].assign(system="c", score=[1.0, 2.0, 3.0])], ignore_index=True)
    pd.testing.assert_frame_equal(
        pdireval.bounds(run3, "nDCG(lb=mc)", qrels=QRELS, n_resamples=np.int64(20), rng=0, missing="drop"),
        pdireval.bounds(run3, "nDCG(lb=mc)", qrels=QRELS, n_resamples=20, rng=0, missing="drop"))
    single = pdireval.compare(SCORES3, method="t", confidence_level=np.float32(0.9))
    reference = pdireval.compare(SCORES3, method="t", confidence_level=float(np.float32(0.9)))
    pd.testing.assert_frame_equal(single, reference)
    pd.testing.assert_frame_equal(pdireval.paper_table(SCORES3, alpha=np.float32(0.5)),
                                  pdireval.paper_table(SCORES3, alpha=float(np.float32(0.5))))
    flag = np.bool_(False)
    pd.testing.assert_frame_equal(pdireval.leaderboard_agreement(SCORES3, SCORES3, per_system=flag, k=2),
                                  pdireval.leaderboard_agreement(SCORES3, SCORES3, per_system=False, k=2))
    pd.testing.assert_frame_equal(pdireval.agreement(QRELS, QRELS, per_query=flag, n_resamples=10, rng=0),
                                  pdireval.agreement(QRELS, QRELS, per_query=False, n_resamples=10, rng=0))


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: pdireval.aggregate(SCORES3, wide="yes"), TypeError, "wide= must be True or False"),
        (lambda: pdireval.percentage_absolute_difference(SCORES3, pairs="yes"), TypeError, "pairs= must be True or False"),
        (lambda: pdireval.reliability(SCORES3, n_queries=True), TypeError, "not a bool"),
        (lambda: pdireval.optimize(RUN, qrels=QRELS, maxiter="200"), TypeError, "maxiter= must be an integer"),
        (lambda: pdireval.optimize(RUN, qrels=QRELS, monotone="yes"), TypeError, "monotone= must be True or False"),
        (lambda: pdireval.optimize(RUN, qrels=QRELS, ftol=float("nan")), OptionError, "ftol= must be > 0"),
        (lambda: pdireval.optimize(RUN, qrels=QRELS, k=2, discount=["x", "y"]), MeasureError, "a discount is one of"),
        (lambda: pdireval.subsample_qrels(QRELS, rel=float("nan")), OptionError, "rel= must be finite"),
        (lambda: pdireval.joint_ric(RUN, qrels=QRELS, rel=True), TypeError, "rel= must be a number"),
        (lambda: pdireval.information_difference(RUN, qrels=QRELS, rank="yes"), TypeError, "rank= must be True or False"),
        (lambda: pdireval.compare(SCORES3, confidence_level="0.95"), TypeError, "confidence_level= must be a number"),
    ],
)
def test_wrong_typed_options_across_public_functions(call, error, fragment):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        expect(error, call, fragment)


def test_list_or_dict_valued_columns():
    # ids holding lists would be compared as the text "['a']": refused, with the rows
    listed = run_(system=[[s] for s in RUN["system"]])
    expect(SchemaError, lambda: ev(listed), "run column 'system' holds list values in 5 row(s)", "astype(str)", rows=5)
    expect(SchemaError, lambda: ev(qrels=QRELS.assign(doc=[{"id": d} for d in QRELS["doc"]])), "qrels column 'doc' holds dict", rows=3)
    # an extra scores column is a grouping key: lists and dicts cannot be one
    for value in ([1, 2], {"a": 1}):
        odd = SCORES3.assign(extra=[value] * len(SCORES3))
        with pytest.raises(SchemaError, match="(?s)scores column 'extra' holds .* grouping column") as info:
            pdireval.aggregate(odd)
        assert "drop(columns=['extra'])" in str(info.value)
    # extra run and qrels columns are not read: list values there change nothing
    pd.testing.assert_frame_equal(ev(run_(extra=[[1]] * 5), qrels=QRELS.assign(note=[{}] * 3), missing="drop"), ev(missing="drop"))


def test_report_validates_everything_before_writing(tmp_path):
    bad = {
        "n_resamples": ({"n_resamples": "x"}, TypeError),
        "rng": ({"rng": -1}, OptionError),
        "measure": ({"measures": "nope"}, MeasureError),
        "title": ({"title": 5}, TypeError),
        "svg": ({"svg": "yes"}, TypeError),
        "progress": ({"progress": "no"}, TypeError),
        "run": ({"run": RUN.drop(columns="doc")}, SchemaError),
        "qrels": ({"qrels": QRELS.drop(columns="label")}, SchemaError),
        "other_qrels": ({"other_qrels": QRELS.drop(columns="doc")}, SchemaError),
    }
    for name, (options, error) in bad.items():
        out = tmp_path / name
        kwargs = {"run": RUN, "qrels": QRELS, "out": out, "n_resamples": 10, "progress": False, **options}
        with pytest.raises(error):
            pdireval.report(kwargs.pop("run"), **kwargs)
        assert not out.exists(), name
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(OptionError, match="is an existing file, not a folder"):
        pdireval.report(RUN, qrels=QRELS, out=tmp_path / "a-file", n_resamples=10, progress=False)
    # the command line too: an error message and exit status 1, and no folder
    from pdireval.cli import main

    pdireval.write_run(RUN, tmp_path / "run.txt")
    pdireval.write_qrels(QRELS, tmp_path / "qrels.txt")
    code = main(["report", str(tmp_path / "run.txt"), "--qrels", str(tmp_path / "qrels.txt"),
                 "--out", str(tmp_path / "cli"), "--resamples", "0", "--no-progress"])
    assert code == 1 and not (tmp_path / "cli").exists()


@pytest.mark.slow
def test_report_single_measure_string_ties_and_no_relevant_document(tmp_path):
    """measures="AP" is the one measure AP; two systems tied on the mean and qrels without a
    relevant document give a report (the constant measure is left out, with a note)."""
    tied = pd.concat([RUN[RUN["system"] == "a"], RUN[RUN["system"] == "a"].assign(system="a2"), RUN[RUN["system"] == "b"]],
                     ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        one = pdireval.report(tied, qrels=QRELS, measures="AP", out=tmp_path / "one", n_resamples=20, progress=False)
    assert list(one.tables["systems"].columns) == ["system", "AP"]
    assert set(one.tables["summary"]["measure"]) == {"AP"}
    means = one.tables["summary"].set_index("system")["mean"]
    assert means["a"] == means["a2"] and set(one.tables["systems"]["system"]) == {"a", "a2", "b"}
    assert "the report evaluates one measure" in " ".join(n for s in one.sections for n in s.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        none = pdireval.report(RUN, qrels=QRELS.assign(label=0), measures=["AP", "P@2"], out=tmp_path / "none",
                               n_resamples=20, progress=False)
    assert none.html.exists() and "the same value on every system and query" in none.html.read_text(encoding="utf-8")


@pytest.mark.parametrize("function", ["aggregate", "compare", "reliability", "correlate", "query_set_size"])
def test_huge_or_tiny_scores_values_are_refused_outside_the_range(function):
    from pdireval.core.schema import MAX_ABS_VALUE

    with pytest.raises(SchemaError, match=r"'value' has 9 nonzero value\(s\) beyond ±1e\+100 \(largest magnitude 9e\+154\)") as info:
        getattr(pdireval, function)(SCORES3.assign(value=SCORES3["value"] * 1e155))
    assert "scores['value'] / 1e+155" in str(info.value) and len(info.value.failure_cases) == 9
    # and the other end: squares of 1e-300 underflow (a standard deviation of 0, a t of inf)
    with pytest.raises(SchemaError, match=r"9 nonzero value\(s\) closer to 0 than ±1e-100 \(smallest magnitude 1e-301\)") as info:
        getattr(pdireval, function)(SCORES3.assign(value=SCORES3["value"] * 1e-300))
    assert "scores['value'] * 1e+301" in str(info.value)
    # up to the ceiling: the answer, with no RuntimeWarning; scale-free results equal the unscaled ones
    plain = SCORES3.assign(value=[0.1, 0.2, 0.3, 0.4, 0.55, 0.6, 0.2, 0.1, 0.9])  # no constant differences
    big = plain.assign(value=plain["value"] * MAX_ABS_VALUE / 0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seeded = {"rng": 0} if function == "compare" else {}  # the same resamples for both
        out, ref = getattr(pdireval, function)(big, **seeded), getattr(pdireval, function)(plain, **seeded)
    numbers = out.select_dtypes("number").drop(columns=["n_queries"], errors="ignore")
    assert not np.isinf(numbers.to_numpy(np.float64)).any()  # (NaN marks what is undefined)
    scale_free = {"compare": ["p_value", "effect_size"], "reliability": ["phi", "e_rho2", "phi_ci_low", "phi_ci_high",
                  "e_rho2_ci_low", "e_rho2_ci_high"], "correlate": ["statistic"]}.get(function, [])
    for column in scale_free:
        np.testing.assert_allclose(out[column], ref[column], rtol=1e-9, err_msg=column)


def test_tiny_scores_values_need_few_queries_not_infinitely_many():
    # values far below min_difference: the effect is huge and 2 queries suffice (pingouin
    # answers NaN there, which once became "no finite query count works")
    for method in ("ttest", "anova", "rm_anova"):
        out = pdireval.query_set_size(SCORES3.assign(value=SCORES3["value"] * 1e-90), method=method)
        assert out["n_queries"].tolist() == [2.0] and out["achieved_power"].tolist() == [1.0], method


def test_subsample_qrels_ceilings_are_checked_before_allocating():
    from pdireval.runs.subsampling import MAX_MASK_CELLS, MAX_RESAMPLES

    with pytest.raises(OptionError, match=f"n_resamples= must be >= 1 and <= {MAX_RESAMPLES}; got 10000000"):
        pdireval.subsample_qrels(QRELS, n_resamples=10**7)
    wide = pd.concat([QRELS.assign(doc=QRELS["doc"] + str(i)) for i in range(200)], ignore_index=True)  # 600 rows
    with pytest.raises(OptionError, match=r"90 levels x 100000 repeats = 9,000,000 qrels variants of 600 rows \(5,400,000,000 cells\)") as info:
        pdireval.subsample_qrels(wide, levels=list(range(1, 91)), n_resamples=100_000)
    assert f"{MAX_MASK_CELLS:,}" in str(info.value)
    with pytest.raises(TypeError, match="n_resamples= must be an integer"):
        pdireval.subsample_qrels(QRELS, n_resamples=2.0)
    with pytest.raises(TypeError, match="decimals= must be an integer"):
        pdireval.paper_table(SCORES3, decimals=2.0)


def test_fusion_of_huge_scores_is_refused_or_right_never_a_runtime_warning():
    from pdireval.runs.fusion import MAX_FUSION_SCORE

    run3 = pd.concat([RUN, RUN[RUN["system"] == "a"].assign(system="c", score=[1.0, 3.0, 2.0])], ignore_index=True)
    huge = run3.assign(score=run3["score"] * 1e200)
    with pytest.raises(SchemaError, match=r"run score\(s\) lie beyond ±1e\+150 \(largest magnitude 5e\+200\)") as info:
        pdireval.fuse(huge, "combsum", norm="z-score")
    assert "norm='rank'" in str(info.value)
    # rank-based fusion reads only the order (trec_eval's, at float32 precision: 1e200 is inf there)
    with pytest.warns(PdirevalWarning, match="equal at float32 precision"):
        assert len(pdireval.fuse(huge, "rrf")) == len(pdireval.fuse(run3, "rrf"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # up to the ceiling: z-scores are scale-free, with no RuntimeWarning
        big = run3.assign(score=run3["score"] * MAX_FUSION_SCORE / 5)
        np.testing.assert_allclose(pdireval.fuse(big, "combsum", norm="z-score")["score"],
                                   pdireval.fuse(run3, "combsum", norm="z-score")["score"], rtol=1e-12, atol=1e-12)
        # fused sums beyond float32's range are ranked by their doubles (evaluate reads them as
        # inf, and says so when that ties a judged document)
        fused = pdireval.fuse(big, "combsum", norm=None)
    assert np.isfinite(fused["score"]).all() and (np.diff(fused["score"][fused["query"] == "1"]) < 0).all()
    # rank-based fusion reads positions in trec_eval's order (float32): distinct doubles tied there warn
    tied = run3.assign(score=[2e40, 1e40, 1.0, 5.0, 1.0, 0.1000000002, 0.1000000001, 0.5])
    with pytest.warns(PdirevalWarning, match=r"2 pair\(s\) of adjacent run scores in 2 \(system, query\) list\(s\)") as record:
        pdireval.fuse(tied, "rrf")
    assert "system 'a', query '1': 1e+40 and 2e+40 (both inf as float32)" in str(record[0].message)  # doc id order
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.fuse(tied.assign(score=tied["score"].clip(upper=10)), "combsum")  # scores, not positions


def test_odd_input_table_names_existing_tests():
    """Every row of docs/data-model.md's "what pdireval does with odd input" names a test here
    or in tests/test_hostile_recent.py."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "data-model.md").read_text(encoding="utf-8")
    section = text.split("## What pdireval does with odd input", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| Input")]
    assert len(rows) >= 20
    names = [re.findall(r"`(test_\w+)`", row) for row in rows]
    assert all(len(n) == 1 for n in names), rows
    from tests import test_hostile_recent  # the entry points of the third hardening round

    for (name,) in names:
        assert callable(globals().get(name) or getattr(test_hostile_recent, name, None)), name


# ------------------------------------------ the newer surfaces: fusion, agreement, statistics


def test_tune_fusion_tunes_only_the_given_systems():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=6, depth=20, rng=1)
    tuned = pdireval.tune_fusion(run, qrels, systems=["sys01", "sys02"], step=0.25)
    assert sorted(set(tuned["system"])) == ["sys01", "sys02"] and tuned["trial"].nunique() == 5
    best = tuned[tuned.best].set_index("system")["weight"].to_dict()
    # the documented follow-up gives the tuned value
    fused = pdireval.fuse(run, "combsum", systems=list(best), weights=best)
    value = pdireval.evaluate(fused, "nDCG@10", qrels=qrels)["value"].mean()
    assert value == tuned[tuned.best]["value"].iloc[0]
    # without systems=, the weights miss two systems: said so, with the fix
    expect(OptionError, lambda: pdireval.fuse(run, "combsum", weights=best), "missing", "systems=list(weights)")


def test_fuse_with_zero_weights_or_no_system_is_an_error():
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=5, rng=1)
    expect(OptionError, lambda: pdireval.fuse(run, "combsum", weights=[0, 0, 0]), "all zero", "positive weight")
    expect(OptionError, lambda: pdireval.fuse(run, "borda", weights={"sys01": 0, "sys02": 0, "sys03": 0}), "all zero")
    expect(OptionError, lambda: pdireval.fuse(run, "rrf", systems=[]), "systems= is empty", "sys01")
    expect(OptionError, lambda: pdireval.tune_fusion(run, run.assign(label=1), systems=[]), "systems= is empty")
    # one system with its own weight: its own ranking
    one = pdireval.fuse(run, "combsum", systems=["sys02"], weights={"sys02": 1})
    own = run[run["system"] == "sys02"].sort_values(["query", "score", "doc"], ascending=[True, False, False])
    assert one["doc"].tolist() == own["doc"].tolist()


def test_tune_fusion_without_training_queries_is_an_error():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=3, depth=5, rng=1)
    expect(OptionError, lambda: pdireval.tune_fusion(run, qrels, queries=[]), "queries= is empty", "queries=None")
    judged = qrels[qrels["query"] != "2"]
    expect(SchemaError, lambda: pdireval.tune_fusion(run, judged, queries=["1", "2"]), "the qrels does not have", "'2'")


def test_fused_scores_equal_at_float32_rank_by_their_doubles():
    run = pd.DataFrame({"system": "A", "query": "1", "doc": ["z", "a", "m"], "score": [0.1000000001, 0.1000000002, 0.5]})
    fused = pdireval.fuse(run, "combsum", norm=None)
    assert fused["doc"].tolist() == ["m", "a", "z"] and (np.diff(fused["score"]) < 0).all()
    qrels = pd.DataFrame({"query": "1", "doc": ["a"], "label": [1]})
    with pytest.warns(PdirevalWarning, match="float32 precision.*score_precision='float64'"):
        assert pdireval.evaluate(fused, "RR", qrels=qrels)["value"].iloc[0] == 1 / 3  # trec_eval 9's order
    assert pdireval.evaluate(fused, "RR", qrels=qrels, order="rank")["value"].iloc[0] == 0.5


@pytest.mark.parametrize("n_queries", [8, 30, 70])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_wilcoxon_p_values_are_scipy_pair_by_pair(n_queries, alternative):
    """One pair with a zero difference or a tie must not switch the other pairs' null
    distribution (scipy decides exact / permutation / normal from the whole batch)."""
    import scipy.stats

    rng = np.random.default_rng(n_queries)
    base = rng.random(n_queries)
    values = {
        "A": base + 0.3 + rng.normal(0, 0.2, n_queries),  # continuous: exact alone
        "B": base,
        "C": np.where(np.arange(n_queries) < 2, base, base - 0.1 + rng.normal(0, 0.2, n_queries)),  # zeros vs B
        "D": np.round(base + rng.normal(0.1, 0.2, n_queries), 1),  # ties
    }
    scores = pd.DataFrame([
        {"system": s, "query": str(q), "measure": "AP", "value": v[q]} for s, v in values.items() for q in range(n_queries)
    ])
    got = pdireval.compare(scores, method="wilcoxon", alternative=alternative)
    assert len(got) == 6
    for row in got.itertuples():
        expected = quietly(scipy.stats.wilcoxon, values[row.system_a], values[row.system_b], alternative=alternative)
        assert row.p_value == pytest.approx(expected.pvalue, rel=1e-12, abs=0), (row.system_a, row.system_b)
        assert row.statistic == expected.statistic


# equal P@10 means (47/100) whose float sums differ by the order of the queries
TIED_A = [0.1, 0.5, 0.9, 1.0, 0.2, 0.0, 0.5, 0.9, 0.6, 0.0]
TIED_B = [0.5, 0.0, 0.1, 0.5, 0.2, 0.6, 0.9, 0.0, 0.9, 1.0]


def tied_scores(extra_measure=False):
    rng = np.random.default_rng(5)
    values = {"s1": TIED_A, "s2": TIED_B, "s3": list(rng.random(10)), "s4": list(rng.random(10) * 0.2)}
    rows = [{"system": s, "query": str(q), "measure": "P@10", "value": v[q]} for s, v in values.items() for q in range(10)]
    if extra_measure:
        rows += [{**r, "measure": "AP", "value": r["value"] / 2} for r in rows]
    return pd.DataFrame(rows), values


def test_equal_means_tie_whatever_the_order_of_the_queries():
    from fractions import Fraction

    import scipy.stats

    assert np.mean(TIED_A) != np.mean(TIED_B)  # the trap: float sums in two orders
    scores, values = tied_scores()
    other = scores.assign(value=scores["system"].map({"s1": 0.3, "s2": 0.2, "s3": 0.5, "s4": 0.1}))
    # the truth: Kendall's tau_b of exact rational means (s1 and s2 tied)
    exact = [float(sum(map(Fraction, values[s])) / 10) for s in ["s1", "s2", "s3", "s4"]]
    expected = scipy.stats.kendalltau(exact, [0.3, 0.2, 0.5, 0.1]).statistic
    for frame, other_frame in ((scores, other), (tied_scores(True)[0], pd.concat([other, other.assign(measure="AP")]))):
        got = pdireval.correlate(frame, other_frame, method="kendall_b")
        got = got[(got.measure_a == "P@10") & (got.measure_b == "P@10")]["statistic"].iloc[0]
        assert got == pytest.approx(expected, abs=1e-12)
        board = pdireval.leaderboard_agreement(frame, other_frame).query("measure_a == 'P@10'")
        stats = board.set_index("statistic")["value"]
        assert stats["kendall_tau_b"] == pytest.approx(expected, abs=1e-12)
        assert np.isnan(stats["tau_ap"])  # documented: NaN with tied means


def test_leaderboard_overlaps_do_not_depend_on_names_under_ties():
    from itertools import permutations

    from pdireval.stats.rank_overlap import rbo_ext

    scores, _ = tied_scores()
    flat = scores.assign(value=0.5)  # the other leaderboard ties every system
    got = pdireval.leaderboard_agreement(scores, flat, k=2).set_index("statistic")["value"]
    renamed = {"s1": "z9", "s2": "a0", "s3": "m5", "s4": "b1"}
    again = pdireval.leaderboard_agreement(scores.replace({"system": renamed}), flat.replace({"system": renamed}),
                                           k=2).set_index("statistic")["value"]
    for name in ("rbo", "top_k_overlap", "max_rank_change"):
        assert got[name] == pytest.approx(again[name], abs=1e-15), name
    # RBO: the mean over every order of the tied systems (brute force); the s1/s2 tie counts too
    means = scores.groupby("system")["value"].apply(lambda v: sum(v) / 10).to_dict()
    order_a = sorted(means, key=lambda s: -round(means[s], 12))
    groups = [[s for s in order_a if round(means[s], 12) == m] for m in sorted({round(v, 12) for v in means.values()}, reverse=True)]
    rbos, overlaps = [], []
    for first in permutations(groups[0]):
        for second in permutations(groups[1]) if len(groups) > 1 else [()]:
            ranking_a = list(first) + list(second) + [s for g in groups[2:] for s in g]
            for ranking_b in permutations(sorted(means)):
                pos_a = np.array([ranking_a.index(s) for s in sorted(means)])
                pos_b = np.array([ranking_b.index(s) for s in sorted(means)])
                rbos.append(rbo_ext(pos_a[None], pos_b[None], 0.9)[0])
                overlaps.append(((pos_a < 2) & (pos_b < 2)).sum() / 2)
    assert got["rbo"] == pytest.approx(np.mean(rbos), abs=1e-12)
    assert got["top_k_overlap"] == pytest.approx(np.mean(overlaps), abs=1e-12)
    # every system's mid-rank in the flat board is 2.5: the largest change is 1.5
    assert got["max_rank_change"] == 1.5
    corr = pdireval.correlate(scores, flat, method="rbo")["statistic"].iloc[0]
    assert corr == pytest.approx(np.mean(rbos), abs=1e-12)


def test_frames_that_share_nothing_are_errors_listing_both_sides():
    scores, _ = tied_scores()
    other = scores.assign(measure="map")
    expect(SchemaError, lambda: pdireval.swap_rate(scores, other), "share no group", "P@10", "map")
    with_collection = scores.assign(collection="robust")
    expect(SchemaError, lambda: pdireval.correlate(with_collection, with_collection.assign(collection="trec8")),
           "share no group", "robust", "trec8")
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, depth=5, rng=1)
    moved = run.assign(query="x" + run["query"].astype(str))
    expect(SchemaError, lambda: pdireval.reproducibility(run, moved, qrels=qrels), "share no query", "x1",
           "reproduced_qrels=")


def test_agreement_between_label_scales_warns_and_all_nan_labels_are_an_error():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 4, 60)
    human = pd.DataFrame({"query": np.repeat(["1", "2", "3"], 20), "doc": [f"d{i}" for i in range(60)], "label": labels})
    percent = human.assign(label=labels * 33)  # the same judgments on a 0-99 scale
    with pytest.warns(PdirevalWarning, match=r"different scales.*qrels: 0 to 3.*other: 0 to 99"):
        kappa = pdireval.agreement(human, percent, n_resamples=0).set_index("statistic")["value"]
    assert kappa["agreement_binary"] == 1.0  # binarised, the scales agree
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdireval.agreement(human, human.assign(label=np.minimum(labels, 1)), n_resamples=0)  # 0-3 vs 0-1: same scale family
    expect(SchemaError, lambda: pdireval.agreement(human, human.assign(label=np.nan), n_resamples=0),
           "every label of other is NaN", "60 row(s)")


def test_infinite_or_nan_options_say_finite():
    scores = SCORES3
    expect(OptionError, lambda: pdireval.query_set_size(scores, min_difference=float("inf")),
           "min_difference= must be > 0.0 and finite; got inf")
    expect(OptionError, lambda: pdireval.fuse(RUN, "rbc", phi=float("nan")), "phi= must be > 0 and < 1 and finite")


def test_a_gzip_line_of_gigabytes_is_refused_while_decompressing(tmp_path, monkeypatch):
    import gzip
    import tracemalloc

    import pdireval.io.files as pio

    # 200 MB of NUL bytes on one line, in a ~200 KB archive (the per-file ceiling is not reached)
    path = tmp_path / "nul.gz"
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b"301 Q0 d1 1 2.0 tag\n")
        block = b"\0" * (1 << 20)
        for _ in range(200):
            fh.write(block)
    assert path.stat().st_size < 1_000_000
    tracemalloc.start()
    try:
        for reader in (pdireval.read_run, pdireval.read_qrels):
            expect(SchemaError, lambda reader=reader: reader(path), "line 2", "longer than", "MAX_LINE_BYTES", "\\x00")
        # SVMlight refuses control characters: at the first NUL already
        expect(SchemaError, lambda: pdireval.read_svmlight(path), "line 2", "U+0000")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * pio.MAX_LINE_BYTES  # read in pieces, never the whole line
    # the ceiling applies to plain files too, and is the documented, adjustable one
    monkeypatch.setattr(pio, "MAX_LINE_BYTES", 1000)
    plain = tmp_path / "long.txt"
    plain.write_text("301 Q0 d1 1 2.0 tag\n" + "301 Q0 " + "x" * 5000 + " 1 1.0 tag\n")
    expect(SchemaError, lambda: pdireval.read_run(plain), "line 2", "longer than 1000 bytes")
    plain.write_text("".join(f"301 Q0 d{i} {i + 1} 2.0 tag\n" for i in range(200)))  # 4 KB, short lines
    assert len(pdireval.read_run(plain)) == 200


@pytest.mark.parametrize("line", ["1\x01 qid:1 1:0.5", "1 qid:1\x02 1:0.5", "1 qid:1 1\x05:0.5", "1 qid:1 1:0.5 # doc\x7f"])
def test_svmlight_control_characters_name_file_line_and_character(tmp_path, line):
    path = tmp_path / "train.txt"
    path.write_text("0 qid:1 1:0.2\n" + line + "\n", encoding="utf-8")
    code = next(c for c in line if ord(c) < 32 or ord(c) == 127)
    expect(SchemaError, lambda: pdireval.read_svmlight(path), f"{path}, line 2", f"U+{ord(code):04X}",
           "control character")


def test_the_same_run_file_twice_on_the_command_line(tmp_path, capsys):
    from pdireval.cli import main

    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.txt").write_text("301 Q0 d1 1 0.5 a\n301 Q0 d2 2 0.4 a\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("301 0 d1 1\n")
    same = str(runs / "a.txt")
    for args in ([same, same], [same, str(runs / ".." / "runs" / "a.txt")], [str(runs), same]):
        assert main(["evaluate", "--qrels", str(qrels), *args, "-m", "AP"]) == 1
        err = capsys.readouterr().err
        assert "a.txt is named more than once" in err and "Give each run file (or its folder) once" in err
    assert main(["evaluate", "--qrels", str(qrels), same, "-m", "AP"]) == 0


def test_space_separated_lines_split_on_any_whitespace_run(tmp_path):
    # a tab inside a space-separated file, runs of spaces, trailing tabs and spaces: read as
    # trec_eval reads them (fields split on any whitespace run; AP 5/6 in trec_eval 9.0.8)
    run = tmp_path / "run.txt"
    run.write_text("301 Q0 d1 1 0.5 tag\n301 Q0\td2 2 1.0 tag\t\n301 Q0 d3  3 0.2 tag \n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("301 0 d2 1\n301\t0 d1 0 \n301 0  d3\t1\t\n")
    got = pdireval.read_run(run)
    assert got["doc"].tolist() == ["d1", "d2", "d3"] and set(got["system"]) == {"tag"}
    assert pdireval.read_qrels(qrels)["label"].tolist() == [0.0, 1.0, 1.0]
    ap = pdireval.evaluate(got, "AP", qrels=pdireval.read_qrels(qrels))["value"].iloc[0]
    assert ap == pytest.approx(5 / 6)
    # a field shifted by a tab inside the line is named, never read into another column
    run.write_text("301 Q0\td2 junk 2 1.0 tag\n")
    expect(SchemaError, lambda: pdireval.read_run(run), "line 1", "the rank field 'junk' is not a number")


# ------------------------------------------------------------------ user measures, ties="expected"


def test_an_error_inside_a_user_measure_reaches_the_user_with_its_type():
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=2, depth=10, rng=1)

    def broken(ranked, judged, *, cutoff):
        raise ZeroDivisionError("user bug")

    def broken_kernel(view, measure):
        return np.log(-np.ones(view.n_seg)) + {}["missing key"]

    pdireval.register_measure("MyBroken", broken, replace=True)
    pdireval.register_measure("MyBrokenKernel", kernel=broken_kernel, replace=True)
    try:
        for text in ("MyBroken", "MyBroken(ties=expected)"):
            with pytest.raises(ZeroDivisionError, match=r"user-defined measure MyBroken \(system 'sys01', query '1'\): user bug") as info:
                pdireval.evaluate(run, text, qrels=qrels)
            assert "overflow" not in str(info.value) and isinstance(info.value.__cause__, ZeroDivisionError)
        with pytest.raises(KeyError, match="user-defined measure MyBrokenKernel.*missing key"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # the user's np.log(-1)
                pdireval.evaluate(run, "MyBrokenKernel", qrels=qrels)
    finally:
        pdireval.unregister_measure("MyBroken")
        pdireval.unregister_measure("MyBrokenKernel")


def test_register_measure_empty_must_be_a_number():
    def f(ranked, judged, *, cutoff):
        return 0.0

    for bad in ("x", None, [0.0], float("inf"), True):
        with pytest.raises(MeasureError, match="empty= is the value of a judged query"):
            pdireval.register_measure("MyEmpty", f, empty=bad)
    assert "MyEmpty" not in set(pdireval.measures()["measure"])


@pytest.mark.slow  # 1,500 tied documents, five measures (about 8 s)
def test_ties_expected_on_a_large_tie_group_is_the_sampled_estimate_never_an_overflow():
    n = 1500
    docs = [f"d{i:04d}" for i in range(n)]
    run = pd.DataFrame({"system": "s", "query": "1", "doc": docs, "score": 1.0})
    # 500 relevant and 500 non-relevant documents of 1500 (RIC needs two labels)
    qrels = pd.DataFrame({"query": "1", "doc": docs[::3] + docs[1::3], "label": [1] * 500 + [0] * 500})

    def top_rel(ranked, judged, *, cutoff):
        return float(np.sum(ranked[:10] >= 1)) / 10

    pdireval.register_measure("MyTopRel", top_rel, replace=True)
    try:
        values = pdireval.evaluate(run, ["INST(ties=expected)", "RIC(ties=expected)", "gm_map(ties=expected)",
                                         "BPM(ties=expected)@10", "MyTopRel(ties=expected)"], qrels=qrels)
        assert np.isfinite(values["value"]).all()
        # E[P@10] over the orderings is 500/1500 exactly; the estimate's stated error is
        # sigma / sqrt(1000) with sigma^2 = p(1 - p)(n - 10) / (10 (n - 1)) (hypergeometric)
        p = 1 / 3
        se = np.sqrt(p * (1 - p) * (n - 10) / (10 * (n - 1)) / 1000)
        assert abs(values.set_index("measure")["value"]["MyTopRel(ties=expected)"] - p) < 4 * se
        again = pdireval.evaluate(run, "MyTopRel(ties=expected)", qrels=qrels)["value"].iloc[0]
        assert again == values.set_index("measure")["value"]["MyTopRel(ties=expected)"]  # seeded
    finally:
        pdireval.unregister_measure("MyTopRel")


@pytest.mark.slow  # every registered measure on a 10^4-document tie group (about a minute)
def test_ties_expected_on_a_tie_group_of_ten_thousand_stays_under_one_gib():
    import tracemalloc

    rng = np.random.default_rng(0)
    n = 10_000
    docs = [f"d{i:05d}" for i in range(n)]
    run = pd.DataFrame({"system": "s", "query": "1", "doc": docs, "score": 1.0})
    judged = rng.choice(n, 300, replace=False)
    qrels = pd.DataFrame({"query": "1", "doc": [docs[i] for i in judged], "label": rng.integers(0, 4, 300)})
    diversity = pd.concat([qrels.assign(subtopic=str(s), label=(rng.random(300) < 0.3).astype(int))
                           for s in range(3)])
    registry = pdireval.measures().set_index("measure")
    intent_aware = {"alpha_DCG", "alpha_nDCG", "AP_IA", "ERR_IA", "nERR_IA", "P_IA", "NRBP", "nNRBP", "StRecall", "SDCG"}
    peaks = {}
    for name, cutoff in registry["cutoff"].items():
        text = f"{name}(ties=expected)" + {"required": "@10", "real": "@0.5"}.get(cutoff, "")
        tracemalloc.start()
        try:
            value = pdireval.evaluate(run, text, qrels=diversity if name in intent_aware else qrels)["value"].iloc[0]
            peaks[name] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert np.isfinite(value), name
    assert len(peaks) == len(registry)
    worst = max(peaks, key=peaks.get)
    assert peaks[worst] < 2**30, (worst, peaks[worst] / 2**20)


@pytest.mark.slow  # 50,000 rows, two tie-enumerating measures
def test_ties_expected_on_rounded_scores_runs_in_bounded_memory():
    import tracemalloc

    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=10, depth=1000, score_decimals=1, rng=3)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)
            got = pdireval.evaluate(run, ["G(ties=expected)", "INST(ties=expected)"], qrels=qrels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.isfinite(got["value"]).all() and peak < 2**30, peak / 2**20


def test_run_file_ir_metadata_header_is_kept_not_read_as_lines(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("# ir_metadata.start\n# tag: r\n# ir_metadata.end\n1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    run = pdireval.read_run(path)
    assert len(run) == 2 and run.attrs["ir_metadata"] == {"r": "tag: r"}
    pdireval.write_run(run, tmp_path / "out.txt")
    assert (tmp_path / "out.txt").read_text() == path.read_text()


def test_ir_datasets_diversity_qrels_iteration_is_the_subtopic():
    qrels = pd.DataFrame({"query_id": "1", "iteration": ["1", "2", "2"], "doc_id": ["a", "a", "b"],
                          "relevance": [1, 0, 1]})
    run = pd.DataFrame({"query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    named = qrels.rename(columns={"iteration": "subtopic"})
    got = pdireval.evaluate(run, "alpha_nDCG@2", qrels=qrels)
    pd.testing.assert_frame_equal(got, pdireval.evaluate(run, "alpha_nDCG@2", qrels=named))


def test_scores_files_with_values_that_are_not_numbers(tmp_path):
    """read_scores: a value that is not a number is an error naming the file, line and value;
    NaN as the tool writes it is kept and counted in one warning; an undecidable layout lists
    the candidate formats (every format and value class: tests/test_io_scores.py)."""
    path = tmp_path / "run.eval"
    path.write_text("map\t301\t0.5\nP_10\t301\tN/A-error\nrunid\tall\tx\n")
    expect(SchemaError, lambda: pdireval.read_scores(path), "run.eval, line 2: the value "
           "'N/A-error' is not a finite number")
    path.write_text("map\t301\t0.5\nP_10\t301\t-nan\nrunid\tall\tx\n")
    with pytest.warns(PdirevalWarning, match=r"run\.eval: 1 undefined value\(s\) written as NaN"):
        got = pdireval.read_scores(path)
    assert got["value"].isna().tolist() == [False, True]
    (tmp_path / "r.json").write_text('{"map": {"1": 0.5, "2": true}}')
    expect(SchemaError, lambda: pdireval.read_scores(tmp_path / "r.json"),
           "r.json, key map.2: the value 'true'")
    path.write_text("foo\tq1\t0.5\nbar\tq1\t0.25\n")
    expect(SchemaError, lambda: pdireval.read_scores(path), "format='trec_eval'",
           "format='ir_measures'")
    scores = pd.DataFrame({"system": "a", "query": ["all"], "measure": "AP", "value": [0.5]})
    expect(SchemaError, lambda: pdireval.write_scores(scores, tmp_path / "s.txt"),
           "query named 'all'")
# ---------------------------------------------- exact ties in resamples and fusion; one query


def test_fused_exact_ties_on_either_side_of_a_rounding_boundary_tie():
    # norm="rank", lists of 75: d60 at (60, 73) and d59 at (59, 74) both score 2 - 133/75
    # exactly; their doubles fall on either side of a 44-bit rounding boundary
    docs = [f"d{i:02d}" for i in range(75)]
    other = [d for d in docs if d not in ("d59", "d60")] + ["d60", "d59"]
    run = pd.DataFrame([{"system": s, "query": "1", "doc": d, "rank": i + 1}
                        for s, lst in (("A", docs), ("B", other)) for i, d in enumerate(lst)])
    fused = pdireval.fuse(run, "combsum", norm="rank").set_index("doc")
    assert fused.loc["d60", "score"] == fused.loc["d59", "score"]
    assert fused.loc["d60", "rank"] + 1 == fused.loc["d59", "rank"]  # doc id descending


def test_equal_sums_tie_in_every_bootstrap_replicate():
    from fractions import Fraction

    # A and B: the same P@10 values in another query order (plain float means differ by an ulp)
    x = np.array([[0.4, 0.0, 0.2, 0.3, 0.1], [0.4, 0.2, 0.1, 0.0, 0.3], [0.1, 0.1, 0.0, 0.1, 0.1]]).T
    scores = pd.DataFrame({"system": np.repeat(["A", "B", "C"], 5), "query": np.tile([f"q{i}" for i in range(5)], 3),
                           "measure": "P@10", "value": x.T.ravel()})
    out = pdireval.rank_uncertainty(scores, n_resamples=300, rng=2, test="sign").set_index("system")
    assert out["rank"].tolist() == [1.5, 1.5, 3.0]
    best = np.zeros(3)
    for rows in np.random.default_rng(2).integers(0, 5, size=(300, 5)):  # the same draws
        means = [float(sum(Fraction(x[r, j]) for r in rows)) / 5 for j in range(3)]
        top = [j for j in range(3) if means[j] == max(means)]
        best[top] += 1 / len(top)
    np.testing.assert_allclose(out.loc[["A", "B", "C"], "p_best"], best / 300, atol=1e-12)


def test_one_query_intervals_are_nan_with_a_warning():
    one = pd.DataFrame({"system": ["a", "b", "c"] * 2, "query": "q1", "measure": ["AP"] * 3 + ["P@10"] * 3,
                        "value": [0.1, 0.2, 0.3, 0.3, 0.1, 0.2]})
    with pytest.warns(PdirevalWarning, match="single query have no bootstrap interval"):
        out = pdireval.correlate(one, confidence_level=0.9, rng=1)
    assert out[["ci_low", "ci_high"]].isna().all().all()
    ap, p10 = one[one.measure == "AP"], one[one.measure == "P@10"].assign(measure="AP")
    with pytest.warns(PdirevalWarning, match="single query have no bootstrap interval"):
        agree = pdireval.leaderboard_agreement(ap, p10, confidence_level=0.9, rng=1)
    assert agree[["ci_low", "ci_high"]].isna().all().all()
