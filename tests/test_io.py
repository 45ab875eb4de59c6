"""Readers and writers: TREC run / qrels, SVMlight / LightGBM files."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError
from tests.helpers import shared_path

RUN_TEXT = """\
301 Q0 d1 1 2.5 runA
301 Q0 d2 2 2.5 runA
301 Q0 d3 3 1.25 runA
302 Q0 d9 1 -0.5 runA
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


# --------------------------------------------------------------------------- runs


@pytest.mark.parametrize("name", ["run.txt", "run.gz"])
def test_read_run_plain_and_gz(tmp_path, name):
    run = pdireval.read_run(write(tmp_path, name, RUN_TEXT))
    assert list(run.columns) == ["system", "query", "doc", "score", "rank"]
    assert run["system"].tolist() == ["runA"] * 4
    assert run["query"].tolist() == ["301", "301", "301", "302"]
    assert run["doc"].tolist() == ["d1", "d2", "d3", "d9"]
    assert run["score"].tolist() == [2.5, 2.5, 1.25, -0.5]
    assert run["rank"].tolist() == [1, 2, 3, 1]
    assert run["score"].dtype == np.float64 and run["rank"].dtype == np.int64
    assert isinstance(run.index, pd.RangeIndex)


def test_read_run_tabs_and_repeated_whitespace(tmp_path):
    text = "301\tQ0\td1\t1\t2.5\trunA\n301  Q0 d2   2 1.5 runA  \n\n   \n302 Q0 d9 1 0.5 runA\n"
    run = pdireval.read_run(write(tmp_path, "r.txt", text))
    assert run["doc"].tolist() == ["d1", "d2", "d9"]
    assert run["score"].tolist() == [2.5, 1.5, 0.5]


def test_ids_are_kept_verbatim(tmp_path):
    # quotes, "NA", "nan" and leading zeros are ids, not missing values or numbers
    text = '007 Q0 "d 1 0.5 NA\n007 Q0 NA 2 0.25 NA\n007 Q0 nan 3 0.125 NA\n'
    run = pdireval.read_run(write(tmp_path, "r.txt", text))
    assert run["query"].tolist() == ["007"] * 3
    assert run["doc"].tolist() == ['"d', "NA", "nan"]
    assert run["system"].tolist() == ["NA"] * 3


def test_zero_based_ranks_are_shifted(tmp_path):
    text = "1 Q0 a 0 3 t\n1 Q0 b 1 2 t\n2 Q0 c 0 1 t\n"
    run = pdireval.read_run(write(tmp_path, "r.txt", text))
    assert run["rank"].tolist() == [1, 2, 1]


def test_folder_tag_and_filename(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder, "input.a.gz", "1 Q0 x 1 2 tagA\n")
    write(folder, "b.txt", "1 Q0 x 1 2 tagB\n1 Q0 y 2 1 tagB\n")
    write(folder, ".hidden", "garbage\n")
    run = pdireval.read_run(folder)
    assert sorted(run["system"].unique()) == ["tagA", "tagB"]
    assert len(run) == 3
    by_name = pdireval.read_run(folder, system="filename")
    assert sorted(by_name["system"].unique()) == ["b", "input.a"]


def test_same_tag_in_two_files_is_an_error_that_suggests_filename(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder, "one.txt", "1 Q0 x 1 2 same\n")
    write(folder, "two.txt", "1 Q0 z 1 2 same\n1 Q0 x 2 1 same\n")
    with pytest.raises(SchemaError, match="system='filename'") as info:
        pdireval.read_run(folder)
    assert "one.txt, line 1" in str(info.value) and "two.txt, line 2" in str(info.value)
    assert len(info.value.failure_cases) == 2
    assert pdireval.read_run(folder, system="filename")["system"].nunique() == 2


