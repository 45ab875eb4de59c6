"""The entry points added since the last hardening round, tried with hostile input (issue 33).

Every kind of odd input named in docs/data-model.md — empty frames, one row, NaN, inf, huge
values, duplicated keys, Arrow dtypes (``pd.ArrowDtype``, ``string[pyarrow]``), polars and
DuckDB frames, categorical ids, options of the wrong type — fed to ``evaluate(trec_eval=,
unjudged=, judges=)``, ``evaluate_variants`` (pandas and Dask), ``pdireval.dask.evaluate
(trec_eval=)``, ``fill_holes``, ``aggregate(method=, seeds=)``, ``compare(margin=, seeds=)``,
``rank_uncertainty``, ``correlate`` and ``leaderboard_agreement`` with intervals,
``reliability(facets=)``, ``paper_table`` and ``write_scores``/``read_scores``. The contract:
a result, or a pdireval error (a ``TypeError`` only from pdireval's own validators) — never
an exception from inside numpy, pandas or Python; warnings only ``PdirevalWarning``; the
caller's frame unchanged; and a frame of another library or dtype gives the plain pandas
frame's numbers exactly.
"""

from __future__ import annotations

import re
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pdireval
from pdireval import OptionError, PdirevalError, PdirevalWarning, SchemaError

PACKAGE = str(Path(pdireval.__file__).parent)


@pytest.fixture(scope="module")
def collection():
    run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=10, rng=1)
    scores = pdireval.evaluate(run, ["AP", "P@5"], qrels=qrels)
    return run, qrels, scores


# --------------------------------------------------------------------------- frame kinds


def _arrow_dtypes(frame):
    out = frame.copy()
    for c in out.columns:
        if pd.api.types.is_numeric_dtype(out[c]):
            out[c] = out[c].astype(pd.ArrowDtype(pa.from_numpy_dtype(out[c].to_numpy().dtype)))
        else:
            out[c] = out[c].astype(pd.ArrowDtype(pa.string()))
    return out


def _string_pyarrow(frame):
    out = frame.copy()
    for c in out.columns:
        if not pd.api.types.is_numeric_dtype(out[c]):
            out[c] = out[c].astype("string[pyarrow]")
    return out


def _categorical(frame):
    ids = [c for c in ("system", "query", "doc", "measure", "judge") if c in frame.columns]
    return frame.assign(**{c: frame[c].astype("category") for c in ids})


def _polars(frame):
    pl = pytest.importorskip("polars", reason="polars is a test dependency")
    return pl.from_pandas(frame)


def _duckdb(frame):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a test dependency")
    con = duckdb.connect()
    con.register("frame", frame)
    return con.sql("select * from frame")


KINDS = {
    "arrow_dtype": _arrow_dtypes,
    "string_pyarrow": _string_pyarrow,
    "categorical": _categorical,
    "polars": _polars,
    "duckdb": _duckdb,
}


def _judges(qrels):
    flipped = qrels.assign(judge="j2", label=qrels["label"].to_numpy()[::-1])
    return pd.concat([qrels.assign(judge="j1"), flipped], ignore_index=True)


def _seeds(scores):
    parts = [scores.assign(seed=i, value=scores["value"] * (1 + 0.01 * i)) for i in range(3)]
    return pd.concat(parts, ignore_index=True)


def _dask_evaluate(run, qrels, **kw):
    dd = pytest.importorskip("dask.dataframe", reason="dask is a test dependency")
    import dask

    import pdireval.dask as pdask

    with dask.config.set(scheduler="synchronous"):
        return pdask.evaluate(dd.from_pandas(run, npartitions=2), **kw, qrels=qrels).compute()


def _dask_variants(run, variants):
    dd = pytest.importorskip("dask.dataframe", reason="dask is a test dependency")
    import dask

    import pdireval.dask as pdask

    with dask.config.set(scheduler="synchronous"):
        return pdask.evaluate_variants(dd.from_pandas(run, npartitions=2), "AP", variants).compute()


def _variants(qrels):
    return pd.concat([qrels.assign(variant=1), qrels.iloc[::2].assign(variant=2)])


