"""Shared fixtures (helpers live in tests/helpers.py).

Expensive things are built once per session here, not once per module: the Robust 2003
collection, the trec_eval binaries and a warm ranx (whose numba kernels take tens of seconds to
compile or load on first use). A test that takes one of them (directly or through another
fixture) is marked ``slow`` automatically (:func:`pytest_collection_modifyitems`): it runs in
CI's second step (``python -m pytest -m slow``), not in the default run.
"""

from __future__ import annotations

import os
import warnings

import pytest

from tests.helpers import build_trec_eval, shared_path

try:
    from hypothesis import settings
except ImportError:  # the property tests skip themselves without hypothesis
    settings = None
if settings is not None:
    # Property tests draw their examples from a seed derived from each test (derandomize):
    # every run, CI's included, tries the same examples, so a failure reproduces anywhere.
    # PDIREVAL_HYPOTHESIS=explore draws fresh random ones (with --hypothesis-seed=N to replay a
    # seed, PDIREVAL_FUZZ_EXAMPLES=N for more fuzz examples): run it after changing a tested
    # surface, and keep each example it finds as an @example or a plain test.
    settings.register_profile("pdireval", derandomize=True)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile(os.environ.get("PDIREVAL_HYPOTHESIS", "pdireval"))

#: Session fixtures whose tests are slow by nature: real data, an oracle binary built from C,
#: ranx's numba JIT.
SLOW_FIXTURES = frozenset({"robust03", "te9", "te10", "ranx"})


#: The slowest remaining tests of the default run (each several seconds of CPU, measured with
#: --durations), marked slow here rather than in files other work was changing at the time.
#: A test marked slow still runs in CI's second step. An entry that no longer names a test
#: stops the run (rename or remove it here).
SLOW_TESTS = frozenset({
    "tests/reporting/test_report_judgments.py::test_section_appears_with_other_qrels_only",
    "tests/reporting/test_report_judgments.py::test_cli_other_qrels",
    "tests/reporting/test_report.py::test_report_is_reproducible",
    "tests/reporting/test_report.py::test_svg_twins_on_request",
    "tests/reporting/test_report.py::test_cli_report_on_simulated_collection",
    "tests/reporting/test_report_progress.py::test_progress_advances_inside_every_long_section",
    "tests/measures/test_measures_reference.py::test_kernels_match_the_reference",
    "tests/measures/test_measure_properties.py::test_row_order_does_not_matter",
    "tests/core/test_segment_independence.py::test_values_do_not_depend_on_the_other_segments",
    "tests/docs/test_coming_from.py::test_ir_measures_rows",
    "tests/docs/test_docs.py::test_code_blocks_run_and_print_what_the_page_shows[docs/significance.md]",
    "tests/docs/test_docs.py::test_code_blocks_run_and_print_what_the_page_shows[docs/uncertainty.md]",
    "tests/measures/test_ties.py::test_closed_forms_on_long_groups_with_binary_and_graded_qrels[3-labels1]",
    "tests/measures/test_ties.py::test_every_registered_measure_equals_the_mean_over_every_ordering[1]",
})


@pytest.hookimpl(tryfirst=True)  # before the -m selection reads the marks
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` every test that uses a fixture of :data:`SLOW_FIXTURES` or is listed in
    :data:`SLOW_TESTS`."""
    seen = set()
    for item in items:
        seen.add(item.nodeid)
        if item.nodeid in SLOW_TESTS or SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    files = {item.nodeid.split("::")[0] for item in items}
    stale = [t for t in SLOW_TESTS if t.split("::")[0] in files and t not in seen]
    whole_files = not any("::" in str(a) for a in config.args)  # not a selection of tests
    if stale and whole_files and not config.getoption("keyword") and not config.getoption("deselect"):
        raise pytest.UsageError(f"tests/conftest.py SLOW_TESTS names tests that do not exist: {stale}")


@pytest.fixture(scope="session")
def robust03():
    """(run, qrels) of TREC 2003 Robust: 17 runs x 100 topics."""
    import pdireval

    runs = shared_path("robust03", "runs")
    qrels = shared_path("robust03", "qrels.txt")
    return pdireval.read_run(runs), pdireval.read_qrels(qrels)


@pytest.fixture(scope="session")
def te9(tmp_path_factory):
    """Path of the trec_eval 9.0.8 binary (built once per session)."""
    return build_trec_eval("9.0.8", tmp_path_factory.mktemp("trec_eval-9.0.8") / "te")


@pytest.fixture(scope="session")
def te10(tmp_path_factory):
    """Path of the trec_eval 10.0 binary (built once per session)."""
    return build_trec_eval("10.0", tmp_path_factory.mktemp("trec_eval-10.0") / "te")


@pytest.fixture(scope="session")
def ranx():
    """The ranx module, warmed once per session: its numba kernels (Run/Qrels construction,
    every measure and fusion path the tests use) compile or load here, with the numba warnings
    they raise while compiling silenced here only, so tests see ranx's results and nothing of
    its JIT. Tests that take this fixture are marked ``slow``."""
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qrels = ranx.Qrels({"1": {"a": 1, "b": 2}, "2": {"c": 1}})
        runs = [
            ranx.Run({"1": {"a": 0.5, "b": 0.4, "x": 0.3}, "2": {"c": 0.1, "y": 0.9}}, name="r1"),
            ranx.Run({"1": {"b": 0.7, "a": 0.2}, "2": {"y": 0.3, "c": 0.2}}, name="r2"),
        ]
        metrics = [
            "ndcg@10",
            "ndcg_burges@10",
            "dcg@10",
            "dcg_burges@10",
            "map",
            "map@10",
            "mrr",
            "mrr@10",
            "precision@10",
            "recall@10",
            "recall",
            "r-precision",
            "bpref",
            "hit_rate@10",
            "hits@10",
            "f1@10",
            "rbp.8",
        ]
        for metric in metrics:
            ranx.evaluate(qrels, runs[0], metric, return_mean=False, make_comparable=True)
        ranx.fuse(runs, norm="min-max", method="wsum", params={"weights": [0.5, 0.5]})
        ranx.fuse(runs, norm=None, method="rrf", params={"k": 60})
    return ranx
