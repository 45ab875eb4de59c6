"""Property-based fuzzing of the input contract (issue 13).

For arbitrary small frames and TREC file lines, every entry point either returns a result or
raises a pdireval error (``PdirevalError``; ``TypeError`` only for an argument of the wrong
type), never another exception type; it warns only with ``PdirevalWarning``; and the caller's
frame is unchanged. Sizes are bounded (at most a dozen rows or lines), so no example can hang,
and the whole module runs in well under a minute.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import pdireval  # noqa: E402
from pdireval import PdirevalError, PdirevalWarning  # noqa: E402

SETTINGS = settings(max_examples=int(__import__("os").environ.get("PDIREVAL_FUZZ_EXAMPLES", 60)), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# ids as users produce them: short strings (odd characters included), ints, floats, None
ID_TEXT = st.text(alphabet=st.sampled_from("aAb1 \t\u00a0é#-_."), min_size=0, max_size=3)
IDS = st.one_of(ID_TEXT, st.integers(-3, 3), st.sampled_from([1.0, 1.5, np.nan, 2**63, -0.0]), st.none())
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(-5, 5),
    st.sampled_from([1e40, 1e-50, -1.0, 0.0]),
    st.none(),
    st.sampled_from(["1", "x", ""]),
)
# up to pdireval.core.schema.MAX_ABS_VALUE (1e100) the meta functions must answer without
# overflow; beyond it (1e154: squares overflow float64) they refuse with a SchemaError
SCORE_VALUES = st.one_of(
    st.floats(-1e100, 1e100), st.sampled_from([np.nan, np.inf, -np.inf, 1e-50, 1e100, -1e100, 1e154, -1e300]),
    st.integers(-5, 5), st.none(), st.sampled_from(["1", "x", ""]),
)
SMALL_IDS = st.sampled_from(["a", "b", "c"])
CLEAN_NUMBERS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])


def column(draw, clean, odd, n):
    """A column of n values: clean ones in most examples, odd ones mixed in in some."""
    values = st.one_of(clean, odd) if draw(st.integers(0, 3)) == 0 else clean
    return draw(st.lists(values, min_size=n, max_size=n))


def _call(function, *frames):
    """Run ``function``; return the result or the pdireval error, failing on anything else."""
    before = [f.copy(deep=True) for f in frames]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function()
        except (PdirevalError, TypeError) as exc:
            result = exc
    others = [w for w in caught if not issubclass(w.category, PdirevalWarning)]
    assert not others, [f"{w.category.__name__}: {w.message}" for w in others]
    for frame, copy in zip(frames, before):
        pd.testing.assert_frame_equal(frame, copy)
    if isinstance(result, TypeError):  # only argument types: the frames here are DataFrames
        raise result
    return result


@st.composite
def run_frames(draw):
    n = draw(st.integers(0, 10))
    rows = {
        "system": column(draw, SMALL_IDS, IDS, n),
        "query": column(draw, SMALL_IDS, IDS, n),
        "doc": [f"d{i}" for i in range(n)] if draw(st.integers(0, 3)) else column(draw, SMALL_IDS, IDS, n),
        "score": column(draw, CLEAN_NUMBERS, NUMBERS, n),
    }
    if draw(st.booleans()):
        rows["rank"] = column(draw, st.integers(0, 4), NUMBERS, n)
    return pd.DataFrame(rows)


@st.composite
def qrels_frames(draw):
    n = draw(st.integers(0, 8))
    return pd.DataFrame({
        "query": column(draw, SMALL_IDS, IDS, n),
        "doc": column(draw, st.sampled_from(["d1", "d2", "d3", "d4"]), IDS, n),
        "label": column(draw, st.integers(-2, 3), NUMBERS, n),
    })


@st.composite
def scores_frames(draw):
    # mostly a (possibly holey) system x query x measure grid, sometimes odd ids mixed in
    systems = draw(st.lists(SMALL_IDS, min_size=1, max_size=3, unique=True))
    queries = draw(st.lists(st.sampled_from(["1", "2", "3", "4"]), min_size=1, max_size=4, unique=True))
    measures = draw(st.lists(st.sampled_from(["AP", "P@10"]), min_size=1, max_size=2, unique=True))
    grid = pd.MultiIndex.from_product([systems, queries, measures]).to_frame(index=False)
    keep = draw(st.lists(st.booleans(), min_size=len(grid), max_size=len(grid)))
    if draw(st.integers(0, 2)):
        keep = [True] * len(grid)
    grid = grid[keep]
    n = len(grid)
    rows = {
        "system": grid[0].tolist() if draw(st.integers(0, 3)) else column(draw, SMALL_IDS, IDS, n),
        "query": grid[1].tolist() if draw(st.integers(0, 3)) else column(draw, SMALL_IDS, IDS, n),
        "measure": grid[2].tolist(),
        "value": column(draw, st.floats(0, 1), SCORE_VALUES, n),
    }
    if draw(st.booleans()):
        rows[draw(st.sampled_from(["Unnamed: 0", "fold", "k"]))] = draw(
            st.lists(st.one_of(st.integers(0, 2), st.floats(0, 1)), min_size=n, max_size=n))
    return pd.DataFrame(rows)


@SETTINGS
@given(run=run_frames(), qrels=qrels_frames())
def test_evaluate_contract(run, qrels):
    out = _call(lambda: pdireval.evaluate(run, ["AP", "nDCG@5", "P@5", "GAP"], qrels=qrels), run, qrels)
    if isinstance(out, pd.DataFrame):
        assert list(out.columns[-2:]) == ["measure", "value"]
        assert out["value"].dtype == np.float64


MAY_BE_INFINITE = {"n_queries", "queries_needed", "queries_needed_e_rho2", "effect_size", "hedges_g", "statistic",
                   "ci_low", "ci_high"}


@SETTINGS
@given(scores=scores_frames(), function=st.sampled_from(
    ["aggregate", "compare", "compare_bootstrap", "correlate", "reliability", "d_study", "percentage_absolute_difference", "query_set_size",
     "discriminative_power", "leaderboard_agreement"]))
def test_meta_contract(scores, function):
    call = {
        "compare": lambda: pdireval.compare(scores, method="t"),
        "compare_bootstrap": lambda: pdireval.compare(scores, n_resamples=20, rng=0),
        "d_study": lambda: pdireval.d_study(scores, [5, 50]),
        "discriminative_power": lambda: pdireval.discriminative_power(scores, n_resamples=20, rng=0),
        "leaderboard_agreement": lambda: pdireval.leaderboard_agreement(scores, scores, k=2),
    }.get(function, lambda: getattr(pdireval, function)(scores))
    out = _call(call, scores)
    if isinstance(out, pd.DataFrame):
        assert isinstance(out.index, pd.RangeIndex)
        # no overflow to inf: infinite values only where documented (a count no size reaches,
        # a constant nonzero difference's effect size or t, a one-sided interval)
        numbers = out.drop(columns=[c for c in out.columns if c in MAY_BE_INFINITE]).select_dtypes("number")
        assert not np.isinf(numbers.to_numpy(np.float64)).any(), numbers


LINE_TOKENS = st.sampled_from(["1", "2", "Q0", "0", "d1", "D1", "-1", "1.5", "1e400", "nan", "tag", "#", "x", "é", "\u00a0",
                               # issue 13's file classes: underscores, other digits, huge ranks,
                               # non-ASCII spaces, a byte-order mark, a space inside a field
                               "1_000", "\u0661", "1e300", "1e19", "\u3000", "\ufeff", "d 1"])
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t", "\t\t"])


@st.composite
def trec_files(draw):
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        tokens = draw(st.lists(LINE_TOKENS, min_size=0, max_size=8))
        sep = draw(SEPARATORS)
        lines.append(sep.join(tokens) + draw(st.sampled_from(["", "\t", " "])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@SETTINGS
@given(text=trec_files(), kind=st.sampled_from(["run", "qrels"]))
def test_reader_contract(tmp_path_factory, text, kind):
    path = tmp_path_factory.mktemp("fuzz") / f"{kind}.txt"
    path.write_text(text, encoding="utf-8")
    reader = pdireval.read_run if kind == "run" else pdireval.read_qrels
    out = _call(lambda: reader(path))
    if isinstance(out, pd.DataFrame):
        assert len(out) <= text.count("\n") + 1
        # strict splitting: no id holds whitespace (ASCII or not) or a byte-order mark
        for name in ("system", "query", "doc"):
            if name in out.columns:
                assert not out[name].str.contains("[\\s\u00a0\u3000\ufeff]", regex=True).any(), out[name].tolist()
        if "rank" in out.columns:  # ranks fit (no overflowed cast)
            assert out["rank"].between(1, 2**53 + 1).all(), out["rank"].tolist()


# ------------------------------------------------------------------ pdireval trec_eval


QRELS_LINE = st.builds("{} {} {} {}".format, st.sampled_from(["1", "2", "#1", "10"]), st.sampled_from(["0", "a"]),
                       st.sampled_from(["d1", "d2", "D1", "d10"]), st.sampled_from(["0", "1", "2", "-1", "1.5", "x"]))
RUN_LINE = st.builds("{} Q0 {} {} {} {}".format, st.sampled_from(["1", "2", "#1", "3"]),
                     st.sampled_from(["d1", "d2", "D1", "d10", "d3"]), st.sampled_from(["0", "1", "x"]),
                     st.sampled_from(["1", "2", "1.5", "1.00000001", "-0", "0.1", "1e400", "x", "2abc",
                                     "0x10", "0x1p1", "1e39"]),
                     st.sampled_from(["r", "tag"]))


@st.composite
def trec_eval_input(draw, line):
    lines = draw(st.lists(st.one_of(line, line, line, st.sampled_from(["", "  ", "1 2 3"])), min_size=0, max_size=8))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


TREC_EVAL_FLAGS = st.sampled_from([(), ("-q",), ("-c", "-q"), ("-J", "-q"), ("-m", "all_trec", "-q"), ("-l", "2", "-M", "1")])


def _trec_eval_command(folder, qrels, run, flags):
    """Run ``pdireval trec_eval`` in-process: (stdout, status, stderr)."""
    import contextlib
    import io

    from pdireval.treceval import command

    (folder / "q").write_text(qrels, encoding="utf-8")
    (folder / "r").write_text(run, encoding="utf-8")
    argv = [*flags, str(folder / "q"), str(folder / "r")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = command(argv, stdout=out)
    return argv, out.getvalue(), status, err.getvalue()


@SETTINGS
@given(qrels=trec_eval_input(QRELS_LINE), run=trec_eval_input(RUN_LINE), flags=TREC_EVAL_FLAGS)
def test_trec_eval_command_contract(tmp_path_factory, qrels, run, flags):
    """``pdireval trec_eval`` on odd files: an exit status of trec_eval's and one line on stderr,
    never a traceback; output lines are ``name<TAB>query<TAB>value``."""
    _argv, out, status, err = _trec_eval_command(tmp_path_factory.mktemp("te-fuzz"), qrels, run, flags)
    assert status in (0, 2, 4, 7), (status, err)
    assert (status == 0) == (err == ""), err
    assert len(err.splitlines()) <= 1
    assert all(len(line.split("\t")) == 3 for line in out.splitlines()), out


# found by this test: a document listed twice beyond -M is not a duplicate to trec_eval (it
# truncates first); scores of 1e400 (infinite) tie; a duplicate that -M keeps stops trec_eval
@SETTINGS
@given(qrels=trec_eval_input(QRELS_LINE), run=trec_eval_input(RUN_LINE), flags=TREC_EVAL_FLAGS)
@example(qrels="1 0 d1 0", run="1 Q0 d1 0 1 r\n1 Q0 d1 0 1 r", flags=("-l", "2", "-M", "1"))
@example(qrels="1 0 d1 0", run="1 Q0 d2 0 2 r\n1 Q0 d1 0 1 r\n1 Q0 d1 0 1 r", flags=("-l", "2", "-M", "1"))
@example(qrels="1 0 d1 0", run="1 Q0 d1 0 2 r\n1 Q0 d1 0 2 r\n1 Q0 d2 0 1 r", flags=("-l", "2", "-M", "1"))
@example(qrels="1 0 d1 1\n1 0 d2 0", run="1 Q0 d1 0 1e400 r\n1 Q0 d2 0 1e400 r", flags=("-q",))
@example(qrels="1 0 d1 0\n1 0 d1 0", run="1 Q0 d1 0 1e400 r\n1 Q0 d1 0 1e400 r", flags=())
def test_trec_eval_command_against_binary(tmp_path_factory, te9, qrels, run, flags):
    """Where trec_eval 9.0.8 finishes (no crash), ``pdireval trec_eval`` prints the same and
    exits with the same status."""
    import subprocess

    argv, out, status, _err = _trec_eval_command(tmp_path_factory.mktemp("te-fuzz"), qrels, run, flags)
    done = subprocess.run([te9, *argv], capture_output=True, text=True, timeout=60)
    if done.returncode >= 0:  # a signal (the binary's own crash) is not a reference
        assert (out, status) == (done.stdout, done.returncode), (qrels, run, flags, done.stderr)


FUSION_METHODS = ["rrf", "isr", "log_isr", "borda", "rbc", "combsum", "combmnz", "combanz", "combmax", "combmin",
                  "combmed", "condorcet", "naive"]


@SETTINGS
@given(run=run_frames(), qrels=qrels_frames(), method=st.sampled_from(FUSION_METHODS),
       norm=st.sampled_from(["min-max", "zmuv", "sum", "max", "rank", "borda", None]),
       weights=st.one_of(st.none(), st.lists(st.sampled_from([0.0, 0.5, 1.0, 1e300, -1.0, np.nan]), max_size=3)),
       systems=st.one_of(st.none(), st.lists(SMALL_IDS, max_size=2)))
def test_fusion_contract(run, qrels, method, norm, weights, systems):
    out = _call(lambda: pdireval.fuse(run, method, norm=norm, weights=weights, qrels=qrels, systems=systems),
                run, qrels)
    if isinstance(out, pd.DataFrame):
        assert list(out.columns) == ["system", "query", "doc", "score", "rank"]
        assert np.isfinite(out["score"]).all()
        for _, part in out.groupby("query", sort=False):  # ranks follow the scores
            assert (np.diff(part["score"].to_numpy()) <= 0).all()
            assert part["rank"].tolist() == list(range(1, len(part) + 1))
    if method in ("rrf", "borda", "combsum"):
        tuned = _call(lambda: pdireval.tune_fusion(run, qrels, method=method, norm=norm, step=0.5, systems=systems,
                                                   measure="P@2"), run, qrels)
        if isinstance(tuned, pd.DataFrame):
            assert tuned["best"].sum() == tuned["system"].nunique()


@SETTINGS
@given(qrels=qrels_frames(), other=qrels_frames(), per_query=st.booleans())
def test_agreement_contract(qrels, other, per_query):
    out = _call(lambda: pdireval.agreement(qrels, other, per_query=per_query, n_resamples=5, rng=0), qrels, other)
    if isinstance(out, pd.DataFrame):
        assert out["value"].dtype == np.float64
        assert not np.isinf(out[["value", "ci_low", "ci_high"]].to_numpy()).any()
    _call(lambda: pdireval.judgment_confusion(qrels, other), qrels, other)


USER_RETURNS = st.sampled_from([0.5, 0, np.nan, np.inf, -1e308, "0.5", "x", None, [1.0, 2.0], np.float32(0.25)])


@SETTINGS
@given(run=run_frames(), qrels=qrels_frames(), returned=USER_RETURNS, valid=st.booleans(),
       ties=st.sampled_from(["", "(ties=expected)"]), cutoff=st.sampled_from(["", "@3"]))
def test_user_measure_contract(run, qrels, returned, valid, ties, cutoff):
    if valid:  # half the examples on a well-formed run with ties, so the measure runs
        run, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=2, depth=6, score_decimals=0, rng=1)
    def measure(ranked, judged, *, cutoff):
        return returned

    def kernel(view, m):
        return np.full(view.n_seg, returned) if np.isscalar(returned) else returned

    pdireval.register_measure("FuzzFn", measure, replace=True)
    pdireval.register_measure("FuzzKernel", kernel=kernel, replace=True)
    try:
        for name in ("FuzzFn", "FuzzKernel"):
            out = _call(lambda name=name: pdireval.evaluate(run, f"{name}{ties}{cutoff}", qrels=qrels), run, qrels)
            if isinstance(out, pd.DataFrame):
                assert out["value"].dtype == np.float64
    finally:
        pdireval.unregister_measure("FuzzFn")
        pdireval.unregister_measure("FuzzKernel")


@SETTINGS
@given(scores=scores_frames(), other=scores_frames(), function=st.sampled_from(
    ["correlate", "swap_rate", "leaderboard_agreement", "correlate_rbo"]))
def test_two_frame_contract(scores, other, function):
    call = {
        "correlate": lambda: pdireval.correlate(scores, other),
        "correlate_rbo": lambda: pdireval.correlate(scores, other, method=["rbo", "tau_ap", "kendall_b"]),
        "swap_rate": lambda: pdireval.swap_rate(scores, other),
        "leaderboard_agreement": lambda: pdireval.leaderboard_agreement(scores, other, k=2),
    }[function]
    out = _call(call, scores, other)
    if isinstance(out, pd.DataFrame):
        assert isinstance(out.index, pd.RangeIndex) and len(out) > 0  # sharing nothing is an error


@SETTINGS
@given(run=run_frames(), other=run_frames(), qrels=qrels_frames())
def test_reproducibility_contract(run, other, qrels):
    _call(lambda: pdireval.reproducibility(run, other, qrels=qrels, measures="AP"), run, other, qrels)