# entry point -> (which frame is replaced: "run" | "qrels" | "scores" | ..., the call)
ENTRIES = {
    "evaluate_trec_eval_10": ("qrels", lambda r, q, s: pdireval.evaluate(
        r, ["AP", "rbp", "P@5"], qrels=q, trec_eval="10")),
    "evaluate_run_trec_eval_10": ("run", lambda r, q, s: pdireval.evaluate(
        r, ["AP", "rbp", "P@5"], qrels=q, trec_eval="10")),
    "evaluate_bounds": ("qrels", lambda r, q, s: pdireval.evaluate(
        r, ["AP", "P@5", "RBP(p=0.8)"], qrels=q, unjudged="bounds")),
    "evaluate_run_bounds": ("run", lambda r, q, s: pdireval.evaluate(
        r, ["AP", "P@5"], qrels=q, unjudged="bounds")),
    "evaluate_judges_mean": ("judged", lambda r, q, s: pdireval.evaluate(
        r, ["AP", "map_avgjg"], qrels=q, judges="mean")),
    "evaluate_variants": ("variants", lambda r, q, s: pdireval.evaluate_variants(
        r, "AP", q, score_precision="float64")),
    "fill_holes": ("qrels", lambda r, q, s: pdireval.fill_holes(q, s)),
    "aggregate_anova": ("scores", lambda r, q, s: pdireval.aggregate(s, method="anova")),
    "aggregate_bca": ("scores", lambda r, q, s: pdireval.aggregate(
        s, method="bootstrap", bootstrap_interval="bca", n_resamples=30, rng=1)),
    "aggregate_seeds_nested": ("seeds", lambda r, q, s: pdireval.aggregate(
        s, seeds="nested", n_resamples=30, rng=1)),
    "compare_margin": ("scores", lambda r, q, s: pdireval.compare(s, method="t", margin=0.05)),
    "compare_seeds_mean": ("seeds", lambda r, q, s: pdireval.compare(
        s, method="t", seeds="mean")),
    "rank_uncertainty": ("scores", lambda r, q, s: pdireval.rank_uncertainty(
        s, n_resamples=30, rng=1)),
    "correlate_intervals": ("scores", lambda r, q, s: pdireval.correlate(
        s, method=["kendall_b", "tau_ap_b", "rbo"], confidence_level=0.9, n_resamples=30, rng=1)),
    "leaderboard_intervals": ("ap", lambda r, q, s: pdireval.leaderboard_agreement(
        s, s, confidence_level=0.9, n_resamples=30, rng=1)),
    "reliability_seed_facet": ("seeds", lambda r, q, s: pdireval.reliability(
        s, facets=("query", "seed"))),
    "paper_table": ("scores", lambda r, q, s: pdireval.paper_table(
        s, interval="range", interval_method="anova")),
}


def _inputs(collection, target, replace):
    """(run, qrels, scores) for ``target``, with ``replace`` applied to the frame it names;
    for a qrels target, the third frame is other judgments (for fill_holes)."""
    run, qrels, scores = collection
    frames = {
        "run": run,
        "qrels": qrels,
        "judged": _judges(qrels),
        "variants": _variants(qrels),
        "scores": scores,
        "ap": scores[scores["measure"] == "AP"],
        "seeds": _seeds(scores),
    }
    frames[target] = replace(frames[target])
    q = frames[target] if target in ("judged", "variants") else frames["qrels"]
    s = frames[target] if target in ("ap", "seeds") else frames["scores"]
    if target == "qrels":
        s = qrels.iloc[::2]
    return frames["run"], q, s


