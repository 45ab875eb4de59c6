"""The RAG tools' files: nuggetizer, TREC RAG (NIST), AutoJudge NuggetBank and leaderboards,
open-rag-eval. Each format reads back the values the file holds (parsed here independently, with
``json`` and ``str.split``), writes and reads back unchanged, and a malformed file is an error
naming the file and the line. The samples and where they come from: tests/data/rag/PROVENANCE.md.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import typing

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import OptionError, SchemaError
from pdireval.rag import file_scores, file_text
from tests.helpers import ROOT, shared_path

DATA = ROOT / "tests" / "data" / "rag"
WORD = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}


def jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- nuggetizer


def test_nuggetizer_nuggets_are_each_records_list_by_position():
    nuggets = pdireval.read_nuggets(DATA / "nuggetizer_nuggets.jsonl")
    expected = [
        (r["qid"], str(i), n["importance"], n["text"])
        for r in jsonl(DATA / "nuggetizer_nuggets.jsonl")
        for i, n in enumerate(r["nuggets"])
    ]
    got = list(nuggets[["query", "nugget", "importance", "text"]].itertuples(index=False))
    assert sorted(map(tuple, got)) == sorted(expected)
    assert list(nuggets.columns) == ["query", "nugget", "importance", "text"]


def test_the_nuggets_of_an_assignments_file_are_its_lists_once_per_query():
    from_assign = pdireval.read_nuggets(DATA / "nuggetizer_assignments.jsonl")
    from_create = pdireval.read_nuggets(DATA / "nuggetizer_nuggets.jsonl")
    pd.testing.assert_frame_equal(from_assign, from_create)


def test_nuggetizer_assignments_hold_every_records_labels():
    got = pdireval.read_assignments(DATA / "nuggetizer_assignments.jsonl")
    expected = {
        (r["run_id"], r["qid"], str(i)): WORD[n["assignment"]]
        for r in jsonl(DATA / "nuggetizer_assignments.jsonl")
        for i, n in enumerate(r["nuggets"])
    }
    table = {(s, q, n): v for s, q, n, v in got[["system", "query", "nugget", "label"]].values}
    assert table == expected
    assert got["label"].dtype == np.float64


def test_system_and_judge_options_label_every_row(tmp_path):
    lines = (DATA / "nuggetizer_assignments.jsonl").read_text().splitlines()
    path = write(tmp_path / "one_run.jsonl", "\n".join(lines[:2]) + "\n")
    got = pdireval.read_assignments(path, system="mine", judge="gpt-4o")
    assert len(got) == 6
    assert set(got["system"]) == {"mine"} and set(got["judge"]) == {"gpt-4o"}
    # two runs' answers under one system name contradict each other
    with pytest.raises(SchemaError, match="one_run|different labels"):
        pdireval.read_assignments(DATA / "nuggetizer_assignments.jsonl", system="mine")


def test_nuggetizer_metrics_are_the_files_per_query_numbers():
    path = DATA / "nuggetizer_metrics.demo-run.jsonl"
    got = pdireval.read_rag_scores(path, system="demo-run")
    records = [r for r in jsonl(path) if r["qid"] != "all"]
    expected = {(r["qid"], m): r[m] for r in records for m in file_scores.NUGGETIZER_METRICS}
    assert {(q, m): v for q, m, v in got[["query", "measure", "value"]].values} == expected
    assert set(got["system"]) == {"demo-run"}
    kept = pdireval.read_rag_scores(path, all_rows="keep")
    assert set(kept["query"]) == {"q1", "q2", "all"}
    assert set(kept["system"]) == {"nuggetizer_metrics.demo-run"}  # the file name


def test_nuggetizer_metrics_equal_its_formula_on_the_assignments_file():
    """The metrics files (written by nuggetizer 0.0.5) against nuggetizer's definition computed
    here from the assignments file: support 1, partial 0.5 (strict: 0), over all / vital."""
    for run in ("run-123", "demo-run"):
        scores = pdireval.read_rag_scores(DATA / f"nuggetizer_metrics.{run}.jsonl", system=run)
        for record in jsonl(DATA / "nuggetizer_assignments.jsonl"):
            if record["run_id"] != run:
                continue
            items = record["nuggets"]
            vital = [n for n in items if n["importance"] == "vital"]
            expected = {
                "all_score": sum(WORD[n["assignment"]] for n in items) / len(items),
                "strict_all_score": sum(n["assignment"] == "support" for n in items) / len(items),
                "vital_score": sum(WORD[n["assignment"]] for n in vital) / len(vital),
                "strict_vital_score": sum(n["assignment"] == "support" for n in vital) / len(vital),
            }
            mine = scores[scores["query"] == record["qid"]]
            assert dict(zip(mine["measure"], mine["value"])) == pytest.approx(expected, abs=0)


# --------------------------------------------------------------------------- NuggetBank


def test_nuggetbank_questions_claims_and_and_groups():
    nuggets = pdireval.read_nuggets(DATA / "nuggetbank.jsonl", importance="okay")
    banks = jsonl(DATA / "nuggetbank.jsonl")
    md5 = {
        t: hashlib.md5(t.encode()).hexdigest()
        for t in (
            "What conservation efforts exist at Machu Picchu?",
            "Who sets guidelines?",
            "How is wear reduced?",
            "When was Machu Picchu built?",
            "There are unicorns in the world",
        )
    }
    rows = {(q, n): (i, t, g, r) for q, n, i, t, g, r in nuggets.astype(object).values}
    parent = md5["What conservation efforts exist at Machu Picchu?"]
    # the AND question is its two sub-questions, grouped, with its importance
    assert rows[("1", md5["Who sets guidelines?"])] == (
        "vital",
        "Who sets guidelines?",
        parent,
        "and",
    )
    assert rows[("1", md5["How is wear reduced?"])][2:] == (parent, "and")
    assert ("1", parent) not in rows
    assert rows[("1", md5["When was Machu Picchu built?"])][0] == "vital"
    assert rows[("1", md5["There are unicorns in the world"])][:2] == (
        "okay",
        "There are unicorns in the world",
    )
    # the file's ids are the tool's (MD5 of the text), and the nugget without importance got
    # the importance= default
    file_ids = {q["question_id"] for q in banks[0]["nugget_bank"].values()}
    file_ids |= {
        s["question_id"] for q in banks[0]["nugget_bank"].values() for s in q.get("sub_nuggets", [])
    }
    assert file_ids - {parent} == set(nuggets.loc[nuggets["query"] == "1", "nugget"]) - {
        md5["There are unicorns in the world"]
    }
    second = nuggets[nuggets["query"] == "q42"].set_index("text")["importance"]
    assert second.to_dict() == {
        "What is the elevation of Machu Picchu?": "vital",
        "In which mountains does it stand?": "okay",
    }


def test_nuggetbank_without_importance_is_refused_naming_the_fix():
    with pytest.raises(SchemaError, match="no importance"):
        pdireval.read_nuggets(DATA / "nuggetbank.jsonl")


def test_nuggetbank_aggregators_other_than_and_or_are_refused(tmp_path):
    bank = {
        "query_id": "1",
        "title_query": "t",
        "nugget_bank": {
            "q": {
                "question": "q",
                "query_id": "1",
                "aggregator_type": "SUM",
                "importance": "vital",
                "sub_nuggets": [{"question": "a", "query_id": "1"}],
            }
        },
    }
    path = write(tmp_path / "bank.json", json.dumps(bank, indent=2))
    with pytest.raises(SchemaError, match=r"bank.json, line 1: .*SUM.*AND and OR"):
        pdireval.read_nuggets(path)
    bank["nugget_bank"]["q"]["aggregator_type"] = "Default"  # AutoJudge reads it as OR
    path = write(tmp_path / "bank.json", json.dumps(bank, indent=2))
    assert pdireval.read_nuggets(path)["rule"].tolist() == ["or"]


# --------------------------------------------------------------------------- TREC RAG support


def test_trec_rag_support_one_row_per_citation_and_uncited_sentences():
    got = pdireval.read_support(DATA / "trec_rag_support.jsonl")
    grade = {"2": 1.0, "1": 0.5, "0": 0.0}
    expected = set()
    for r in jsonl(DATA / "trec_rag_support.jsonl"):
        for s in r["sentences"]:
            for c in s["citations"] or [None]:
                expected.add(
                    (
                        r["run_id"],
                        r["topic_id"],
                        str(s["sentenceID"]),
                        None if c is None else c["reference"],
                        None if c is None else grade[c["support"]],
                    )
                )
    rows = {
        (s, q, n, None if pd.isna(d) else d, None if np.isnan(v) else v)
        for s, q, n, d, v in got[["system", "query", "sentence", "doc", "label"]]
        .astype(object)
        .values
    }
    assert rows == expected
    assert got["doc"].isna().sum() == 1


def test_a_support_grade_outside_0_1_2_names_the_line(tmp_path):
    lines = (DATA / "trec_rag_support.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"support": "2"', '"support": "-1"')
    path = write(tmp_path / "cites.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(SchemaError, match=r"cites.jsonl, line 2: citation support '-1'"):
        pdireval.read_support(path)


def test_support_table_with_one_label_column_per_judge(tmp_path):
    path = write(
        tmp_path / "pairs.tsv",
        "topic_id\trun_id\tsentence_index\tcitation_slot\thuman_label\tllm_label\n"
        "t1\tr1\t0\t0\tFS\tPS\n"
        "t1\tr1\t1\t0\tNS\tNS\n",
    )
    got = pdireval.read_support(path)
    table = {(j, s): v for j, s, v in got[["judge", "sentence", "label"]].values}
    assert table == {("human", "0"): 1.0, ("llm", "0"): 0.5, ("human", "1"): 0.0, ("llm", "1"): 0.0}


def test_nist_support_grades_in_a_table_read_as_grades(tmp_path):
    path = write(
        tmp_path / "cites.tsv",
        "topic_id\trun_id\tsentence_id\tcitation_id\treference\tsupport\n"
        "t1\tr1\t0\t0\td1\t2\nt1\tr1\t0\t1\td2\t1\nt1\tr1\t1\t0\td1\t0\n",
    )
    got = pdireval.read_support(path)
    assert got[["doc", "label"]].values.tolist() == [["d1", 1.0], ["d2", 0.5], ["d1", 0.0]]


# --------------------------------------------------------------------------- AutoJudge


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("autojudge_leaderboard.tot.txt", "autojudge_tot"),
        ("autojudge_leaderboard.ir_measures.txt", "autojudge_ir_measures"),
        ("autojudge_leaderboard.rag4reports.txt", "autojudge_rag4reports"),
    ],
)
def test_autojudge_leaderboards_are_sniffed_by_their_all_rows_and_read(name, fmt):
    columns = file_scores.LEADERBOARD_COLUMNS[fmt]
    expected = {}
    for line in (DATA / name).read_text().splitlines():
        row = dict(zip(columns, line.split()))
        if row["query"] != "all":
            expected[(row["system"], row["query"], row["measure"])] = float(row["value"])
    got = pdireval.read_rag_scores(DATA / name)
    assert {(s, q, m): v for s, q, m, v in got.values} == expected
    pd.testing.assert_frame_equal(got, pdireval.read_rag_scores(DATA / name, format=fmt))


def test_autojudge_booleans_read_as_one_and_zero():
    got = pdireval.read_rag_scores(DATA / "autojudge_readme.tot.txt")
    match = got[got["measure"] == "IS_MATCH"]
    assert dict(zip(zip(match["system"], match["query"]), match["value"])) == {
        ("runA", "t1"): 1.0,
        ("runA", "t2"): 0.0,
        ("runB", "t1"): 1.0,
        ("runB", "t2"): 1.0,
    }


def test_a_leaderboard_without_all_rows_is_ambiguous_and_says_which_formats(tmp_path):
    path = write(tmp_path / "lb.txt", "runA\tGRADE\tt1\t0.9\nrunA\tGRADE\tt2\t0.4\n")
    with pytest.raises(SchemaError, match=r"autojudge_tot.*autojudge_ir_measures.*format="):
        pdireval.read_rag_scores(path)
    got = pdireval.read_rag_scores(path, format="autojudge_tot")
    assert got["query"].tolist() == ["t1", "t2"]


def test_a_leaderboard_line_of_three_fields_names_the_line(tmp_path):
    path = write(tmp_path / "lb.txt", "runA\tGRADE\tt1\t0.9\nrunA\tGRADE\t0.4\n")
    with pytest.raises(SchemaError, match=r"lb.txt, line 2: 3 fields"):
        pdireval.read_rag_scores(path, format="autojudge_tot")


def test_a_non_numeric_value_names_the_line(tmp_path):
    path = write(tmp_path / "lb.txt", "runA\tGRADE\tt1\t0.9\nrunA\tGRADE\tt2\thigh\n")
    with pytest.raises(SchemaError, match=r"lb.txt, line 2: value 'high'"):
        pdireval.read_rag_scores(path, format="autojudge_tot")


# --------------------------------------------------------------------------- open-rag-eval


def test_open_rag_eval_results_read_from_the_json_cells():
    path = DATA / "open_rag_eval_results.csv"
    got = pdireval.read_rag_scores(path, system="vectara")
    table = pd.read_csv(path, dtype=str)
    first = table.iloc[0]
    nuggetizer = json.loads(first["run_1_generation_score_autonugget_scores"])["nuggetizer_scores"]
    citations = json.loads(first["run_1_generation_score_citation_scores"])
    precision = json.loads(first["run_1_retrieval_score_precision_metrics"])
    mine = got[got["query"] == first["query_id"]]
    values = dict(zip(mine["measure"], mine["value"]))
    assert values["nugget_vital_strict"] == nuggetizer["Vital Strict"]
    assert values["nugget_weighted"] == nuggetizer["Weighted"]
    assert values["vital_nuggetizer_score"] == json.loads(
        first["run_1_generation_score_vital_nuggetizer_score"]
    )
    assert values["citation_weighted_recall"] == citations["weighted_recall"]
    assert values["citation_f1_score"] == citations["f1"]
    assert values["precision@3"] == precision["precision@"]["3"]
    assert values["query_answered"] == 1.0
    assert set(got["query"]) == set(table["query_id"])
    assert "repeat" not in got.columns


def test_open_rag_eval_repeated_answers_get_a_repeat_column():
    got = pdireval.read_rag_scores(DATA / "open_rag_eval_results.repeats.csv")
    assert sorted(got["repeat"].unique()) == [1, 2]
    answered = got[got["measure"] == "query_answered"].set_index(["query", "repeat"])["value"]
    assert answered.to_dict() == {
        ("query_1", 1): 1.0,
        ("query_1", 2): 1.0,
        ("query_2", 1): 1.0,
        ("query_2", 2): 0.0,
    }
    hhem = got[got["measure"] == "hallucination_score"].set_index(["query", "repeat"])["value"]
    assert hhem[("query_1", 2)] == 0.64


# --------------------------------------------------------------------------- round trips


def test_nuggets_round_trip_through_both_formats(tmp_path):
    nuggets = pdireval.read_nuggets(DATA / "nuggetizer_nuggets.jsonl")
    for fmt, name in (("nuggetizer", "n.jsonl"), ("table", "n.tsv.gz")):
        pdireval.write_nuggets(nuggets, tmp_path / name, format=fmt)
        pd.testing.assert_frame_equal(pdireval.read_nuggets(tmp_path / name), nuggets)
    grouped = pdireval.read_nuggets(DATA / "nuggetbank.jsonl", importance="okay")
    pdireval.write_nuggets(grouped, tmp_path / "g.tsv", format="table")
    pd.testing.assert_frame_equal(pdireval.read_nuggets(tmp_path / "g.tsv"), grouped)
    with pytest.raises(SchemaError, match="no AND / OR groups"):
        pdireval.write_nuggets(grouped, tmp_path / "g.jsonl")


def test_numeric_weights_round_trip_through_a_table(tmp_path):
    nuggets = pd.DataFrame(
        {"query": ["q1", "q1"], "nugget": ["a", "b"], "importance": [2.0, 0.5], "text": ["x", "y"]}
    )
    pdireval.write_nuggets(nuggets, tmp_path / "w.csv", format="table")
    got = pdireval.read_nuggets(tmp_path / "w.csv")
    assert got["importance"].tolist() == [2.0, 0.5]


def test_assignments_round_trip_and_stay_readable_by_nuggetizers_schema(tmp_path):
    nuggets = pdireval.read_nuggets(DATA / "nuggetizer_assignments.jsonl")
    assignments = pdireval.read_assignments(DATA / "nuggetizer_assignments.jsonl")
    pdireval.write_assignments(assignments, tmp_path / "a.jsonl", nuggets=nuggets)
    pd.testing.assert_frame_equal(pdireval.read_assignments(tmp_path / "a.jsonl"), assignments)
    pd.testing.assert_frame_equal(pdireval.read_nuggets(tmp_path / "a.jsonl"), nuggets)
    # the records a nuggetizer user reads: the original's qid, run_id, and nugget dicts
    original = {
        (r["run_id"], r["qid"]): r["nuggets"] for r in jsonl(DATA / "nuggetizer_assignments.jsonl")
    }
    written = {(r["run_id"], r["qid"]): r["nuggets"] for r in jsonl(tmp_path / "a.jsonl")}
    assert written == original
    pdireval.write_assignments(assignments, tmp_path / "a.tsv", format="table")
    pd.testing.assert_frame_equal(pdireval.read_assignments(tmp_path / "a.tsv"), assignments)
    with pytest.raises(OptionError, match="needs nuggets="):
        pdireval.write_assignments(assignments, tmp_path / "b.jsonl")
    with pytest.raises(SchemaError, match="has 3 assignments for the query's 4 nuggets"):
        pdireval.write_assignments(assignments.iloc[1:], tmp_path / "b.jsonl", nuggets=nuggets)


def test_support_round_trips_through_nists_format_and_a_table(tmp_path):
    support = pdireval.read_support(DATA / "trec_rag_support.jsonl")
    pdireval.write_support(support, tmp_path / "s.jsonl.gz")
    pd.testing.assert_frame_equal(pdireval.read_support(tmp_path / "s.jsonl.gz"), support)
    with gzip.open(tmp_path / "s.jsonl.gz", "rt") as handle:
        first = json.loads(handle.readline())
    assert first["sentences"][1]["citations"][1] == {
        "citationID": 1,
        "reference": "doc_2#3_9",
        "support": "0",
    }
    pdireval.write_support(support, tmp_path / "s.tsv", format="table")
    pd.testing.assert_frame_equal(pdireval.read_support(tmp_path / "s.tsv"), support)


@pytest.mark.parametrize("fmt", file_scores.RAG_SCORES_WRITE_FORMATS[1:])
def test_leaderboards_round_trip(tmp_path, fmt):
    scores = pdireval.read_rag_scores(DATA / "autojudge_readme.tot.txt")
    pdireval.write_rag_scores(scores, tmp_path / "lb.txt", format=fmt)
    pd.testing.assert_frame_equal(pdireval.read_rag_scores(tmp_path / "lb.txt"), scores)
    means = pdireval.read_rag_scores(tmp_path / "lb.txt", all_rows="keep")
    grade = means[(means["query"] == "all") & (means["measure"] == "GRADE")]
    assert dict(zip(grade["system"], grade["value"])) == pytest.approx({"runA": 0.65, "runB": 0.65})


def test_nuggetizer_metrics_written_as_nuggetizer_writes_them(tmp_path):
    path = DATA / "nuggetizer_metrics.run-123.jsonl"
    scores = pdireval.read_rag_scores(path, system="run-123")
    pdireval.write_rag_scores(scores, tmp_path / "m.jsonl", format="nuggetizer")
    assert jsonl(tmp_path / "m.jsonl") == jsonl(path)
    with pytest.raises(SchemaError, match="one run"):
        both = pd.concat([scores, scores.assign(system="other")], ignore_index=True)
        pdireval.write_rag_scores(both, tmp_path / "m.jsonl", format="nuggetizer")


# --------------------------------------------------------------------------- errors


def test_a_malformed_jsonl_line_is_named(tmp_path):
    lines = (DATA / "nuggetizer_assignments.jsonl").read_text().splitlines()
    lines[2] = lines[2][:-5]
    path = write(tmp_path / "a.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(SchemaError, match=r"a.jsonl, line 3: not a JSON record"):
        pdireval.read_assignments(path)


def test_a_record_without_run_id_asks_for_system(tmp_path):
    record = jsonl(DATA / "nuggetizer_assignments.jsonl")[0]
    del record["run_id"]
    path = write(tmp_path / "a.jsonl", json.dumps(record) + "\n")
    with pytest.raises(SchemaError, match=r"a.jsonl, line 1: .*no run_id.*system="):
        pdireval.read_assignments(path)
    assert set(pdireval.read_assignments(path, system="x")["system"]) == {"x"}


def test_a_nuggets_file_is_not_an_assignments_file(tmp_path):
    with pytest.raises(SchemaError, match=r"line 1: nugget 0 .*no 'assignment'"):
        pdireval.read_assignments(DATA / "nuggetizer_nuggets.jsonl")


def test_records_disagreeing_on_a_querys_nuggets_are_refused(tmp_path):
    records = jsonl(DATA / "nuggetizer_assignments.jsonl")
    records[2]["nuggets"][1]["text"] = "Something else"
    path = write(tmp_path / "a.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(SchemaError, match=r"lines 1, 3: query 'q1' has differing nuggets"):
        pdireval.read_nuggets(path)


def test_a_label_outside_the_vocabulary_is_refused_naming_the_file(tmp_path):
    path = write(tmp_path / "a.tsv", "qid\trun_id\tnugget_id\tassignment\nq1\tr\t0\tsupported\n")
    with pytest.raises(SchemaError, match=r"a.tsv: .*outside the vocabulary"):
        pdireval.read_assignments(path)


def test_a_table_row_with_an_empty_id_names_the_line(tmp_path):
    path = write(tmp_path / "n.tsv", "qid\tnugget_id\timportance\nq1\t0\tvital\nq1\t\tokay\n")
    with pytest.raises(SchemaError, match=r"n.tsv, line 3: .*empty 'nugget'"):
        pdireval.read_nuggets(path)


def test_a_malformed_table_row_is_named(tmp_path):
    path = write(tmp_path / "n.tsv", "qid\tnugget_id\timportance\nq1\t0\tvital\tx\textra\n")
    with pytest.raises(SchemaError, match=r"n.tsv, line 2: 5 fields where the header has 3"):
        pdireval.read_nuggets(path)
    path = write(tmp_path / "n.tsv", "qid\tnugget_id\timportance\nq1\t0\tvital\nq1\t1\n")
    with pytest.raises(SchemaError, match=r"n.tsv, line 3: 2 fields where the header has 3"):
        pdireval.read_nuggets(path)


def test_a_metrics_file_holding_a_query_twice_is_refused(tmp_path):
    text = (DATA / "nuggetizer_metrics.run-123.jsonl").read_text()
    lines = text.splitlines()
    path = write(tmp_path / "m.jsonl", "\n".join([lines[0], lines[0], lines[-1]]) + "\n")
    with pytest.raises(SchemaError, match=r"m.jsonl, line 2: query 'q1' appears twice"):
        pdireval.read_rag_scores(path)


def test_unknown_formats_and_unsniffable_files(tmp_path):
    with pytest.raises(OptionError, match="format="):
        pdireval.read_nuggets(DATA / "nuggetbank.jsonl", format="nuggetbank_v2")
    path = write(tmp_path / "x.txt", "hello world\n")
    with pytest.raises(SchemaError, match=r"x.txt: cannot tell .*format= one of"):
        pdireval.read_nuggets(path)
    with pytest.raises(SchemaError, match="no such nuggets file"):
        pdireval.read_nuggets(tmp_path / "absent.jsonl")


def test_format_literals_match_the_tuples():
    pairs = [
        (file_text.NuggetsFormat, file_text.NUGGETS_FORMATS),
        (file_text.AssignmentsFormat, file_text.ASSIGNMENTS_FORMATS),
        (file_text.SupportFormat, file_text.SUPPORT_FORMATS),
        (file_scores.RagScoresFormat, file_scores.RAG_SCORES_FORMATS),
        (file_scores.RagScoresWriteFormat, file_scores.RAG_SCORES_WRITE_FORMATS),
    ]
    for alias, values in pairs:
        assert set(typing.get_args(alias)) == set(values)


# --------------------------------------------------------------------------- TREC 2024 RAG


@pytest.mark.slow
def test_the_trec_2024_rag_judgments_round_trip_through_nists_record_formats(tmp_path):
    """The staged NIST judgments written back as NIST's one-record-per-answer JSONL (nugget
    assignments; citation judgments) read back unchanged."""
    folder = shared_path("rag", "trec-rag24")
    nuggets = pdireval.read_nuggets(folder / "nuggets.jsonl")
    assignments = pdireval.read_assignments(folder / "assignments.tsv")
    pdireval.write_assignments(assignments, tmp_path / "nugget_assignment.jsonl", nuggets=nuggets)
    first = jsonl(tmp_path / "nugget_assignment.jsonl")[0]
    assert set(first) == {"qid", "run_id", "nuggets"}
    assert set(first["nuggets"][0]) == {"text", "importance", "assignment"}
    back = pdireval.read_assignments(tmp_path / "nugget_assignment.jsonl")
    pd.testing.assert_frame_equal(back, assignments)
    pd.testing.assert_frame_equal(
        pdireval.read_nuggets(tmp_path / "nugget_assignment.jsonl"), nuggets
    )
    support = pdireval.read_support(folder / "citation_support.postedit.tsv")
    pdireval.write_support(support, tmp_path / "citations.jsonl")
    pd.testing.assert_frame_equal(pdireval.read_support(tmp_path / "citations.jsonl"), support)


@pytest.mark.slow
def test_the_trec_2024_rag_files_read_with_the_counts_of_their_provenance():
    folder = shared_path("rag", "trec-rag24")
    nuggets = pdireval.read_nuggets(folder / "nuggets.jsonl")
    assert len(nuggets) == 298 and nuggets["query"].nunique() == 21
    assert nuggets["importance"].value_counts().to_dict() == {"vital": 203, "okay": 95}
    assignments = pdireval.read_assignments(folder / "assignments.tsv")
    assert len(assignments) == 13158
    assert assignments["system"].nunique() == 45
    counts = assignments["label"].value_counts().to_dict()
    assert counts == {0.0: 7909, 1.0: 4813, 0.5: 436}
    raw = pd.read_csv(folder / "assignments.tsv", sep="\t", dtype=str)
    merged = assignments.astype(str).merge(
        raw.rename(columns={"qid": "query", "run_id": "system", "nugget_id": "nugget"}),
        on=["system", "query", "nugget"],
    )
    assert (merged["label"].astype(float) == merged["assignment"].map(WORD)).all()
    postedit = pdireval.read_support(folder / "citation_support.postedit.tsv")
    scratch = pdireval.read_support(folder / "citation_support.scratch.tsv")
    assert len(postedit) == 4165 and len(scratch) == 2840
    assert not set(postedit["query"]) & set(scratch["query"])  # the two conditions
    pairs = pdireval.read_support(folder / "citation_support.human_vs_llm.tsv")
    assert set(pairs["judge"]) == {"human", "llm"} and pairs["query"].nunique() == 22


def test_evaluate_nuggets_on_the_read_files_equals_nuggetizers_metrics_files():
    """The files read back feed evaluate_nuggets, whose numbers are nuggetizer's own (its
    metrics files, computed by nuggetizer 0.0.5 from the same assignments file)."""
    assignments = pdireval.read_assignments(DATA / "nuggetizer_assignments.jsonl")
    nuggets = pdireval.read_nuggets(DATA / "nuggetizer_assignments.jsonl")
    names = list(file_scores.NUGGETIZER_METRICS)
    ours = pdireval.evaluate_nuggets(assignments, names, nuggets=nuggets)
    theirs = pd.concat(
        [
            pdireval.read_rag_scores(DATA / f"nuggetizer_metrics.{run}.jsonl", system=run)
            for run in ("run-123", "demo-run")
        ]
    )
    assert set(ours["measure"]) == {"A", "A_strict", "V", "V_strict"}
    canonical = dict(zip(names, ("V_strict", "A_strict", "V", "A")))
    theirs = theirs.assign(measure=theirs["measure"].map(canonical))
    key = ["system", "query", "measure"]
    joined = ours.astype({k: str for k in key}).merge(
        theirs.astype({k: str for k in key}), on=key, suffixes=("", "_nuggetizer")
    )
    assert len(joined) == len(ours) == 16
    assert (joined["value"] == joined["value_nuggetizer"]).all()


def test_a_leaderboard_giving_one_cell_twice_is_refused_naming_the_file(tmp_path):
    path = write(tmp_path / "lb.txt", "runA\tGRADE\tt1\t0.9\nrunA\tGRADE\tt1\t0.4\n")
    with pytest.raises(
        SchemaError, match=r"lb.txt: .*2 rows sharing a \(system, query, measure\) key"
    ):
        pdireval.read_rag_scores(path, format="autojudge_tot")


def test_nuggetizers_format_needs_position_ids(tmp_path):
    nuggets = pd.DataFrame(
        {"query": ["q1", "q1"], "nugget": ["a", "b"], "importance": ["vital", "okay"]}
    )
    with pytest.raises(SchemaError, match=r"nugget 'a' of query 'q1' is not at position"):
        pdireval.write_nuggets(nuggets, tmp_path / "n.jsonl")


def test_support_judge_option_and_no_reference(tmp_path):
    got = pdireval.read_support(DATA / "trec_rag_support.jsonl", judge="nist")
    assert set(got["judge"]) == {"nist"}
    lines = (DATA / "trec_rag_support.jsonl").read_text().splitlines()
    path = write(tmp_path / "c.jsonl", lines[0].replace('"reference": "doc_1#0_1", ', "", 1) + "\n")
    with pytest.raises(
        SchemaError, match=r"c.jsonl, line 1: a citation of sentence 0 has no 'reference'"
    ):
        pdireval.read_support(path)


def test_a_folder_of_nugget_banks_is_read_as_one_frame(tmp_path):
    """AutoJudge's directory layout: one ``<query>.json.gz`` bank per query."""
    folder = tmp_path / "banks"
    folder.mkdir()
    for i, line in enumerate((DATA / "nuggetbank.jsonl").read_text().splitlines()):
        with gzip.open(folder / f"bank{i}.json.gz", "wt") as handle:
            handle.write(json.dumps(json.loads(line), indent=2))
    write(folder / "README.txt", "not a bank")
    got = pdireval.read_nuggets(folder, importance="okay")
    pd.testing.assert_frame_equal(
        got, pdireval.read_nuggets(DATA / "nuggetbank.jsonl", importance="okay")
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SchemaError, match="holds no nuggets file"):
        pdireval.read_nuggets(empty)