def test_duplicate_document_names_lines(tmp_path):
    path = write(tmp_path, "r.txt", "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n")
    with pytest.raises(SchemaError, match=r"r\.txt, line 1, .*r\.txt, line 3"):
        pdireval.read_run(path)


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("1 Q0 a 1 2 t\n\n1 Q0 b 2 1\n", 3, "too few fields"),
        ("1 Q0 a 1 2 t\n1 Q0 b 2 high t\n", 2, "score field 'high' is not a number"),
        ("1 Q0 a 1 2 t\n1 Q0 b 2 nan t\n", 2, "score field 'nan' is not a finite"),
        ("1 Q0 a one 2 t\n", 1, "rank field 'one' is not a number"),
        ("1 Q0 a 1 2 t\n1 Q0 b 2.5 1 t\n", 2, "rank field '2.5' is not a whole number"),
        ("1 Q0 a 1 2 t\n1 Q0 b -3 1 t\n", 2, "rank field '-3' is not a whole number"),
    ],
)
@pytest.mark.parametrize("suffix", [".txt", ".gz"])
def test_malformed_run_line_names_file_and_line(tmp_path, text, line, problem, suffix):
    path = write(tmp_path, "bad" + suffix, text)
    with pytest.raises(SchemaError) as info:
        pdireval.read_run(path)
    message = str(info.value)
    assert f"bad{suffix}, line {line}:" in message
    assert problem in message
    assert "query Q0 doc rank score tag" in message  # says what a line should look like


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_run_file(tmp_path, text):
    with pytest.raises(SchemaError, match="empty"):
        pdireval.read_run(write(tmp_path, "r.txt", text))


def test_missing_paths_and_wrong_types(tmp_path):
    with pytest.raises(SchemaError, match="no such run file or folder"):
        pdireval.read_run(tmp_path / "nope.txt")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(SchemaError, match="holds no run files"):
        pdireval.read_run(tmp_path / "empty_dir")
    with pytest.raises(SchemaError, match="no such qrels file"):
        pdireval.read_qrels(tmp_path / "nope.txt")
    with pytest.raises(SchemaError, match="no such SVMlight file"):
        pdireval.read_svmlight(tmp_path / "nope.txt")
    with pytest.raises(TypeError, match="path must be a str"):
        pdireval.read_run(42)
    with pytest.raises(pdireval.OptionError, match="system= must be one of 'tag', 'filename'"):
        pdireval.read_run(write(tmp_path, "r.txt", RUN_TEXT), system="tags")


def test_run_round_trip(tmp_path):
    run, _ = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=15, rng=7)
    for name in ("out.txt", "out.gz"):
        pdireval.write_run(run, tmp_path / name)
        back = pdireval.read_run(tmp_path / name)
        expected = run.sort_values(["system", "query", "score", "doc"], ascending=[True, True, False, False])
        pd.testing.assert_frame_equal(
            back[["system", "query", "doc", "score"]],
            expected[["system", "query", "doc", "score"]].reset_index(drop=True),
        )
        # ranks are renumbered 1..n in trec_eval order
        assert (back.groupby(["system", "query"])["rank"].apply(lambda r: list(r) == list(range(1, len(r) + 1)))).all()


def test_write_run_full_precision_and_rank_only(tmp_path):
    run = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b", "c"], "score": [0.1 + 0.2, 1 / 3, -1e-300]})
    pdireval.write_run(run, tmp_path / "r.txt")
    assert pdireval.read_run(tmp_path / "r.txt")["score"].tolist() == [1 / 3, 0.1 + 0.2, -1e-300]
    ranked = pd.DataFrame({"system": "s", "query": "1", "doc": ["a", "b", "c"], "rank": [3, 1, 2]})
    pdireval.write_run(ranked, tmp_path / "k.txt")
    lines = (tmp_path / "k.txt").read_text().splitlines()
    assert lines == ["1 Q0 b 1 3.0 s", "1 Q0 c 2 2.0 s", "1 Q0 a 3 1.0 s"]