def _contract(call, *frames):
    """The result, or the pdireval error; fails on any other exception, on a warning that
    is not a PdirevalWarning, on a TypeError raised outside pdireval, on a changed frame."""
    before = [f.copy(deep=True) for f in frames if isinstance(f, pd.DataFrame)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except PdirevalError as exc:
            result = exc
        except TypeError as exc:
            origin = traceback.extract_tb(exc.__traceback__)[-1].filename
            assert origin.startswith(PACKAGE), f"TypeError from {origin}: {exc}"
            result = exc
    others = [f"{w.category.__name__}: {w.message}" for w in caught
              if not issubclass(w.category, PdirevalWarning)]
    assert not others, others
    after = [f for f in frames if isinstance(f, pd.DataFrame)]
    for frame, copy in zip(after, before):
        pd.testing.assert_frame_equal(frame, copy)
    return result


def _numbers(frame):
    """A frame's numbers and ids in a dtype-free form, for comparing results of two kinds."""
    out = {}
    for c in frame.columns:
        col = frame[c]
        if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
            out[c] = col.astype(str).tolist()
        else:
            out[c] = col.to_numpy(dtype=np.float64)
    return out


def _same(got, ref):
    if isinstance(ref, str):
        assert got == ref
        return
    a, b = _numbers(got.reset_index(drop=True)), _numbers(ref.reset_index(drop=True))
    assert list(a) == list(b)
    for c in b:
        if isinstance(b[c], list):
            assert a[c] == b[c], c
        else:
            np.testing.assert_array_equal(a[c], b[c], err_msg=c)


# polars in the default run (the most foreign frame: Arrow stream, no pandas index); every
# other kind in the slow run (CI's second step), to keep the default run under 3 minutes
KIND_PARAMS = [
    pytest.param(k, marks=() if k == "polars" else pytest.mark.slow, id=k) for k in KINDS
]


@pytest.mark.parametrize("kind", KIND_PARAMS)
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_other_dtypes_and_libraries_give_the_pandas_numbers(collection, entry, kind):
    target, call = ENTRIES[entry]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PdirevalWarning)
        ref = call(*_inputs(collection, target, lambda f: f))
    got = _contract(lambda: call(*_inputs(collection, target, KINDS[kind])))
    assert not isinstance(got, Exception), f"{entry} on {kind}: {got}"
    _same(got, ref)


def _first(column, value):
    def change(frame):
        if column not in frame.columns:
            return frame
        values = frame[column].to_numpy(dtype=np.float64).copy()
        values[0] = value
        return frame.assign(**{column: values})

    return change


HOSTILE = {
    "empty": lambda f: f.iloc[:0],
    "one_row": lambda f: f.iloc[:1],
    "nan": lambda f: _first("value", np.nan)(_first("label", np.nan)(_first("score", np.nan)(f))),
    "inf": lambda f: _first("value", np.inf)(_first("label", np.inf)(_first("score", np.inf)(f))),
    "huge": lambda f: _first("value", 1e200)(_first("label", 1e200)(_first("score", 1e200)(f))),
    "duplicate_key": lambda f: pd.concat([f, f.iloc[:1]], ignore_index=True),
    "duplicate_key_other_value": lambda f: pd.concat(
        [f, _first("value", 0.123)(_first("label", 7.0)(_first("score", -5.0)(f.iloc[:1])))],
        ignore_index=True),
    "integer_ids": lambda f: f.assign(query=pd.factorize(f["query"])[0]),
}

# The outcome each hostile input must have, where it is not simply "a result or an error".
REFUSED = {
    ("inf", "qrels"), ("inf", "judged"), ("inf", "variants"), ("inf", "scores"), ("inf", "ap"),
    ("inf", "seeds"), ("inf", "run"), ("nan", "run"),
    ("huge", "qrels"), ("huge", "judged"), ("huge", "variants"), ("huge", "scores"),
    ("huge", "ap"), ("huge", "seeds"), ("empty", "qrels"), ("empty", "run"),
    ("empty", "scores"), ("empty", "ap"), ("empty", "seeds"), ("empty", "variants"),
    ("empty", "judged"), ("duplicate_key_other_value", "run"),
    ("duplicate_key_other_value", "qrels"), ("duplicate_key_other_value", "scores"),
    ("duplicate_key_other_value", "seeds"), ("duplicate_key_other_value", "ap"),
    ("duplicate_key_other_value", "variants"), ("duplicate_key_other_value", "judged"),
    ("duplicate_key", "run"), ("duplicate_key", "scores"), ("duplicate_key", "seeds"),
    ("duplicate_key", "ap"), ("duplicate_key", "variants"),
}


@pytest.mark.parametrize("hostile", list(HOSTILE))
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_hostile_values_give_a_result_or_a_pdireval_error(collection, entry, hostile):
    target, call = ENTRIES[entry]
    frames = _inputs(collection, target, HOSTILE[hostile])
    result = _contract(lambda: call(*frames), *frames)
    if (hostile, target) in REFUSED:
        assert isinstance(result, SchemaError), f"{entry} accepted {hostile}: {result!r}"
    elif isinstance(result, pd.DataFrame):
        numbers = result.select_dtypes("number").to_numpy(dtype=np.float64)
        # no overflow leaks into a result (inf only where documented: none of these)
        assert not np.isinf(numbers).any() or entry in ("compare_margin",), entry


