"""Where pdireval's float32 warning points and how often it shows: at the user's line (not at
pdireval's own source, whichever entry point), once per line under Python's default filter
(whatever counts its text holds), every time under "always" (as test runners set it), and
never once the user has chosen a ``score_precision``."""

from __future__ import annotations

import warnings
from pathlib import Path

import dask.dataframe as dd
import pandas as pd
import pytest

import pdireval
import pdireval.dask as pdask

#: d1 (relevant) above d2 as doubles; both inf at float32, so the tie changes AP
RUN = pd.DataFrame(
    {"system": "a", "query": "1", "doc": ["d1", "d2", "d3"], "score": [2e40, 1e40, -1.0]}
)
QRELS = pd.DataFrame({"query": "1", "doc": ["d1", "d3"], "label": [1, 0]})


def _caught(action, calls):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        calls()
    return [w for w in caught if issubclass(w.category, pdireval.PdirevalWarning)]


@pytest.mark.parametrize("entry", ["function", "accessor", "report"])
def test_the_warning_names_the_callers_line(entry, tmp_path):
    calls = {
        "function": lambda: pdireval.evaluate(RUN, "AP", qrels=QRELS),
        "accessor": lambda: RUN.ireval.evaluate("AP", qrels=QRELS),
        "report": lambda: pdireval.report(RUN, qrels=QRELS, measures=["AP"], out=tmp_path),
    }
    caught = [w for w in _caught("always", calls[entry]) if "float32 precision" in str(w.message)]
    assert len(caught) == 1 and caught[0].filename == __file__
    line = Path(__file__).read_text().splitlines()[caught[0].lineno - 1]
    assert f'"{entry}": lambda' in line  # the lambda's line: the call


def test_the_dask_path_warns_at_the_compute_line():
    lazy = pdask.evaluate(dd.from_pandas(RUN, npartitions=1), "AP", qrels=QRELS)
    caught = _caught("always", lambda: lazy.compute(scheduler="synchronous"))
    assert len(caught) == 1 and caught[0].filename == __file__


def test_once_per_line_under_the_default_filter_every_time_under_always():
    def loop():
        for scale in (1, 2, 3):  # other counts, other texts, the same line
            run = pd.concat([RUN.assign(system=f"s{i}") for i in range(scale)])
            pdireval.evaluate(run, "AP", qrels=QRELS)

    assert len(_caught("default", loop)) == 1
    assert len(_caught("default", loop)) == 0  # this line has shown it already
    assert len(_caught("always", loop)) == 3
    with pytest.raises(pdireval.PdirevalWarning, match="^1 of 1 values .AP: 1. differ between"):
        _caught("error", lambda: pdireval.evaluate(RUN, "AP", qrels=QRELS))


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_a_chosen_precision_silences_it(precision):
    calls = [
        lambda: pdireval.evaluate(RUN, "AP", qrels=QRELS, score_precision=precision),
        lambda: pdask.evaluate(
            dd.from_pandas(RUN, npartitions=1), "AP", qrels=QRELS, score_precision=precision
        ).compute(scheduler="synchronous"),
    ]
    for call in calls:
        assert _caught("always", call) == []
