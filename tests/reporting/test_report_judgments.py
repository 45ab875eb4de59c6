"""The report's judgments-agreement section (report(..., other_qrels=...), CLI --other-qrels)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from pdireval.reporting import report
from tests.helpers import assert_report_headers


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=12, depth=30, rng=2)
    rng = np.random.default_rng(0)
    other = qrels.copy()
    flip = rng.random(len(other)) < 0.2
    other.loc[flip, "label"] = rng.integers(0, 3, int(flip.sum())).astype(float)
    return run, qrels, other


def test_section_appears_with_other_qrels_only(collection, tmp_path):
    run, qrels, other = collection
    with_other = report(run, qrels=qrels, other_qrels=other, measures=["AP", "nDCG"], out=tmp_path / "a",
                        n_resamples=50, rng=1, progress=False)
    assert with_other.sections[-1].key == "judgments"
    agree = with_other.tables["judgment_agreement"]
    direct = pdireval.agreement(qrels, other, n_resamples=0)
    np.testing.assert_allclose(agree["value"], direct["value"])
    assert (agree["ci_low"] <= agree["ci_high"]).all()
    board = with_other.tables["leaderboard_agreement"].set_index("statistic")
    a = pdireval.evaluate(run, ["AP", "nDCG"], qrels=qrels)
    b = pdireval.evaluate(run, ["AP", "nDCG"], qrels=other)
    direct = pdireval.leaderboard_agreement(a, b)
    for m in ("AP", "nDCG"):
        np.testing.assert_allclose(board[m].to_numpy(), direct[direct["measure_a"] == m]["value"].to_numpy())
    confusion = with_other.tables["judgment_confusion"].set_index("label")
    crosstab = pd.crosstab(qrels.merge(other, on=["query", "doc"])["label_x"],
                           qrels.merge(other, on=["query", "doc"])["label_y"])
    assert confusion.loc["1", "other 2"] == crosstab.loc[1.0, 2.0]
    assert confusion.loc["not judged"].sum() == 0
    assert "Agreement of the two sets of judgments" in with_other.html.read_text(encoding="utf-8")
    corr = with_other.tables["leaderboard_correlation"]
    direct = pdireval.leaderboard_correlation(a, b, methods=["kendall", "kendall@10", "spearman"])
    np.testing.assert_allclose(corr["value"], direct["value"])
    pd.testing.assert_frame_equal(with_other.tables["qrels_overlap"], pdireval.qrels_overlap(qrels, other))
    assert_report_headers(with_other)  # the judgments tables too: one header style, human titles
    without = report(run, qrels=qrels, measures=["AP"], out=tmp_path / "b", n_resamples=20, rng=1, progress=False)
    assert "judgment_agreement" not in without.tables
    assert all(s.key != "judgments" for s in without.sections)


def test_cli_other_qrels(collection, tmp_path, capsys):
    run, qrels, other = collection
    run_path, qrels_path, other_path = tmp_path / "run.txt", tmp_path / "qrels.txt", tmp_path / "other.txt"
    pdireval.write_run(run, run_path)
    pdireval.write_qrels(qrels, qrels_path)
    pdireval.write_qrels(other, other_path)
    out = tmp_path / "rep"
    status = main(["report", str(run_path), "--qrels", str(qrels_path), "--other-qrels", str(other_path),
                   "-m", "AP", "--resamples", "20", "--out", str(out), "--no-progress"])
    assert status == 0
    import openpyxl

    sheets = openpyxl.load_workbook(out / "report.xlsx", read_only=True).sheetnames
    assert "judgment_agreement" in sheets and "leaderboard_agreement" in sheets