@pytest.mark.parametrize(
    "kind", ["polars", *(pytest.param(k, marks=pytest.mark.slow) for k in ("plain", "duckdb"))]
)
@pytest.mark.parametrize("trec_eval", ["10", "9.0.8"])
def test_dask_evaluate_trec_eval_equals_pandas_on_every_kind_of_qrels(collection, kind, trec_eval):
    run, qrels, _ = collection
    measures = ["AP", "P@5", "rbp"] if trec_eval == "10" else ["AP", "P@5"]
    ref = pdireval.evaluate(run, measures, qrels=qrels, trec_eval=trec_eval)
    q = qrels if kind == "plain" else KINDS[kind](qrels)
    got = _dask_evaluate(run, q, measures=measures, trec_eval=trec_eval)
    _same(got, ref)


def test_dask_evaluate_reads_qrels_as_the_pandas_path_does(collection, tmp_path):
    """A qrels path or a pytrec_eval dict of dicts: pdireval.evaluate reads them, so does the
    Dask path (it was a TypeError); anything else is a TypeError naming what it takes."""
    run, qrels, _ = collection
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    nested = {}
    for q, d, label in zip(qrels["query"], qrels["doc"], qrels["label"]):
        nested.setdefault(str(q), {})[str(d)] = int(label)
    for given in (tmp_path / "qrels.txt", nested):
        _same(_dask_evaluate(run, given, measures=["AP", "P@5"]),
              pdireval.evaluate(run, ["AP", "P@5"], qrels=given))
    with pytest.raises(TypeError, match="qrels= must be a pandas or Dask DataFrame"):
        _dask_evaluate(run, 3, measures="AP")


@pytest.mark.slow  # dask
@pytest.mark.parametrize("hostile", ["nan", "inf", "huge", "duplicate_key_other_value"])
def test_dask_evaluate_refuses_what_pandas_refuses(collection, hostile):
    run, qrels, _ = collection
    for r, q in ((HOSTILE[hostile](run), qrels), (run, HOSTILE[hostile](qrels))):
        try:
            pdireval.evaluate(r, "AP", qrels=q, trec_eval="10")
        except SchemaError as exc:
            with pytest.raises(SchemaError, match=re.escape(str(exc).split(":")[0])):
                _dask_evaluate(r, q, measures="AP", trec_eval="10")
        else:
            _same(_dask_evaluate(r, q, measures="AP", trec_eval="10"),
                  pdireval.evaluate(r, "AP", qrels=q, trec_eval="10"))


# --------------------------------------------------------------------------- options

BAD_VALUES = ["0.95", True, 2.0, [1], np.nan, np.inf, -1, {"a": 1}, b"x"]


@pytest.fixture(scope="module")
def folder(collection, tmp_path_factory):
    """A folder holding ``given.txt``, the collection's scores as trec_eval -q prints them."""
    path = tmp_path_factory.mktemp("scores")
    pdireval.write_scores(collection[2], path / "given.txt")
    return path

