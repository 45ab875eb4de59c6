"""The typed API: every public function annotated in full, option strings as ``Literal`` aliases
that agree with what the functions accept at run time (issue 27, item 3)."""

from __future__ import annotations

import importlib
import inspect
import typing

import pytest

import pdireval
from pdireval import types
from pdireval.public import EXPORTS

#: The public subpackages and modules whose ``__all__`` functions are public API too.
SUBMODULES = ("plot", "stats", "datasets", "dask", "pyterrier", "measures")

#: Public functions whose annotations are not complete yet, with what they still lack. The list
#: only shrinks: a test below fails when an entry is annotated, so its line is deleted.
NOT_YET: dict[str, tuple[str, ...]] = {}


#: Parameters named so hold free text (names of measures, systems, columns; titles), not options.
FREE_TEXT = {
    "reference",
    "measure",
    "measure_a",
    "measure_b",
    "column",
    "x",
    "y",
    "by",
    "ric",
    "name",
    "title",
    "caption",
    "label",
    "eval_measure",
    "over",
    "description",
    "citation",
    "text",
    "baseline",
    "measures",
    # a column name here (krippendorff_alpha's level= is an option)
    "pdireval.stability_sign_test(level)",
    "pdireval.plot.training_curves(level)",
}

#: Option strings still annotated as ``str`` (shrinks like NOT_YET).
NOT_YET_LITERAL: set[str] = set()


def public_functions() -> dict[str, object]:
    """``{dotted name: function}`` of every public function (classes left out)."""
    found = {f"pdireval.{name}": getattr(pdireval, name) for name in EXPORTS}
    for sub in SUBMODULES:
        module = importlib.import_module(f"pdireval.{sub}")
        for name in module.__all__:
            found[f"pdireval.{sub}.{name}"] = getattr(module, name)
    return {k: v for k, v in found.items() if callable(v) and not inspect.isclass(v)}


def missing_annotations(function) -> tuple[str, ...]:
    """The parameters without an annotation, and ``"return"`` when the return has none."""
    signature = inspect.signature(function)
    missing = [p.name for p in signature.parameters.values() if p.annotation is p.empty]
    if signature.return_annotation is signature.empty:
        missing.append("return")
    return tuple(missing)


def test_the_walk_finds_the_public_api():
    functions = public_functions()
    assert len(functions) > 100
    for name in (
        "pdireval.compare",
        "pdireval.plot.forest_plot",
        "pdireval.stats.paired_t",
        "pdireval.datasets.simulate",
        "pdireval.dask.evaluate",
        "pdireval.pyterrier.test",
    ):
        assert name in functions, name


def test_every_public_function_is_fully_annotated():
    missing = {}
    for name, function in public_functions().items():
        if name in NOT_YET:
            continue
        lacking = missing_annotations(function)
        if lacking:
            missing[name] = lacking
    assert not missing, f"public functions with parameters or returns not annotated: {missing}"


def test_the_not_yet_list_only_shrinks():
    functions = public_functions()
    for name, lacking in NOT_YET.items():
        assert name in functions, f"{name} is no longer public: delete it from NOT_YET"
        assert missing_annotations(functions[name]) == lacking, (
            f"{name} now lacks {missing_annotations(functions[name])}: update (shrink) NOT_YET"
        )


def bare_option_strings() -> set[str]:
    """``name(param)`` of every parameter with a string default annotated as a bare ``str``."""
    bare = set()
    for name, function in public_functions().items():
        for p in inspect.signature(function).parameters.values():
            free = p.name in FREE_TEXT or f"{name}({p.name})" in FREE_TEXT
            if isinstance(p.default, str) and not free:
                if str(p.annotation).split(" | ")[0] == "str":
                    bare.add(f"{name}({p.name})")
    return bare


def test_no_option_string_is_annotated_as_a_bare_str():
    """An option given as a string with a string default is a ``Literal`` (or an alias of one),
    never ``str`` (names of measures, systems, columns and titles are free text)."""
    bare = bare_option_strings()
    assert not bare - NOT_YET_LITERAL, sorted(bare - NOT_YET_LITERAL)
    assert not NOT_YET_LITERAL - bare, (
        f"now a Literal, delete from NOT_YET_LITERAL: {sorted(NOT_YET_LITERAL - bare)}"
    )