def test_written_run_evaluates_the_same(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=5, depth=20, rng=3)
    pdireval.write_run(run, tmp_path / "r.txt")
    pdireval.write_qrels(qrels, tmp_path / "q.txt")
    measures = ["AP", "nDCG@10", "P@5"]
    direct = pdireval.evaluate(run, measures, qrels=qrels)
    via_files = pdireval.evaluate(pdireval.read_run(tmp_path / "r.txt"), measures, qrels=pdireval.read_qrels(tmp_path / "q.txt"))
    pd.testing.assert_frame_equal(direct, via_files)


def test_write_rejects_whitespace_ids_and_keeps_caller_frame(tmp_path):
    run = pd.DataFrame({"system": "my run", "query": "1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    before = run.copy()
    with pytest.raises(SchemaError, match="'system' id.*whitespace") as info:
        pdireval.write_run(run, tmp_path / "r.txt")
    assert len(info.value.failure_cases) == 2
    pd.testing.assert_frame_equal(run, before)
    assert not (tmp_path / "r.txt").exists()


def test_write_run_with_columns_mapping(tmp_path):
    run = pd.DataFrame({"tag": "t", "qid": "1", "docno": ["a", "b"], "sim": [1.0, 2.0]})
    pdireval.write_run(run, tmp_path / "r.txt", columns={"system": "tag", "query": "qid", "doc": "docno", "score": "sim"})
    assert (tmp_path / "r.txt").read_text().splitlines()[0] == "1 Q0 b 1 2.0 t"


# --------------------------------------------------------------------------- qrels


def test_read_qrels_and_round_trip(tmp_path):
    text = "301 0 d2 1\n301 0 d1 -2\n301 0 d1 -2\n302 0 d9 0\n"
    qrels = pdireval.read_qrels(write(tmp_path, "q.txt.gz", text))
    assert qrels.to_dict("list") == {"query": ["301", "301", "302"], "doc": ["d1", "d2", "d9"], "label": [-2.0, 1.0, 0.0]}
    pdireval.write_qrels(qrels, tmp_path / "out.txt")
    assert (tmp_path / "out.txt").read_text() == "301 0 d1 -2\n301 0 d2 1\n302 0 d9 0\n"
    pd.testing.assert_frame_equal(pdireval.read_qrels(tmp_path / "out.txt"), qrels)


def test_write_qrels_fractional_labels_and_nan(tmp_path):
    qrels = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "label": [0.5, 2.0]})
    pdireval.write_qrels(qrels, tmp_path / "q.txt")
    pd.testing.assert_frame_equal(pdireval.read_qrels(tmp_path / "q.txt"), qrels, check_dtype=False)
    with pytest.raises(SchemaError, match="NaN") as info:
        pdireval.write_qrels(qrels.assign(label=[np.nan, 1.0]), tmp_path / "n.txt")
    assert info.value.failure_cases["doc"].tolist() == ["a"]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("1 0 a 1\n1 0 b\n", 2, "too few fields"),
        ("1 0 a 1\n1 0 b 1 x\n", 2, "too many fields"),
        ("1 0 a 1\n\n1 0 b rel\n", 3, "label field 'rel' is not a number"),
        ("1 0 a inf\n", 1, "label field 'inf' is not a finite"),
    ],
)
def test_malformed_qrels_line(tmp_path, text, line, problem):
    with pytest.raises(SchemaError) as info:
        pdireval.read_qrels(write(tmp_path, "q.txt", text))
    assert f"q.txt, line {line}:" in str(info.value) and problem in str(info.value)
    assert "query iteration doc label" in str(info.value)


def test_qrels_conflicting_labels_name_the_file(tmp_path):
    with pytest.raises(SchemaError, match=r"q\.txt: the qrels give 1 \(query, doc\) pair") as info:
        pdireval.read_qrels(write(tmp_path, "q.txt", "1 0 a 1\n1 0 a 2\n"))
    assert info.value.failure_cases["label"].tolist() == [1.0, 2.0]


# --------------------------------------------------------------------------- SVMlight