OPTIONS = {
    ("evaluate", "trec_eval"): lambda c, v: pdireval.evaluate(
        c[0], "AP", qrels=c[1], trec_eval=v),
    ("evaluate", "unjudged"): lambda c, v: pdireval.evaluate(c[0], "AP", qrels=c[1], unjudged=v),
    ("evaluate", "judges"): lambda c, v: pdireval.evaluate(c[0], "AP", qrels=c[1], judges=v),
    ("evaluate_variants", "score_precision"): lambda c, v: pdireval.evaluate_variants(
        c[0], "AP", c[1].assign(variant=1), score_precision=v),
    ("aggregate", "method"): lambda c, v: pdireval.aggregate(c[2], method=v),
    ("aggregate", "bootstrap_interval"): lambda c, v: pdireval.aggregate(
        c[2], method="bootstrap", bootstrap_interval=v, n_resamples=20, rng=1),
    ("aggregate", "seeds"): lambda c, v: pdireval.aggregate(c[2], seeds=v),
    ("compare", "margin"): lambda c, v: pdireval.compare(c[2], method="t", margin=v),
    ("compare", "seeds"): lambda c, v: pdireval.compare(c[2], method="t", seeds=v),
    ("correlate", "method"): lambda c, v: pdireval.correlate(c[2], method=v),
    ("correlate", "confidence_level"): lambda c, v: pdireval.correlate(
        c[2], confidence_level=v, n_resamples=20, rng=1),
    ("leaderboard_agreement", "n_resamples"): lambda c, v: pdireval.leaderboard_agreement(
        c[2], c[2], confidence_level=0.9, n_resamples=v, rng=1),
    ("rank_uncertainty", "confidence_level"): lambda c, v: pdireval.rank_uncertainty(
        c[2], confidence_level=v, n_resamples=20, rng=1),
    ("rank_uncertainty", "rng"): lambda c, v: pdireval.rank_uncertainty(
        c[2], n_resamples=20, rng=v),
    ("reliability", "facets"): lambda c, v: pdireval.reliability(c[2], facets=v),
    ("reliability", "n_seeds"): lambda c, v: pdireval.reliability(
        _seeds(c[2]), facets=("query", "seed"), n_seeds=v),
    ("fill_holes", "prefer"): lambda c, v: pdireval.fill_holes(c[1], c[1], prefer=v),
    ("query_set_size", "method"): lambda c, v: pdireval.query_set_size(
        c[2], method=v, min_difference=0.1),
    ("paper_table", "interval_method"): lambda c, v: pdireval.paper_table(
        c[2], interval="range", interval_method=v),
    ("paper_table", "confidence_level"): lambda c, v: pdireval.paper_table(
        c[2], interval="range", confidence_level=v),
    ("paper_table", "caption"): lambda c, v: pdireval.paper_table(c[2], caption=v),
    ("paper_table", "label"): lambda c, v: pdireval.paper_table(c[2], label=v, format="latex"),
    ("write_scores", "digits"): lambda c, v: pdireval.write_scores(
        c[2], c[3] / "scores.txt", digits=v),
    ("read_scores", "all_rows"): lambda c, v: pdireval.read_scores(c[3] / "given.txt",
                                                                   all_rows=v),
}


#: values of BAD_VALUES that are valid for an option (a margin of 2, D-studies of 2 seeds or
#: of [1], the text "0.95" as a caption or label)
VALID = {"margin": [2.0], "n_seeds": [2.0, [1]], "caption": ["0.95"], "label": ["0.95"]}


WRONG = [
    pytest.param(f, o, v, id=f"{f}-{o}-{v!r}")
    for f, o in OPTIONS
    for v in BAD_VALUES
    if not any(v is ok or v == ok for ok in VALID.get(o, []))
]


@pytest.mark.parametrize("function, option, value", WRONG)
def test_wrong_options_are_errors_naming_the_option(collection, folder, function, option,
                                                    value):
    run, qrels, scores = collection
    call = OPTIONS[function, option]
    result = _contract(lambda: call((run, qrels, scores, folder), value), scores)
    assert isinstance(result, (OptionError, TypeError)), f"{function}({option}={value!r})"
    assert option in str(result), str(result)


# --------------------------------------------------------------------------- found and fixed


def test_evaluate_variants_refuses_the_labels_evaluate_refuses(collection):
    run, qrels, _ = collection
    for label in (np.inf, -np.inf, 1e200):
        bad = _first("label", label)(qrels)
        with pytest.raises(SchemaError, match="label"):
            pdireval.evaluate(run, "AP", qrels=bad)
        with pytest.raises(SchemaError, match="qrels variants column 'label'"):
            pdireval.evaluate_variants(run, "AP", bad.assign(variant=1))


@pytest.mark.parametrize(
    "kind", ["polars", *(pytest.param(k, marks=pytest.mark.slow) for k in ("duckdb", "arrow_dtype"))]
)
def test_evaluate_variants_reads_arrow_variants_on_both_paths(collection, kind):
    run, qrels, _ = collection
    variants = _variants(qrels)
    _same(pdireval.evaluate_variants(run, "AP", KINDS[kind](variants)),
          pdireval.evaluate_variants(run, "AP", variants))
    got = _dask_variants(run, KINDS[kind](variants))
    _same(got.drop(columns="variant"), _dask_variants(run, variants).drop(columns="variant"))


def test_a_missing_seed_or_judge_id_is_an_error_not_one_more_level(collection):
    _, _, scores = collection
    seeds = _seeds(scores)
    missing = seeds.assign(seed=np.where(np.arange(len(seeds)) < 2, np.nan, seeds["seed"]))
    for call in (
        lambda: pdireval.aggregate(missing, seeds="mean"),
        lambda: pdireval.aggregate(missing, seeds="nested", n_resamples=20, rng=1),
        lambda: pdireval.compare(missing, method="t", seeds="mean"),
        lambda: pdireval.reliability(missing, facets=("query", "seed")),
    ):
        with pytest.raises(SchemaError, match="'seed' has 2 missing value"):
            call()
    judges = _judges(collection[1])
    js = pdireval.evaluate(collection[0], "AP", qrels=judges, judges="each")
    js = js.assign(judge=js["judge"].where(np.arange(len(js)) > 0))
    with pytest.raises(SchemaError, match="'judge' has 1 missing value"):
        pdireval.reliability(js, facets=("query", "judge"))


