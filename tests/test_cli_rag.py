"""`pdireval nuggets` and `pdireval support`: per-system tables like `pdireval evaluate`."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from pdireval.cli import main


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    assignments = pd.DataFrame(
        {
            "run_id": ["a"] * 4 + ["b"] * 4,
            "qid": ["q1", "q1", "q2", "q2"] * 2,
            "nugget_id": [0, 1, 0, 1] * 2,
            "assignment": ["support", "partial_support", "not_support", "support",
                           "support", "support", "partial_support", "not_support"],
        }
    )
    nuggets = pd.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "nugget_id": [0, 1, 0, 1],
                            "importance": ["vital", "okay", "vital", "okay"]})
    assignments.to_csv(tmp_path / "a.tsv", sep="\t", index=False)
    nuggets.to_json(tmp_path / "n.jsonl", orient="records", lines=True)
    support = pd.DataFrame({"run_id": "a", "topic_id": "q1", "sentence_id": [0, 0, 1],
                            "reference": ["d1", "d2", None], "support": ["FS", "NS", None]})
    support.to_csv(tmp_path / "s.csv", index=False)
    return tmp_path


def test_nuggets_table(files):
    status, out, _ = run(["nuggets", str(files / "a.tsv"), "--nuggets", str(files / "n.jsonl"),
                          "-m", "V_strict", "-m", "all_score"])
    assert status == 0
    lines = [line.split("\t") for line in out.splitlines()]
    # a: V_strict = (1 + 0) / 2 per query -> mean .5; A = (1.5/2 + 1/2) / 2 = .625
    # b: V_strict = (1 + 0) / 2 -> .5; A = (2/2 + .5/2) / 2 = .625
    assert [(f[0].strip(), f[2]) for f in lines] == [
        ("runid", "a"), ("num_q", "2"), ("V_strict", "0.5000"), ("A", "0.6250"),
        ("runid", "b"), ("num_q", "2"), ("V_strict", "0.5000"), ("A", "0.6250")]


def test_nuggets_csv_per_query(files):
    status, out, _ = run(["nuggets", str(files / "a.tsv"), "--nuggets", str(files / "n.jsonl"),
                          "-m", "W", "--per-query", "--format", "csv"])
    assert status == 0
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns) == ["system", "query", "measure", "value"]
    # a, q2: W = (1 * 0 + .5 * 1) / 1.5
    assert frame.set_index(["system", "query"]).loc[("a", "q2"), "value"] == pytest.approx(1 / 3)


def test_support_table_and_errors(files):
    status, out, _ = run(["support", str(files / "s.csv"), "--ci", "t"])
    assert status == 0
    assert "support_precision\tall\t0.5000" in out.replace(" ", "")
    status, _, err = run(["nuggets", str(files / "a.tsv")])
    assert status == 1 and "importance" in err
    (files / "x.xls").write_text("")
    status, _, err = run(["support", str(files / "x.xls")])
    assert status == 1 and "extension" in err


@pytest.mark.slow
def test_report_takes_nugget_scores(files, tmp_path):
    import pdireval

    ranked, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=2, depth=10, rng=3)
    mapping = dict(zip(sorted(ranked["system"].unique()), ["a", "b"]))
    ranked = ranked.assign(system=ranked["system"].map(mapping))
    pdireval.write_run(ranked, tmp_path / "runs.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    status, out, _ = run(["nuggets", str(files / "a.tsv"), "--nuggets",
                              str(files / "n.jsonl"), "--per-query", "--format", "csv"])
    (tmp_path / "scores.csv").write_text(out)
    status, _, err = run(["report", str(tmp_path / "runs.txt"), "--qrels",
                              str(tmp_path / "qrels.txt"), "-m", "AP", "--resamples", "20",
                              "--nugget-scores", str(tmp_path / "scores.csv"), "--out",
                              str(tmp_path / "rep"), "--no-progress"])
    assert status == 0, err
    assert "RAG answers" in (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")