def test_read_svmlight_with_qid_and_docids(tmp_path):
    text = (
        "# a header comment\n"
        "2 qid:10 1:0.5 3:-1.5 # docid = GX01 inc = 1\n"
        "\n"
        "0 qid:10 2:1e-3 #docid=GX02\n"
        "1 qid:7 1:1 # docid = GX03\n"
    )
    frame = pdireval.read_svmlight(write(tmp_path, "s.txt", text))
    assert list(frame.columns) == ["query", "doc", "label", "f1", "f2", "f3"]
    assert frame["query"].tolist() == ["10", "10", "7"]
    assert frame["doc"].tolist() == ["GX01", "GX02", "GX03"]
    assert frame["label"].tolist() == [2.0, 0.0, 1.0]
    np.testing.assert_array_equal(frame[["f1", "f2", "f3"]].to_numpy(), [[0.5, 0, -1.5], [0, 1e-3, 0], [1, 0, 0]])


def test_read_svmlight_positional_doc_ids_and_feature_zero(tmp_path):
    frame = pdireval.read_svmlight(write(tmp_path, "s.txt", "1 qid:a 0:2 2:3\n0 qid:a 1:1\n3 qid:b\n"))
    assert frame["doc"].tolist() == ["a-0", "a-1", "b-0"]
    assert list(frame.columns[3:]) == ["f0", "f1", "f2"]
    np.testing.assert_array_equal(frame[["f0", "f1", "f2"]].to_numpy(), [[2, 0, 3], [0, 1, 0], [0, 0, 0]])


def test_read_svmlight_lightgbm_group_file(tmp_path):
    path = write(tmp_path, "rank.train", "1 1:0.5\n0 1:0.2\n2 2:1\n")
    (tmp_path / "rank.train.query").write_text("2\n1\n")
    frame = pdireval.read_svmlight(path)
    assert frame["query"].tolist() == ["1", "1", "2"]
    assert frame["doc"].tolist() == ["1-0", "1-1", "2-0"]
    other = tmp_path / "groups.txt"
    other.write_text("1\n2\n")
    assert pdireval.read_svmlight(path, query_file=other)["query"].tolist() == ["1", "2", "2"]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("1 qid:1 1:0.5\nhigh qid:1 1:0.5\n", 2, "the label 'high' is not a finite number"),
        ("1 qid:1 1:0.5 2:x\n", 1, "the feature '2:x' is not of the form id:value"),
        ("1 qid:1 1:0.5\n\n1 qid:1 junk\n", 3, "the feature 'junk' is not of the form id:value"),
        ("1 qid:1 -1:0.5\n", 1, "the feature '-1:0.5' is not of the form"),
        ("1 qid:1 1:0.5 1:0.7\n", 1, "feature 1 is given twice"),
        ("1 qid:1 1:0.5\n0 1:0.5\n", 2, "no 'qid:' field, while other lines have one"),
        ("1 qid: 1:0.5\n", 1, "the qid: field is empty"),
    ],
)
def test_malformed_svmlight_line(tmp_path, text, line, problem):
    with pytest.raises(SchemaError) as info:
        pdireval.read_svmlight(write(tmp_path, "s.txt", text))
    assert f"s.txt, line {line}: {problem}" in str(info.value)


def test_svmlight_group_file_problems(tmp_path):
    path = write(tmp_path, "r.train", "1 1:0.5\n0 1:0.2\n")
    with pytest.raises(SchemaError, match=r"no 'qid:' field and there is no group file .*r\.train\.query"):
        pdireval.read_svmlight(path)
    (tmp_path / "r.train.query").write_text("1\n2\n")
    with pytest.raises(SchemaError, match=r"add up to 3 lines, but .*r\.train has 2 data lines"):
        pdireval.read_svmlight(path)
    (tmp_path / "r.train.query").write_text("1\n1.5\n")
    with pytest.raises(SchemaError, match=r"r\.train\.query, line 2: '1\.5' is not a group size"):
        pdireval.read_svmlight(path)
    qid = write(tmp_path, "q.txt", "1 qid:1 1:0.5\n")
    with pytest.raises(SchemaError, match="drop it"):
        pdireval.read_svmlight(qid, query_file=tmp_path / "r.train.query")
    with pytest.raises(SchemaError, match="no data line"):
        pdireval.read_svmlight(write(tmp_path, "e.txt", "# nothing\n\n"))