def test_open_rag_eval_columns_without_run_prefix(tmp_path):
    """Older open-rag-eval releases wrote the score columns without ``run_1_`` (its plotting
    code reads both)."""
    text = (DATA / "open_rag_eval_results.csv").read_text().replace("run_1_", "")
    path = write(tmp_path / "old.csv", text)
    pd.testing.assert_frame_equal(
        pdireval.read_rag_scores(path, system="x"),
        pdireval.read_rag_scores(DATA / "open_rag_eval_results.csv", system="x"),
    )


def _frames():
    from hypothesis import strategies as st

    label = st.sampled_from(["support", "partial_support", "not_support", 1, 0.5, 0])
    row = st.tuples(st.sampled_from(["s1", "s 2", "s-3"]), st.sampled_from(["q1", "7", "q.3"]))
    return st.lists(st.tuples(row, label), min_size=1, max_size=12)


@pytest.mark.slow
def test_assignment_and_support_tables_round_trip_any_frame(tmp_path):
    from hypothesis import given, settings

    @settings(max_examples=25, deadline=None)
    @given(_frames())
    def check(rows):
        assignments = pd.DataFrame(
            [(s, q, str(i), lab) for i, ((s, q), lab) in enumerate(rows)],
            columns=["system", "query", "nugget", "label"],
        )
        canonical = pdireval.validate_assignments(assignments)
        pdireval.write_assignments(canonical, tmp_path / "a.tsv", format="table")
        pd.testing.assert_frame_equal(pdireval.read_assignments(tmp_path / "a.tsv"), canonical)
        grade = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
        support = pd.DataFrame(
            [(s, q, str(i), f"d{i}", grade.get(lab, lab)) for i, ((s, q), lab) in enumerate(rows)],
            columns=["system", "query", "sentence", "doc", "label"],
        )
        canonical = pdireval.validate_support(support)
        for fmt, name in (("table", "s.tsv"), ("trec_rag", "s.jsonl")):
            pdireval.write_support(canonical, tmp_path / name, format=fmt)
            pd.testing.assert_frame_equal(pdireval.read_support(tmp_path / name), canonical)

    check()
