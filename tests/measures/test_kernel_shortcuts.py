"""The kernels' shortcuts give bit for bit the numbers of their general paths.

``Rndcg`` makes one pass per R-level instead of a binary search per (list, level) pair;
``IPrec`` and ``11pt_avg`` read long lists of relevant documents by pieces between the
levels' documents instead of a running maximum (benchmarks/results/fast_paths.md: each buys
>= 1.5x on the TREC-like collection; the one-gain ideal tables of Rndcg, ndcg_rel, G, Q and
nERR did not and were retired). Each shortcut is switched off here by its keyword argument
(``max_level_passes=0``, ``short_relevant=``) and the values compared with
``np.array_equal``: not close, identical. The oracle tests (trec_eval, pyNTCIREVAL,
ir_measures) check the numbers themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdireval.evaluation import prepare
from pdireval.measures import compute, parse_measure
from pdireval.measures.trec_eval import kernels as trec_eval_set
from tests.helpers import collections

MEASURES = [
    "Rndcg", "Rndcg(gains={1:3})", "Rndcg(gains={1:2,2:2,3:2})", "Rndcg(negatives=keep)", "Rndcg(judged_only=true)",
    "ndcg_rel", "ndcg_rel(gains={1:0.5})", "ndcg_rel(gains={1:2,2:2,3:2})", "ndcg_rel(gains={0:1,1:-1})",
    "G", "G(gains={1:0.5})", "G(gains={1:2,2:2,3:2})", "G(judged_only=true)",
    "Q", "Q@3", "Q(gain={1:0.5})", "Q(beta=0.5,rel=2)", "Q(gain={1:2,2:2,3:2})",
    "nERR", "nERR@2", "nERR(max_grade=1)", "nERR(max_grade=0.5)@3", "nERR(negatives=keep)",
    "11pt_avg", "IPrec@0.5", "ndcg_p", "ndcg_p(gains={1:0.5})", "ndcg_p(gains={1:2,2:2,3:2})",
]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _values(run, qrels, general=False):
    segments = prepare(run, qrels=qrels).segments
    out = {}
    for name in MEASURES:
        segments.cache.clear()
        m = parse_measure(name)
        if general and m.name == "Rndcg":  # by (list, level) pairs
            out[name] = trec_eval_set.r_ndcg(segments, m, max_level_passes=0)
        else:
            out[name] = compute(segments, m)
    return out


def _check(data):
    run, qrels = data
    fast = _values(run, qrels)
    general = _values(run, qrels, general=True)
    for name in MEASURES:
        assert np.array_equal(fast[name], general[name]), name


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections(labels=st.sampled_from([-1, 0, 1, 1])))
def test_binary_qrels_shortcuts_are_exact(data):
    _check(data)


@pytest.mark.slow  # 2-3 s of hypothesis examples; CI's second step runs it
@SETTINGS
@given(collections())
def test_graded_qrels_shortcuts_are_exact(data):
    _check(data)


def test_shortcuts_are_taken():
    """The keyword arguments switch the paths (else the tests above compare a path with
    itself)."""
    import pandas as pd

    qrels = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["a", "b", "a"], "label": [1, 2, 1]})
    run = pd.DataFrame(
        {"system": "s", "query": ["1", "1", "2"], "doc": ["a", "c", "b"], "score": [3.0, 2.0, 1.0]}
    )
    segments = prepare(run, qrels=qrels).segments
    calls = []

    def spy(*args):
        calls.append(args)
        return np.zeros(segments.n_segments)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_eval_set, "_r_ndcg_pairs", spy)
        trec_eval_set.r_ndcg(segments, parse_measure("Rndcg"))
        assert not calls
        trec_eval_set.r_ndcg(segments, parse_measure("Rndcg"), max_level_passes=0)
        assert calls


IPREC = ["11pt_avg", "11pt_avg(levels=[0.5,0.2,1])", "11pt_avg(rel=2)", "11pt_avg(judged_only=true)",
         "IPrec@0", "IPrec@0.3", "IPrec@1"]


@SETTINGS
@given(collections(max_depth=30, labels=st.sampled_from([-1, 0, 1, 2, 2])))
def test_iprec_by_pieces_equals_running_maximum(data):
    run, qrels = data
    segments = prepare(run, qrels=qrels).segments
    out = {}
    for short in (0, 10**9):  # every list read by pieces / by the running maximum
        for name in IPREC:
            segments.cache.clear()
            m = parse_measure(name)
            out[short, name] = m.definition.kernel(segments, m, short_relevant=short)
    for name in IPREC:
        assert np.array_equal(out[0, name], out[10**9, name]), name