# --------------------------------------------------------------------------- shared data


def test_letor_sample_with_query_file():
    path = shared_path("letor-sample", "rank.train")
    frame = pdireval.read_svmlight(path)
    sizes = pd.read_csv(str(path) + ".query", header=None)[0]
    assert len(frame) == sizes.sum()
    assert frame["query"].nunique() == len(sizes)
    assert frame.groupby("query", sort=False).size().tolist() == sizes.tolist()
    assert set(frame["label"].unique()) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    assert frame.columns[3] == "f1" and all(frame[c].dtype == np.float64 for c in frame.columns[2:])
    # re-ranking: one "system" per feature, judgments from the label column
    run = frame.assign(system="f1", score=frame["f1"])[["system", "query", "doc", "score", "label"]]
    scores = pdireval.evaluate(run, ["nDCG@10"])
    assert scores["value"].between(0, 1).all()


def test_robust03_runs_and_qrels(robust03):
    run, qrels = robust03
    assert run["system"].nunique() == 17
    assert list(run.columns) == ["system", "query", "doc", "score", "rank"]
    sizes = run.groupby("system").size()
    # uneven, as real runs are: about 10 documents per topic, 100 per topic, 1000 per topic
    assert sizes["NLPR03vb10"] == 1004 and sizes["humR03dc"] == 100 * 100
    assert sizes["InexpC2"] == 1000 * 100
    assert run["rank"].min() == 1  # the files count from 0; shifted
    assert qrels["query"].nunique() == 100
    assert set(qrels["label"].unique()) == {0.0, 1.0, 2.0}
    lines = shared_path("robust03", "qrels.txt").read_text().splitlines()
    assert len(qrels) == sum(1 for line in lines if line.strip())
    with gzip.open(shared_path("robust03", "runs", "input.Sel50.gz"), "rt") as fh:
        first = fh.readline().split()
    row = run[(run["system"] == first[5]) & (run["query"] == first[0]) & (run["doc"] == first[2])]
    assert row["score"].item() == float(first[4]) and row["rank"].item() == int(first[3]) + 1


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("1 Q0 d1 1 2.0\n", 1, "too many fields (5)"),  # pandas would make field 1 the index
        ("1 0 d1 1\n1 0 d2 1 2\n", 2, "too many fields (5)"),
        ("1  0 d1 1 x y z\n1 0 d2 1\n", 1, "too many fields (7)"),
        ("1  0 d1 1\n1 0 d2\n", 2, "too few fields (3)"),
    ],
)
def test_field_count_errors_on_the_slow_path(tmp_path, text, line, problem):
    with pytest.raises(SchemaError) as info:
        pdireval.read_qrels(write(tmp_path, "q.txt", text))
    assert f"q.txt, line {line}: malformed qrels line: {problem}" in str(info.value)


def test_accessor_writers(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=2, depth=5, rng=1)
    run.ireval.write_run(tmp_path / "a.txt")
    pdireval.write_run(run, tmp_path / "b.txt")
    qrels.ireval.write_qrels(tmp_path / "q.txt")
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    expected = qrels.sort_values(["query", "doc"], ignore_index=True)
    pd.testing.assert_frame_equal(pdireval.read_qrels(tmp_path / "q.txt"), expected, check_dtype=False)