#: each Literal alias of pdireval.types and the run-time tuple(s) its function validates against
ALIASES = [
    ("Alternative", "pdireval.stats.paired_tests", ("ALTERNATIVES",)),
    ("NegativeComponents", "pdireval.stats.gtheory", ("NEGATIVE",)),
    ("Missing", "pdireval.evaluation", ("MISSING",)),
    ("Missing", "pdireval.dask.partition_scores", ("MISSING",)),
    ("Missing", "pdireval.rag.nuggets", ("MISSING",)),
    ("Empty", "pdireval.rag.nuggets", ("EMPTY",)),
    ("Order", "pdireval.evaluation", ("ORDERS",)),
    ("ScorePrecision", "pdireval.evaluation", ("SCORE_PRECISIONS",)),
    ("Judges", "pdireval.evaluation", ("JUDGES",)),
    ("Unjudged", "pdireval.evaluation", ("UNJUDGED",)),
    ("PartitionedBy", "pdireval.dask.partition_scores", ("PARTITIONED_BY",)),
    ("Seeds", "pdireval.meta.seeds", ("SEEDS",)),
    ("IntervalMethod", "pdireval.meta.mean_intervals", ("METHODS",)),
    ("BootstrapInterval", "pdireval.stats.intervals", ("BOOTSTRAP_INTERVALS",)),
    ("CorrelationMethod", "pdireval.stats.rank_correlation", ("CORRELATION_METHODS",)),
    ("CorrelationMethod", "pdireval.meta.correlation", ("CORRELATION_METHODS",)),
    (
        "Correction",
        "pdireval.stats.corrections",
        (
            "CORRECTIONS",
            "CORRECTION_ALIASES",
        ),
    ),
    (
        "TestMethod",
        "pdireval.meta.significance",
        (
            "METHODS",
            "METHOD_ALIASES",
        ),
    ),
    ("CompareMethod", "pdireval.meta.significance", ("COMPARE_METHODS", "METHOD_ALIASES")),
    (
        "ResamplingCorrection",
        "pdireval.stats.corrections",
        ("RESAMPLING_CORRECTIONS", "RESAMPLING_ALIASES"),
    ),
    ("JointMethod", "pdireval.stats.multiplicity", ("JOINT_METHODS",)),
    ("Negatives", "pdireval.runs.joint_ric", ("NEGATIVES",)),
    ("TiedPairs", "pdireval.stats.information_theory", ("TIES",)),
    ("KappaWeights", "pdireval.stats.interrater", ("KAPPA_WEIGHTS",)),
    ("AlphaLevel", "pdireval.stats.interrater", ("ALPHA_LEVELS",)),
    ("SetSizeMethod", "pdireval.meta.set_size", ("SET_SIZE_METHODS",)),
    ("ScoresFormat", "pdireval.io.scores", ("SCORES_FORMATS",)),
    ("TrecEvalVersion", "pdireval.measures.trec_eval.versions", ("TREC_EVAL_VERSIONS",)),
    ("WriteFormat", "pdireval.io.scores", ("WRITE_FORMATS",)),
    ("FusionMethod", "pdireval.runs.fusion_lists", ("FUSION_METHODS", "ALIASES")),
    ("MissingPolicy", "pdireval.meta.leaderboard_correlation", ("CORRELATION_MISSING",)),
    ("MissingPolicy", "pdireval.runs.qrels_overlap", ("QRELS_MISSING",)),
    ("QueryPolicy", "pdireval.meta.leaderboard_correlation", ("QUERY_POLICIES",)),
    ("Alternative", "pdireval.meta.self_preference", ("ALTERNATIVES",)),
]


@pytest.mark.parametrize("alias, module, constants", ALIASES)
def test_literal_aliases_are_what_the_functions_accept(alias, module, constants):
    accepted = set()
    for constant in constants:
        accepted |= set(getattr(importlib.import_module(module), constant))
    accepted.discard(None)  # None is spelled out in the signatures (``Correction | None``)
    assert set(typing.get_args(getattr(types, alias))) == accepted, (alias, module)


def test_fusion_literals_hold_every_name_the_resolvers_accept():
    from pdireval.runs.fusion_lists import NORMS, WEIGHTED_METHODS
    from pdireval.runs.fusion_options import resolve_method, resolve_norm

    weighted = set(typing.get_args(types.WeightedFusionMethod))
    assert set(WEIGHTED_METHODS) <= weighted <= set(typing.get_args(types.FusionMethod))
    assert {resolve_method(m) for m in weighted} == set(WEIGHTED_METHODS)
    norms = set(typing.get_args(types.FusionNorm))
    assert set(NORMS) - {None} <= norms
    assert {resolve_norm(n) for n in norms} == set(NORMS)  # "none" is None


def type_checking_imports(path) -> dict[str, str]:
    """``{name: module}`` of the ``if TYPE_CHECKING:`` block of the module at ``path``; each
    name must be re-exported as itself (``from m import f as f``)."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    seen = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom), ast.unparse(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"re-export as itself: {ast.unparse(node)}"
            seen[alias.name] = node.module
    return seen


def test_static_tools_see_every_lazy_public_name_where_it_is_defined():
    """``pdireval`` and ``pdireval.stats`` load their public names lazily (``__getattr__``);
    their ``if TYPE_CHECKING:`` blocks import each name from its module, so mypy, pyright and
    IDEs see the real, annotated functions instead of ``Any``."""
    from pdireval import stats
    from pdireval.public import SUBMODULES

    want = dict(EXPORTS) | {name: "pdireval" for name in SUBMODULES}
    assert type_checking_imports(pdireval.__file__) == want
    seen = type_checking_imports(stats.__file__)
    assert set(seen) == set(stats.__all__)
    for name, module in seen.items():
        defined_in = getattr(getattr(stats, name), "__module__", module)  # a tuple has none
        assert defined_in == module, name


@pytest.mark.slow
def test_a_type_checker_sees_the_public_api(tmp_path):
    """What a user's mypy sees: the real signatures of the lazily loaded names, and a
    misspelt option string (a ``Literal``) is an error before anything runs."""
    api = pytest.importorskip("mypy.api", reason="mypy is a test dependency (the typecheck group)")

    from tests.helpers import ROOT

    script = tmp_path / "user.py"
    script.write_text(
        "import pandas as pd\n"
        "import pdireval\n"
        "scores = pd.DataFrame()\n"
        "pdireval.compare(scores, method='t', correction='holm', alternative='less')\n"
        "pdireval.stats.paired_t([1.0, 2.0], [0.5, 1.0], alternative='greater')\n"
        "pdireval.compare(scores, method='ttst')\n"
        "pdireval.reliability(scores, negative_components='drop')\n"
        "pdireval.stats.paired_t([1.0], [2.0], alternative='two_sided')\n",
        encoding="utf-8",
    )
    out, err, status = api.run(
        [
            str(script),
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
        ]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["6", "7", "8"], out + err
    assert all("Literal[" in line for line in errors), out