def test_fill_holes_names_the_empty_argument(collection):
    _, qrels, _ = collection
    with pytest.raises(SchemaError, match="other is an empty frame"):
        pdireval.fill_holes(qrels, qrels.iloc[:0])
    with pytest.raises(SchemaError, match="qrels is an empty frame"):
        pdireval.fill_holes(qrels.iloc[:0], qrels)


def test_reliability_size_messages_name_their_unit(collection):
    seeds = _seeds(collection[2])
    with pytest.raises(OptionError, match="positive number of seeds"):
        pdireval.reliability(seeds, facets=("query", "seed"), n_seeds=0)
    with pytest.raises(OptionError, match="positive number of seeds"):
        pdireval.reliability(seeds, facets=("query", "seed"), n_seeds={"a": 1})
    with pytest.raises(OptionError, match="positive number of queries"):
        pdireval.reliability(collection[2], n_queries=["x"])


def test_agreement_interval_warning_advice_fits_the_statistic():
    from pdireval.meta.agreement_intervals import percentile_interval

    reps = np.array([0.5, np.nan, 0.7])
    with pytest.warns(PdirevalWarning) as caught:
        percentile_interval(reps, 0.9, point=0.6, what="kendall_b")
        percentile_interval(reps, 0.9, point=0.6, what="tau_ap")
    kendall, tau_ap = (str(w.message) for w in caught)
    assert "or kendall_b" not in kendall and "every system tied" in kendall
    assert "Use tau_ap_b" in tau_ap


@pytest.mark.parametrize("method", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
def test_pyterrier_test_callables_on_hostile_samples(method):
    """``pdireval.pyterrier.test`` (and the array-level tests of pdireval.stats behind it):
    no query is NaN (or the no-difference answer), never a numpy reshape error or a
    RuntimeWarning; text is a TypeError; infinite or huge values an OptionError, except in
    the sign test, which only compares them."""
    import pdireval.pyterrier

    test = pdireval.pyterrier.test(method, n_resamples=200, rng=1) if method in (
        "randomization", "bootstrap") else pdireval.pyterrier.test(method)
    a, b = np.array([0.5, 0.3, 0.8, 0.1]), np.array([0.4, 0.2, 0.9, 0.1])
    empty = _contract(lambda: test(a[:0], b[:0]))
    assert not isinstance(empty, Exception)
    assert np.isnan(empty[1]) or empty[1] == 1.0
    assert isinstance(_contract(lambda: test(["a", "b"], ["c", "d"])), TypeError)
    # the same order with finite values (the sign test reads the order only)
    for hostile, same_order in ((np.r_[np.inf, a[1:]], np.r_[9.0, a[1:]]), (a * 1e200, b + 1)):
        result = _contract(lambda h=hostile: test(h, b))
        if method == "sign":
            assert result == test(same_order, b)
        else:
            assert isinstance(result, OptionError) and "beyond ±1e+100" in str(result)
    arrow = pd.array(a, dtype="double[pyarrow]"), pd.array(b, dtype="double[pyarrow]")
    assert _contract(lambda: test(*arrow)) == test(a, b)


def test_write_scores_of_bounded_scores_says_what_to_do(collection, tmp_path):
    """value_low / value_high of evaluate(unjudged="bounds") are not grouping columns (the
    message said so); a per-query file holds one value: csv keeps them, or drop them."""
    run, qrels, _ = collection
    bounded = pdireval.evaluate(run, ["AP", "P@5"], qrels=qrels, unjudged="bounds")
    for fmt in ("trec_eval", "ir_measures"):
        with pytest.raises(SchemaError, match=r"holds the bounds \['value_low', 'value_high'\]"):
            pdireval.write_scores(bounded, tmp_path / f"b.{fmt}", format=fmt)
    assert not list(tmp_path.iterdir())
    pdireval.write_scores(bounded, tmp_path / "b.csv", format="csv", digits=None)
    written = pd.read_csv(tmp_path / "b.csv", dtype={"query": str})
    # to the last bit under pandas 3; pandas 2.2's default CSV parser can be 1 ulp off
    np.testing.assert_allclose(written[["value", "value_low", "value_high"]].to_numpy(),
                               bounded[["value", "value_low", "value_high"]].to_numpy(),
                               rtol=1e-15, atol=0)
    plain = bounded.drop(columns=["value_low", "value_high"])
    pdireval.write_scores(plain, tmp_path / "b.txt")
    back = pdireval.read_scores(tmp_path / "b.txt")
    assert len(back) == len(plain)


def test_equivalence_tests_are_refused_not_marked_as_better():
    """compare(margin=) p-values say "equivalent within δ"; as paper_table(tests=) they gave
    letters ("significantly better") to the equivalent pairs."""
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=30, depth=20, rng=1)
    scores = pdireval.evaluate(run, "AP", qrels=qrels)
    tests = pdireval.compare(scores, method="t", margin=0.5, correction="holm")
    assert (tests["p_adjusted"] < 0.05).all()
    with pytest.raises(SchemaError, match="equivalence tests"):
        pdireval.paper_table(scores, tests=tests)
    both = pd.concat([pdireval.compare(scores, method="t", correction="holm"),
                      pdireval.compare(scores, method="t", correction="holm",
                                       alternative="greater")])
    with pytest.raises(SchemaError, match="alternatives"):
        pdireval.paper_table(scores, tests=both)


