"""Every row of docs/coming-from.md's side-by-side tables, checked against the tool itself.

The tables are read from the page, so a row added there is tested here: trec_eval rows
against the trec_eval 9.0.8 binary (built from ../shared/oracles; skipped with the reason when
it cannot be built), ir_measures rows against ir_measures, ranx rows against ranx, per query,
on a simulated collection with graded and negative labels and no score ties (ranx keeps tied
documents in input order, which is the one documented difference).
"""

from __future__ import annotations

import functools
import io
import re
import subprocess
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "coming-from.md"
TWO = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \|$")
FLAGS = re.compile(r"^\| `trec_eval ([^`]*)QRELS RUN` \| `pdireval trec_eval ([^`]*)QRELS RUN` \|")


def section(title: str) -> list[str]:
    text = PAGE.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end].splitlines()


def rows(title: str) -> list[tuple[str, str]]:
    found = [TWO.match(line).groups() for line in section(title) if TWO.match(line)]
    assert found, f"no table rows under '## {title}'"
    return found


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=15, depth=40, score_decimals=None, rng=12)
    return run, qrels


# --------------------------------------------------------------------------- trec_eval


@pytest.fixture(scope="module")
def trec_eval(te9):
    """The trec_eval 9.0.8 binary (built once per session by conftest's ``te9``)."""
    return te9


@pytest.fixture(scope="module")
def files(collection, tmp_path_factory):
    run, qrels = collection
    folder = tmp_path_factory.mktemp("files")
    one = run[run["system"] == "sys01"]
    one = one[one["query"] != one["query"].iloc[0]]  # a judged query the run does not answer
    pdireval.write_run(one, folder / "run.txt")
    pdireval.write_qrels(qrels, folder / "qrels.txt")
    return str(folder / "qrels.txt"), str(folder / "run.txt")


def ours(*argv) -> str:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(["trec_eval", *argv]) == 0
    return buffer.getvalue()


def same_as_binary(binary, argv):
    mine = ours(*argv)
    names = {line.split("\t")[0].strip() for line in mine.splitlines()}
    done = subprocess.run([binary, *argv], capture_output=True, text=True, timeout=120)
    kept = [line for line in done.stdout.splitlines() if line.split("\t")[0].strip() in names]
    assert mine.splitlines() == kept, argv
    return mine


def test_trec_eval_flag_rows(trec_eval, files):
    found = [FLAGS.match(line).groups() for line in section("trec_eval") if FLAGS.match(line)]
    assert len(found) >= 10
    for theirs, mine in found:
        assert theirs == mine  # the same arguments
        argv = [*theirs.split(), *files]
        out = same_as_binary(trec_eval, argv)
        assert ("-n" in argv and "\tall\t" not in out) or "\tall\t" in out


def test_trec_eval_name_rows(trec_eval, files):
    for theirs, mine in rows("trec_eval"):
        assert pdireval.parse_measure(theirs) == pdireval.parse_measure(mine), theirs
        if not re.search(r"_\d+$", theirs):  # a -m form: the binary prints the same line
            out = same_as_binary(trec_eval, ["-q", "-m", theirs, *files])
            assert out.strip(), theirs


# --------------------------------------------------------------------------- ir_measures


def test_ir_measures_rows(collection):
    import ir_measures

    run, qrels = collection
    ir_run = run.rename(columns={"query": "query_id", "doc": "doc_id"})
    ir_qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "label": "relevance"}).astype({"relevance": int})
    table = rows("ir_measures")
    assert len(table) >= 20
    for theirs, mine in table:
        measure = eval(theirs, vars(ir_measures))  # noqa: S307 - the page's own text
        for system, part in ir_run.groupby("system"):
            expected = {
                m.query_id: m.value
                for m in ir_measures.iter_calc([measure], ir_qrels, part[["query_id", "doc_id", "score"]])
            }
            got = pdireval.evaluate(part, mine, qrels=ir_qrels, missing="drop")
            got = dict(zip(got["query"], got["value"]))
            assert set(got) == set(expected), theirs
            gdeval = theirs.startswith("ERR") or "exp-log2" in theirs  # prints 5 decimals
            atol = 5.1e-6 if gdeval else 1e-9
            for query, value in expected.items():
                assert got[query] == pytest.approx(value, abs=atol), (theirs, mine, system, query)


# --------------------------------------------------------------------------- ranx


@pytest.mark.slow  # ranx: its numba kernels compile on first use (conftest's session fixture)
@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")  # inside ranx
def test_ranx_rows(collection, ranx):
    run, qrels = collection
    qrels = qrels.assign(label=qrels["label"].clip(lower=0))  # ranx has no negative labels
    plain = {"query": object, "doc": object}
    ranx_qrels = ranx.Qrels.from_df(qrels.astype({**plain, "label": int}), q_id_col="query", doc_id_col="doc", score_col="label")
    table = rows("ranx")
    assert len(table) >= 15
    for system, part in run.groupby("system"):
        ranx_run = ranx.Run.from_df(part.astype(plain), q_id_col="query", doc_id_col="doc", score_col="score")
        for theirs, mine in table:
            assert pdireval.parse_measure(theirs) == pdireval.parse_measure(mine), theirs
            values = ranx.evaluate(ranx_qrels, ranx_run, theirs, return_mean=False, make_comparable=True)
            expected = dict(zip(ranx_qrels.get_query_ids(), np.asarray(values, dtype=float)))
            got = pdireval.evaluate(part, mine, qrels=qrels)
            got = dict(zip(got["query"], got["value"]))
            for query, value in expected.items():
                assert got[query] == pytest.approx(value, abs=1e-9), (theirs, mine, system, query)


# --------------------------------------------------------------------------- PyTerrier


def test_pyterrier_rows(collection):
    run, qrels = collection
    one = run[run["system"] == "sys01"]
    results = one.drop(columns="system").rename(columns={"query": "qid", "doc": "docno"})
    results = results.assign(rank=results["rank"] - 1, query="text", docid=np.arange(len(results)))
    pt_qrels = qrels.rename(columns={"query": "qid", "doc": "docno"})
    got = pdireval.evaluate(results, ["AP", "nDCG@10"], qrels=pt_qrels)
    expected = pdireval.evaluate(one, ["AP", "nDCG@10"], qrels=qrels)
    np.testing.assert_array_equal(got["value"].to_numpy(), expected["value"].to_numpy())
    scores = pdireval.evaluate(run, ["AP"], qrels=qrels)
    experiment = scores.rename(columns={"system": "name", "query": "qid"})
    seeded_compare = functools.partial(pdireval.compare, rng=0)  # the same resamples for both
    for function in (seeded_compare, pdireval.reliability, pdireval.correlate):
        pd.testing.assert_frame_equal(function(experiment), function(scores))
