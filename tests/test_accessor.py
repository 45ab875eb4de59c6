"""The accessor is generated from the public functions: same signature, same docstring."""

import inspect
import pydoc

import pandas as pd
import pytest

import pdireval
from pdireval.public import EXPORTS, FRAME_FUNCTIONS


def test_every_frame_function_is_an_accessor_method_with_its_signature_and_docstring():
    frame = pd.DataFrame({"a": [1]})
    assert {"evaluate", "aggregate", "compare"} <= set(FRAME_FUNCTIONS)
    for name in FRAME_FUNCTIONS:
        func = getattr(pdireval, name)
        method = getattr(frame.ireval, name)
        f_params = list(inspect.signature(func).parameters.values())[1:]
        m_params = list(inspect.signature(method).parameters.values())
        assert [(p.name, p.kind, p.default) for p in f_params] == [
            (p.name, p.kind, p.default) for p in m_params
        ], name
        assert method.__doc__ == func.__doc__ and len(func.__doc__) > 200, name
        assert name in dir(frame.ireval)


def test_help_shows_the_function_documentation():
    frame = pd.DataFrame({"a": [1]})
    text = pydoc.render_doc(frame.ireval.compare, renderer=pydoc.plaintext)
    assert "Paired significance test" in text and "n_resamples" in text


def test_accessor_calls_the_function():
    run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=4, depth=10, rng=3)
    a = run.ireval.evaluate(["AP", "nDCG@5"], qrels=qrels)
    b = pdireval.evaluate(run, ["AP", "nDCG@5"], qrels=qrels)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a.ireval.aggregate(), pdireval.aggregate(a))


def test_unknown_accessor_method_names_the_methods():
    with pytest.raises(AttributeError, match="evaluate"):
        pd.DataFrame({"a": [1]}).ireval.evalute  # noqa: B018


def test_every_public_name_resolves_and_no_function_hides_a_module():
    import importlib
    import pkgutil

    for name in EXPORTS:
        assert getattr(pdireval, name) is not None
    top_level = {m.name for m in pkgutil.iter_modules(pdireval.__path__)}
    assert not (set(EXPORTS) & top_level), set(EXPORTS) & top_level
    importlib.import_module("pdireval.measures.bounds")
    assert isinstance(pdireval.measures(), pd.DataFrame)


def test_no_two_modules_outside_plot_share_a_file_name():
    # plot/ mirrors the analysis modules; a measure family package (measures/<family>/) holds
    # the same roles under the same names: kernels.py, ties.py, definitions.py
    from pathlib import Path

    root = Path(pdireval.__file__).parent

    def family(p):
        return p.parent.parent == root / "measures"

    names = [
        p.name
        for p in root.rglob("*.py")
        if p.name != "__init__.py" and "plot" not in p.parts and not family(p)
    ]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_accessor_methods_are_class_attributes_that_static_tools_see():
    """hasattr / dir / inspect on the class itself (what IDEs, pyright and doc tools read), and
    each bound method's signature is its function's without the frame."""
    accessor = pd.DataFrame.ireval
    frame = pd.DataFrame({"a": [1]})
    for name in FRAME_FUNCTIONS:
        assert hasattr(accessor, name) and name in vars(accessor), name
        assert name in dir(accessor) and name in dir(frame.ireval), name
        function = getattr(pdireval, name)
        expected = inspect.signature(function)
        parameters = list(expected.parameters.values())
        bound = inspect.signature(getattr(frame.ireval, name))
        assert bound == expected.replace(parameters=parameters[1:]), name
        unbound = inspect.signature(getattr(accessor, name))
        assert list(unbound.parameters)[0] == "self" and list(unbound.parameters)[1:] == list(expected.parameters)[1:]
        assert bound.return_annotation == expected.return_annotation, name


def test_the_methods_load_their_modules_only_when_used():
    import subprocess
    import sys

    code = (
        "import sys, pandas as pd, pdireval\n"
        "assert 'pdireval.meta.significance' not in sys.modules\n"
        "assert 'compare' in dir(pd.DataFrame.ireval)\n"
        "assert 'pdireval.meta.significance' not in sys.modules\n"
        "assert hasattr(pd.DataFrame.ireval, 'compare')\n"
        "assert 'pdireval.meta.significance' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