# --------------------------------------------------------------------------- property tests

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ID = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp")),
    min_size=1, max_size=6,
)
_SCORE = st.floats(allow_nan=False, allow_infinity=False, width=64)
_QID = _ID.filter(lambda text: not text.startswith("#"))  # '#' lines are comments
# labels: any float a qrels frame accepts (magnitudes up to pdireval.core.schema.MAX_ABS_VALUE)
_LABEL = st.floats(-1e100, 1e100, allow_nan=False, width=64)


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.tuples(_ID, _QID, _ID, _SCORE), min_size=1, max_size=25))
def test_write_then_read_run_round_trips(tmp_path_factory, rows):
    run = pd.DataFrame(rows, columns=["system", "query", "doc", "score"]).drop_duplicates(["system", "query", "doc"])
    path = tmp_path_factory.mktemp("rt") / "run.txt"
    pdireval.write_run(run, path)
    back = pdireval.read_run(path)
    expected = run.sort_values(["system", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable")
    assert back["system"].tolist() == expected["system"].tolist()
    assert back["query"].tolist() == expected["query"].tolist()
    assert back["doc"].tolist() == expected["doc"].tolist()
    assert back["score"].tolist() == expected["score"].tolist()  # bit for bit


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.tuples(_QID, _ID, st.integers(-5, 5) | _LABEL), min_size=1, max_size=25))
def test_write_then_read_qrels_round_trips(tmp_path_factory, rows):
    qrels = pd.DataFrame(rows, columns=["query", "doc", "label"]).drop_duplicates(["query", "doc"])
    path = tmp_path_factory.mktemp("rt") / "qrels.txt"
    pdireval.write_qrels(qrels, path)
    back = pdireval.read_qrels(path)
    expected = qrels.astype({"label": float}).sort_values(["query", "doc"], ignore_index=True)
    assert back["query"].tolist() == expected["query"].tolist()
    assert back["doc"].tolist() == expected["doc"].tolist()
    assert back["label"].tolist() == expected["label"].tolist()


# --------------------------------------------------------------------------- trec_eval's reading


def test_comment_lines_are_skipped(tmp_path):
    qrels = write(tmp_path, "q.txt", "# judged by NIST\n1 0 a 1\n# 0 b 1\n1 0 c 0\n")
    assert pdireval.read_qrels(qrels)["doc"].tolist() == ["a", "c"]
    run = write(tmp_path, "r.txt", "#  run of team x\n1 Q0 a 1 2.0 t\n1 Q0 c 2 1.0 t\n")
    assert pdireval.read_run(run)["doc"].tolist() == ["a", "c"]


@pytest.mark.parametrize("suffix", [".txt", ".gz"])
def test_words_after_the_run_tag_are_ignored(tmp_path, suffix):
    path = write(tmp_path, "r" + suffix, "1 Q0 a 1 2 tagA more words\n1 Q0 b 2 1 tagA\n")
    run = pdireval.read_run(path)
    assert run["system"].tolist() == ["tagA", "tagA"] and run["doc"].tolist() == ["a", "b"]


def test_tab_separated_fields_are_trimmed(tmp_path):
    # trec_eval's test/results.trunc: padded scores, words after the tag, tab-separated
    path = write(tmp_path, "r.txt", "301\tQ0\tFBIS3-1\t99\t  2.138276\tSTANDARD more junk at\n301\tQ0\t FBIS3-2 \t98\t  2.5\tSTANDARD\n")
    run = pdireval.read_run(path)
    assert run["system"].tolist() == ["STANDARD", "STANDARD"]
    assert run["doc"].tolist() == ["FBIS3-1", "FBIS3-2"]
    assert run["score"].tolist() == [2.138276, 2.5]
    qrels = pdireval.read_qrels(write(tmp_path, "q.txt", "301\t0\t FBIS3-1\t1\n"))
    assert qrels["doc"].tolist() == ["FBIS3-1"]


def test_writer_refuses_query_ids_a_reader_would_skip(tmp_path):
    qrels = pd.DataFrame({"query": ["#1"], "doc": ["a"], "label": [1]})
    with pytest.raises(SchemaError, match="start with '#'"):
        pdireval.write_qrels(qrels, tmp_path / "q.txt")