def test_a_qrels_jg_file_read_without_judges_says_judges_true(tmp_path):
    """trec_eval 10.0's qrels_jg files (the judge in the second field) read as plain qrels
    conflict; the message named only subtopics=True."""
    path = tmp_path / "qrels_jg"
    path.write_text("1 j1 d1 1\n1 j2 d1 0\n2 j1 d2 2\n")
    with pytest.raises(SchemaError, match=r"read_qrels\(path, judges=True\) a qrels_jg file"):
        pdireval.read_qrels(path)
    assert len(pdireval.read_qrels(path, judges=True)) == 3


@pytest.mark.parametrize("n, n_resamples", [(1, 5), (7, 40), (50, 333)])
def test_bootstrap_counts_are_the_documented_draw_in_bounded_memory(monkeypatch, n, n_resamples):
    """compare, aggregate, rank_uncertainty and the agreement intervals count the resampled
    queries of ``rng.integers(0, n, size=(B, n))``. The counts are now built in row chunks
    from an int32 draw (10**6 resamples of 200 queries needed some 6 GB, a MemoryError under
    a 6 GB limit; now 2.5 GB): the same counts, and the generator left in the same state."""
    import pdireval.core.chunking as chunking
    from pdireval.stats.paired_tests import bootstrap_counts

    monkeypatch.setattr(chunking, "CHUNK_CELLS", 64)  # many chunks, partial last one
    documented, ours = np.random.default_rng(11), np.random.default_rng(11)
    idx = documented.integers(0, n, size=(n_resamples, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(np.float64)
    counts = bootstrap_counts(ours, n, n_resamples)
    assert counts.dtype == np.float64 and np.array_equal(counts, expected)
    assert documented.random() == ours.random()


def test_evaluate_variants_qrels_columns_maps_the_variants_columns(collection):
    """qrels_columns= of evaluate_variants refused every key ("Keys are pdireval's names ()")."""
    run, qrels, _ = collection
    variants = _variants(qrels)
    theirs = variants.rename(columns={"query": "qid", "doc": "docno", "label": "rel"})
    mapping = {"query": "qid", "doc": "docno", "label": "rel"}
    _same(pdireval.evaluate_variants(run, "AP", theirs, qrels_columns=mapping),
          pdireval.evaluate_variants(run, "AP", variants))
    _same(_dask_variants_columns(run, theirs, mapping), _dask_variants(run, variants))
    with pytest.raises(SchemaError, match="not qrels variants column names"):
        pdireval.evaluate_variants(run, "AP", variants, qrels_columns={"qid": "query"})


def _dask_variants_columns(run, variants, mapping):
    dd = pytest.importorskip("dask.dataframe", reason="dask is a test dependency")
    import dask

    import pdireval.dask as pdask

    with dask.config.set(scheduler="synchronous"):
        return pdask.evaluate_variants(
            dd.from_pandas(run, npartitions=2), "AP", variants, qrels_columns=mapping
        ).compute()
