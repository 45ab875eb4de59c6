"""The 0.2 rename table: every old name and option still works, warns with
PdirevalDeprecationWarning and gives exactly what the new spelling gives; signatures show only the
new names; one rng default (None) everywhere."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import PdirevalDeprecationWarning
from pdireval.public import DEPRECATED_NAMES, EXPORTS
from tests.helpers import ROOT, random_matrix, scores_from_matrix

#: the rename table of CHANGELOG.md, as (function, old keyword, new keyword)
RENAMED_OPTIONS = [
    ("pdireval.swap_rate", "ties", "tied_pairs"),
    ("pdireval.information_tau", "ties", "tied_pairs"),
    ("pdireval.reliability", "negative", "negative_components"),
    ("pdireval.d_study", "negative", "negative_components"),
    ("pdireval.compare", "alpha", "required_diff_alpha"),
    ("pdireval.stats.information_theory.pair_information", "ties", "tied_pairs"),
    ("pdireval.stats.gtheory.variance_components", "negative", "negative_components"),
    ("pdireval.stats.gtheory.variance_components3", "negative", "negative_components"),
    ("pdireval.plot.error_rate_curves", "ties", "tie_rate"),
]


def resolve(dotted: str):
    import importlib

    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def two_measures() -> pd.DataFrame:
    x = random_matrix(12, 5, seed=3)
    return pd.concat([scores_from_matrix(x, "A"), scores_from_matrix(x**2, "B")], ignore_index=True)


def test_the_table_in_the_changelog_is_the_table_in_the_code():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "renames.md").read_text(encoding="utf-8")
    rows = [line for line in changelog.splitlines() if line.startswith("| `")]
    assert rows and all(row in page for row in rows), "docs/renames.md lost a row of CHANGELOG.md"
    for old, new in DEPRECATED_NAMES.items():
        assert f"| `{old}` | `{new}` |" in changelog, old
    for dotted, old, new in RENAMED_OPTIONS:
        name = dotted.rsplit(".", 1)[1]
        assert f"| `{name}({old}=)` | `{name}({new}=)` |" in changelog, (dotted, old)
        assert resolve(dotted).renamed_options == {old: new}
    assert len(rows) == len(DEPRECATED_NAMES) + len(RENAMED_OPTIONS)


@pytest.mark.parametrize("old", sorted(DEPRECATED_NAMES))
def test_old_function_names_warn_and_are_the_new_functions(old):
    new = DEPRECATED_NAMES[old]
    assert new in EXPORTS and old not in EXPORTS and old not in pdireval.__all__
    with pytest.warns(PdirevalDeprecationWarning, match=rf"pdireval\.{old} is deprecated.*removed in 0\.3.*pdireval\.{new}"):
        function = getattr(pdireval, old)
    assert function is getattr(pdireval, new)
    with pytest.warns(PdirevalDeprecationWarning):  # every use warns, not only the first
        getattr(pdireval, old)


def test_old_accessor_names_warn_and_give_the_new_result():
    scores = two_measures()
    with pytest.warns(PdirevalDeprecationWarning, match=r"DataFrame\.ireval\.pad is deprecated"):
        old = scores.ireval.pad()
    pd.testing.assert_frame_equal(old, scores.ireval.percentage_absolute_difference())
    with pytest.warns(PdirevalDeprecationWarning, match=r"ireval\.conflicts"):
        old = scores.ireval.conflicts(method="t")
    pd.testing.assert_frame_equal(old, scores.ireval.decision_conflicts(method="t"))
    with pytest.warns(PdirevalDeprecationWarning, match=r"ireval\.topic_set_size"):
        old = scores.ireval.topic_set_size()
    pd.testing.assert_frame_equal(old, scores.ireval.query_set_size())


def test_old_train_test_name_gives_the_new_result():
    scores = two_measures()
    queries = sorted(scores["query"].unique())
    with pytest.warns(PdirevalDeprecationWarning, match="train_by_measure"):
        old = pdireval.train_test(scores, train=queries[:6], test=queries[6:], reference="A")
    new = pdireval.train_by_measure(scores, train=queries[:6], test=queries[6:], reference="A")
    pd.testing.assert_frame_equal(old, new)


def test_renamed_options_warn_and_give_the_new_result():
    scores = two_measures()
    a = scores[scores.measure == "A"]
    b = scores[scores.measure == "B"].assign(measure="A")  # the same measure in another experiment
    cases = [
        (pdireval.swap_rate, (a, b), "ties", "tied_pairs", "drop"),
        (pdireval.information_tau, (scores, "A", "B"), "ties", "tied_pairs", "keep"),
        (pdireval.reliability, (scores,), "negative", "negative_components", "keep"),
        (pdireval.d_study, (scores, [5, 10]), "negative", "negative_components", "keep"),
        (pdireval.compare, (a,), "alpha", "required_diff_alpha", 0.1),
    ]
    for function, args, old, new, value in cases:
        extra = {"n_resamples": 200, "rng": 5} if function is pdireval.compare else {}
        with pytest.warns(PdirevalDeprecationWarning, match=rf"{function.__name__}\({old}=\.\.\.\).*{new}="):
            got = function(*args, **{old: value}, **extra)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the new spelling is quiet
            want = function(*args, **{new: value}, **extra)
        pd.testing.assert_frame_equal(got, want)
        with pytest.raises(TypeError, match=rf"both {old}= .* and {new}="):
            function(*args, **{old: value, new: value}, **extra)


def test_renamed_array_level_options():
    from pdireval.stats.gtheory import variance_components
    from pdireval.stats.information_theory import pair_information

    x, y = np.array([1.0, 2.0, 2.0, 4.0]), np.array([1.0, 3.0, 2.0, 2.0])
    with pytest.warns(PdirevalDeprecationWarning):
        old = pair_information(x, y, ties="keep")
    assert old == pair_information(x, y, tied_pairs="keep")
    with pytest.warns(PdirevalDeprecationWarning):
        old = variance_components([1.0], [3.0], [2.0], 4, 5, negative="keep")
    np.testing.assert_array_equal(old, variance_components([1.0], [3.0], [2.0], 4, 5, negative_components="keep"))


def test_renamed_three_facet_variance_components():
    from pdireval.stats.gtheory import anova_table3, variance_components3

    x = np.random.default_rng(4).normal(size=(2, 6, 4, 3))  # two groups of queries x systems x judges
    x[1, :, :, 0] = x[1, :, :, 1]  # a judge equal to another: a negative estimate to clip or keep
    tab = anova_table3(x)
    with pytest.warns(PdirevalDeprecationWarning, match=r"variance_components3\(negative=\.\.\.\).*negative_components="):
        old = variance_components3(tab, 4, 6, 3, negative="keep")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = variance_components3(tab, 4, 6, 3, negative_components="keep")
        clipped = variance_components3(tab, 4, 6, 3)
    assert old.keys() == new.keys()
    for effect in new:
        np.testing.assert_array_equal(old[effect], new[effect])
        assert (clipped[effect] >= 0).all()
    assert any((new[effect] < 0).any() for effect in new)  # "keep" kept a negative estimate
    with pytest.raises(TypeError, match=r"both negative= .* and negative_components="):
        variance_components3(tab, 4, 6, 3, negative="keep", negative_components="keep")


@pytest.mark.parametrize("dotted, old, new", RENAMED_OPTIONS)
def test_signatures_show_only_the_new_names(dotted, old, new):
    parameters = inspect.signature(resolve(dotted)).parameters
    assert new in parameters and old not in parameters


def test_one_rng_default_everywhere():
    """Every public function that draws random numbers takes ``rng=None`` (fresh entropy) by
    default; a seed makes it reproducible."""
    functions = [getattr(pdireval, name) for name in EXPORTS]
    functions += [pdireval.datasets.simulate]
    with_rng = [f for f in functions if callable(f) and "rng" in _parameters(f)]
    assert len(with_rng) >= 10
    for function in with_rng:
        assert _parameters(function)["rng"].default is None, function.__name__


def test_ties_means_only_a_measures_tie_treatment():
    """No public function has a ``ties=`` or a bare ``negative=`` option any more: neither the
    top-level names nor any name in the ``__all__`` of a public module (``stats.gtheory``'s
    ``variance_components3`` kept ``negative=`` after the 0.2 rename until it was found here)."""
    import importlib
    import pkgutil

    for name in EXPORTS:
        function = getattr(pdireval, name)
        if callable(function) and not inspect.isclass(function):
            assert "ties" not in _parameters(function), name
            assert "negative" not in _parameters(function), name
    checked = 0
    for info in pkgutil.walk_packages(pdireval.__path__, "pdireval."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            function = getattr(module, name, None)
            if callable(function) and not inspect.isclass(function):
                parameters = _parameters(function)
                assert not {"ties", "negative", "topic", "topics"} & set(parameters), (info.name, name)
                checked += 1
    assert checked > 200


def _parameters(function):
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}
