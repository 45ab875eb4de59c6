"""What a newcomer with real habits runs into (the neighbouring tools' argument order, no
measures named, a compressed run given to the trec_eval command): each answered with what to
do instead of a bare Python error or a wrong-looking line."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

import pdireval
from pdireval.cli import main
from pdireval.evaluation import DEFAULT_MEASURES

RUN, QRELS = pdireval.datasets.simulate(n_systems=2, n_queries=4, depth=10, rng=3)


def test_qrels_by_position_names_the_keyword():
    """pytrec_eval and ir_measures take qrels by position; pdireval by name."""
    with pytest.raises(TypeError) as info:
        pdireval.evaluate(RUN, ["AP"], QRELS)
    message = str(info.value)
    assert "evaluate() takes 2 arguments by position (run, measures)" in message
    assert "got 3 by position" in message and "e.g. evaluate(run, measures, qrels=qrels)" in message
    with pytest.raises(TypeError, match=r"e.g. evaluate\(run, measures, qrels=qrels\)"):
        RUN.ireval.evaluate(["AP"], QRELS)
    with pytest.raises(
        TypeError,
        match=r"report\(\) takes 1 arguments by position .run.*report\(run, qrels=qrels\)",
    ):
        pdireval.report(RUN, QRELS)
    with pytest.raises(TypeError, match=r"e.g. fuse\(runs, method, k=k\)"):
        pdireval.fuse(RUN, "combsum", 60)


def test_evaluate_without_measures_gives_the_command_lines_defaults():
    from pdireval.cli import DEFAULT_MEASURES as COMMAND_DEFAULTS

    scores = pdireval.evaluate(RUN, qrels=QRELS)
    assert list(pd.unique(scores["measure"])) == list(DEFAULT_MEASURES) == COMMAND_DEFAULTS
    pd.testing.assert_frame_equal(
        scores, pdireval.evaluate(RUN, list(DEFAULT_MEASURES), qrels=QRELS)
    )
    pd.testing.assert_frame_equal(scores, RUN.ireval.evaluate(qrels=QRELS))


@pytest.mark.parametrize("kind", ["gzip", "bzip2"])
def test_trec_eval_on_a_compressed_run_says_so(kind, tmp_path, capsys):
    import bz2

    run = b"1 Q0 d1 1 1.0 s\n"
    (tmp_path / "q").write_text("1 0 d1 1\n")
    path = tmp_path / ("run.gz" if kind == "gzip" else "run.bz2")
    path.write_bytes(gzip.compress(run) if kind == "gzip" else bz2.compress(run))
    assert (
        main(["trec_eval", str(tmp_path / "q"), str(path)]) == 2
    )  # as the binaries' malformed line
    err = capsys.readouterr().err
    assert (
        f"is {kind}-compressed; trec_eval reads plain text" in err and "trec_eval_compressed" in err
    )
    assert ("pdireval evaluate" in err) == (kind == "gzip")
    assert "\\x1f" not in err and "\\x" not in err  # no bytes shown as a line
