"""The accessor mirrors the public functions one to one."""

import inspect

import pandas as pd

import pdireval
from pdireval.accessor import IrevalAccessor


def _public_methods():
    return [name for name, _ in inspect.getmembers(IrevalAccessor, inspect.isfunction) if not name.startswith("_")]


def test_every_accessor_method_mirrors_a_public_function():
    names = _public_methods()
    assert "evaluate" in names and "aggregate" in names
    for name in names:
        func = getattr(pdireval, name)
        method = getattr(IrevalAccessor, name)
        f_params = list(inspect.signature(func).parameters.values())[1:]
        m_params = list(inspect.signature(method).parameters.values())[1:]
        assert [(p.name, p.kind, p.default) for p in f_params] == [
            (p.name, p.kind, p.default) for p in m_params
        ], name


def test_accessor_calls_the_function():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=4, depth=10, rng=3)
    a = run.ireval.evaluate(["AP", "nDCG@5"], qrels=qrels)
    b = pdireval.evaluate(run, ["AP", "nDCG@5"], qrels=qrels)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a.ireval.aggregate(), pdireval.aggregate(a))
