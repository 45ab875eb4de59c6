"""Qrels subsampling and evaluation over qrels variants."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.errors import PdirevalWarning, SchemaError

# --------------------------------------------------------------------------- a literal oracle


def literal_subsample(qrels: pd.DataFrame, levels, repeats, seed, nested=False, min_relevant=1, rel=1.0):
    """The subsampling protocol written out with Python lists of doc id strings: {(x, r): set of (q, d)}."""
    topics = sorted({str(q) for q in qrels["query"]})
    by_topic = {}
    for q, d, lab in zip(qrels["query"].astype(str), qrels["doc"].astype(str), qrels["label"]):
        if isinstance(lab, float) and math.isnan(lab):
            continue
        strata = by_topic.setdefault(q, ([], []))
        strata[0 if lab >= rel else 1].append(d)
    out = {}

    def keep(x, m, is_rel):
        k = math.floor(x * m / 100 + 0.5)
        return max(k, min(min_relevant, m)) if is_rel else k

    for r in range(repeats):
        if nested:
            g = np.random.default_rng(seed + r)
            perms = {}
            for t in topics:
                rel_docs, non_docs = (sorted(s) for s in by_topic.get(t, ([], [])))
                perms[t] = (list(g.permutation(rel_docs)), list(g.permutation(non_docs)))
            for x in levels:
                kept = set()
                for t in topics:
                    pr, pn = perms[t]
                    kept |= {(t, d) for d in pr[: keep(x, len(pr), True)]}
                    kept |= {(t, d) for d in pn[: keep(x, len(pn), False)]}
                out[(x, r)] = kept
        else:
            for x in levels:
                g = np.random.default_rng(seed + r)
                kept = set()
                for t in topics:
                    rel_docs, non_docs = (sorted(s) for s in by_topic.get(t, ([], [])))
                    kept |= {(t, d) for d in g.choice(np.array(rel_docs, dtype=object), size=keep(x, len(rel_docs), True), replace=False)}
                    kept |= {(t, d) for d in g.choice(np.array(non_docs, dtype=object), size=keep(x, len(non_docs), False), replace=False)}
                out[(x, r)] = kept
    return out


@pytest.fixture(scope="module")
def small():
    run, qrels = pdireval.datasets.simulate(n_systems=5, n_queries=8, depth=60, rng=11)
    return run, qrels


def _variant_sets(sub):
    return {
        (lvl, rep): set(zip(g["query"].astype(str), g["doc"].astype(str)))
        for (lvl, rep), g in sub.groupby(["level", "repeat"])
    }


@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("min_relevant", [0, 1, 3])
def test_draws_follow_the_protocol(small, nested, min_relevant):
    _, qrels = small
    levels = (1, 5, 15, 33, 50, 90)
    sub = pdireval.subsample_qrels(qrels, levels=levels, n_resamples=3, rng=42, nested=nested, min_relevant=min_relevant)
    assert _variant_sets(sub) == literal_subsample(qrels, levels, 3, 42, nested=nested, min_relevant=min_relevant)


def test_kept_counts_per_stratum(small):
    _, qrels = small
    q = qrels.assign(query=qrels["query"].astype(str))
    judged = q[q["label"].notna()]
    m_rel = judged[judged["label"] >= 1].groupby("query").size()
    m_non = judged[judged["label"] < 1].groupby("query").size()
    sub = pdireval.subsample_qrels(qrels, levels=(3, 10, 25, 70), n_resamples=2, rng=5)
    sub = sub.assign(query=sub["query"].astype(str))
    for (x, _r), g in sub.groupby(["level", "repeat"]):
        g = g[g["label"].notna()]
        got_rel = g[g["label"] >= 1].groupby("query").size().reindex(m_rel.index, fill_value=0)
        got_non = g[g["label"] < 1].groupby("query").size().reindex(m_non.index, fill_value=0)
        want_rel = np.maximum(np.floor(x * m_rel / 100 + 0.5), np.minimum(1, m_rel))
        want_non = np.floor(x * m_non / 100 + 0.5)
        np.testing.assert_array_equal(got_rel.to_numpy(), want_rel.to_numpy())
        np.testing.assert_array_equal(got_non.to_numpy(), want_non.to_numpy())


def test_unjudged_rows_survive_and_half_rounds_up():
    qrels = pd.DataFrame(
        {
            "query": ["a"] * 6 + ["b"] * 2,
            "doc": ["d1", "d2", "d3", "d4", "d5", "d6", "e1", "e2"],
            "label": [1, 1, 0, 0, np.nan, -2, 0, 0],
        }
    )
    # level 50: relevant m=2 -> 1; non-relevant {d3, d4, d6} m=3 -> floor(1.5 + .5) = 2;
    # topic b: m=2 -> 1; NaN row d5 always kept
    sub = pdireval.subsample_qrels(qrels, levels=(50,), n_resamples=4, rng=0)
    for _, g in sub.groupby("repeat"):
        a = g[g["query"] == "a"]
        assert "d5" in set(a["doc"]) and a.loc[a["doc"] == "d5", "label"].isna().all()
        assert (a["label"] >= 1).sum() == 1
        assert ((a["label"] < 1) & a["label"].notna()).sum() == 2
        assert (g["query"] == "b").sum() == 1
    # level 20 of topic b: floor(0.4 + 0.5) = 0 -> the topic leaves the drop-mode qrels
    sub = pdireval.subsample_qrels(qrels, levels=(20,), n_resamples=1, rng=0)
    assert set(sub["query"]) == {"a"}


def test_nested_levels_are_subsets(small):
    _, qrels = small
    sub = pdireval.subsample_qrels(qrels, levels=(2, 10, 30, 60, 90), n_resamples=3, rng=9, nested=True)
    sets = _variant_sets(sub)
    for r in range(3):
        chain = [sets[(x, r)] for x in (2, 10, 30, 60, 90)]
        assert all(a <= b for a, b in zip(chain, chain[1:]))
        assert chain[0] < chain[-1]


def test_reproducible_and_frame_shape(small):
    _, qrels = small
    before = qrels.copy()
    a = pdireval.subsample_qrels(qrels, levels=(5, 50), n_resamples=2, rng=3)
    b = pdireval.subsample_qrels(qrels, levels=(5, 50), n_resamples=2, rng=3)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(qrels, before)
    assert list(a.columns) == ["query", "doc", "label", "level", "repeat"]
    assert a["level"].dtype == np.int64 and a["repeat"].dtype == np.int64
    assert isinstance(a.index, pd.RangeIndex)
    c = pdireval.subsample_qrels(qrels, levels=(5, 50), n_resamples=2, rng=np.random.default_rng(1))
    d = pdireval.subsample_qrels(qrels, levels=(5, 50), n_resamples=2, rng=np.random.default_rng(1))
    pd.testing.assert_frame_equal(c, d)
    # a level's draws do not depend on the other levels requested
    e = pdireval.subsample_qrels(qrels, levels=(50,), n_resamples=2, rng=3)
    pd.testing.assert_frame_equal(e, a[a["level"] == 50].reset_index(drop=True))
    # accessor mirror
    pd.testing.assert_frame_equal(qrels.ireval.subsample_qrels(levels=(5, 50), n_resamples=2, rng=3), a)


def test_unjudged_mode_keeps_every_row(small):
    _, qrels = small
    drop = pdireval.subsample_qrels(qrels, levels=(10,), n_resamples=2, rng=4)
    unj = pdireval.subsample_qrels(qrels, levels=(10,), n_resamples=2, rng=4, mode="unjudged")
    assert len(unj) == 2 * len(qrels)
    kept = unj[unj["label"].notna()].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, drop[drop["label"].notna()].reset_index(drop=True))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"levels": (0, 10)}, "percentages"),
        ({"levels": (0.1,)}, None),
        ({"levels": (10, 10)}, "repeats a level"),
        ({"levels": ()}, "empty"),
        ({"levels": (150,)}, "percentages"),
        ({"mode": "delete"}, "mode="),
        ({"n_resamples": 0}, "n_resamples="),
        ({"min_relevant": -1}, "min_relevant="),
        ({"rng": "seed"}, "rng="),
    ],
)
def test_bad_arguments(small, kwargs, match):
    _, qrels = small
    if match is None:  # 0.1% is a legal (if tiny) level, with a warning that it looks like a fraction
        with pytest.warns(PdirevalWarning, match="look like fractions"):
            pdireval.subsample_qrels(qrels, n_resamples=1, rng=0, **kwargs)
        return
    with pytest.raises((ValueError, TypeError), match=match):
        pdireval.subsample_qrels(qrels, **kwargs)


# --------------------------------------------------------------------------- evaluation over variants

MEASURES = ["AP", "Bpref", "infAP", "nDCG", "AP(judged_only=true)", "nDCG(judged_only=true)@10",
            "P@10", "ERR@20", "GAP", "NumRel", "Rprec", "RR", "Judged@10"]


@pytest.mark.parametrize("mode", ["drop", "unjudged"])
@pytest.mark.parametrize("missing", ["zero", "drop"])
def test_variants_equal_plain_evaluate(small, mode, missing):
    run, qrels = small
    run = run[~((run["system"] == run["system"].iloc[0]) & (run["query"] == run["query"].iloc[0]))]
    sub = pdireval.subsample_qrels(qrels, levels=(1, 4, 20, 80), n_resamples=2, rng=1, mode=mode, min_relevant=0)
    got = pdireval.evaluate_variants(run, MEASURES, sub, missing=missing)
    assert list(got.columns) == ["level", "repeat", "system", "query", "measure", "value"]
    n_queries = []
    for (x, r), g in sub.groupby(["level", "repeat"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)  # queries that left the variant
            want = pdireval.evaluate(run, MEASURES, qrels=g[["query", "doc", "label"]], missing=missing)
        part = got[(got["level"] == x) & (got["repeat"] == r)].drop(columns=["level", "repeat"])
        pd.testing.assert_frame_equal(part.reset_index(drop=True), want)
        n_queries.append(want["query"].nunique())
    if mode == "drop":  # some variant lost a topic: that path is covered
        assert min(n_queries) < max(n_queries)


def test_variants_any_key_columns_and_row_order(small):
    run, qrels = small
    a = qrels.assign(split="a")
    b = qrels.sample(frac=0.5, random_state=0).assign(split="b")
    variants = pd.concat([b, a]).sample(frac=1.0, random_state=1)  # shuffled rows
    got = pdireval.evaluate_variants(run, ["AP", "nDCG@5"], variants)
    assert list(got["split"].unique()) == ["a", "b"]
    want = pdireval.evaluate(run, ["AP", "nDCG@5"], qrels=b.drop(columns="split"))
    pd.testing.assert_frame_equal(got[got["split"] == "b"].drop(columns="split").reset_index(drop=True), want)
    # no key column at all: one variant = evaluate
    pd.testing.assert_frame_equal(pdireval.evaluate_variants(run, "AP", qrels), pdireval.evaluate(run, "AP", qrels=qrels))


def test_variants_errors(small):
    run, qrels = small
    sub = pdireval.subsample_qrels(qrels, levels=(50,), n_resamples=2, rng=0)
    with pytest.raises(SchemaError, match="repeated"):
        pdireval.evaluate_variants(run, "AP", sub.drop(columns="repeat"))
    with pytest.raises(SchemaError, match="lack column"):
        pdireval.evaluate_variants(run, "AP", sub.drop(columns="label"))
    with pytest.raises(SchemaError, match="share nothing"):
        pdireval.evaluate_variants(run, "AP", sub.assign(query="zz" + sub["query"].astype(str)))
    with pytest.raises(SchemaError, match="missing value"):
        pdireval.evaluate_variants(run, "AP", sub.assign(level=np.where(np.arange(len(sub)) == 0, np.nan, 50.0)))
    extra = pd.concat([sub, pd.DataFrame({"query": ["nowhere"], "doc": ["x"], "label": [1.0], "level": [50], "repeat": [0]})])
    run2 = pd.concat([run, run.iloc[:1].assign(query="orphan")])
    with pytest.warns(PdirevalWarning, match="judged in no"):
        pdireval.evaluate_variants(run2, "AP", extra)


def _trec_eval_infap(run: pd.DataFrame, qrels: pd.DataFrame) -> dict:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qd: dict = {}
    for q, d, lab in zip(qrels["query"].astype(str), qrels["doc"].astype(str), qrels["label"]):
        qd.setdefault(q, {})[d] = -1 if np.isnan(lab) else int(lab)
    rd: dict = {}
    for q, d, s in zip(run["query"].astype(str), run["doc"].astype(str), run["score"]):
        rd.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qd, {"infAP"}).evaluate(rd)


def test_unjudged_infap_matches_trec_eval(small):
    run, qrels = small
    qrels = qrels[qrels["label"] >= 0]  # trec_eval reads negatives as unjudged; keep labels plain
    sub = pdireval.subsample_qrels(qrels, levels=(5, 30, 70), n_resamples=2, rng=8, mode="unjudged")
    scores = pdireval.evaluate_variants(run, "infAP", sub, missing="drop")
    for system in run["system"].unique()[:2]:
        one = run[run["system"] == system]
        for (x, r), g in sub.groupby(["level", "repeat"]):
            ref = _trec_eval_infap(one, g)
            mine = scores[(scores["level"] == x) & (scores["repeat"] == r) & (scores["system"] == system)]
            assert len(mine) == len(ref)
            for q, v in zip(mine["query"].astype(str), mine["value"]):
                assert v == pytest.approx(ref[q]["infAP"], abs=1e-4)


@pytest.mark.slow
def test_robust03_variants_and_trec_eval(robust03):
    run, qrels = robust03
    sub = pdireval.subsample_qrels(qrels, levels=(3, 30), n_resamples=2, rng=2, mode="unjudged")
    runs = run[run["system"].isin(sorted(run["system"].unique())[:3])]
    got = pdireval.evaluate_variants(runs, ["infAP", "AP", "Bpref"], sub, missing="drop")
    for (x, r), g in sub.groupby(["level", "repeat"]):
        want = pdireval.evaluate(runs, ["infAP", "AP", "Bpref"], qrels=g[["query", "doc", "label"]], missing="drop")
        part = got[(got["level"] == x) & (got["repeat"] == r)].drop(columns=["level", "repeat"])
        pd.testing.assert_frame_equal(part.reset_index(drop=True), want)
    one = runs[runs["system"] == runs["system"].iloc[0]]
    g = sub[(sub["level"] == 3) & (sub["repeat"] == 1)]
    ref = _trec_eval_infap(one, g)
    mine = got[(got["level"] == 3) & (got["repeat"] == 1) & (got["system"] == one["system"].iloc[0]) & (got["measure"] == "infAP")]
    for q, v in zip(mine["query"].astype(str), mine["value"]):
        assert v == pytest.approx(ref[q]["infAP"], abs=1e-4)


def test_completeness_correlation_against_scipy(small):
    from scipy import stats

    run, qrels = small
    sub = pdireval.subsample_qrels(qrels, levels=(5, 40), n_resamples=2, rng=6)
    var = pdireval.evaluate_variants(run, ["AP", "Bpref"], sub)
    full = pdireval.evaluate(run, ["AP", "Bpref"], qrels=qrels)
    out = pdireval.completeness_correlation(var, full)
    assert list(out.columns) == ["measure", "level", "repeat", "method", "statistic", "p_value", "n_systems"]
    assert len(out) == 2 * 2 * 2 * 2 and out["measure"].tolist()[:8] == ["AP"] * 8
    ref = full.groupby(["measure", "system"])["value"].mean()
    for row in out.itertuples():
        x = var[(var["measure"] == row.measure) & (var["level"] == row.level) & (var["repeat"] == row.repeat)]
        x = x.groupby("system")["value"].mean().sort_index()
        y = ref.loc[row.measure].loc[x.index]
        fn = stats.kendalltau if row.method == "kendall_b" else stats.spearmanr
        want = fn(x.to_numpy(), y.to_numpy())
        assert row.statistic == pytest.approx(want[0]) and row.p_value == pytest.approx(want[1])
    with pytest.raises(SchemaError, match="lack measure"):
        pdireval.completeness_correlation(var, full[full["measure"] == "AP"])
    with pytest.raises(ValueError, match="method="):
        pdireval.completeness_correlation(var, full, method="tau_x")
    pd.testing.assert_frame_equal(var.ireval.completeness_correlation(full), out)


def test_plots(small):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pdireval import plot

    run, qrels = small
    sub = pdireval.subsample_qrels(qrels, levels=(5, 40), n_resamples=2, rng=6)
    var = pdireval.evaluate_variants(run, ["AP", "Bpref"], sub)
    corr = pdireval.completeness_correlation(var, pdireval.evaluate(run, ["AP", "Bpref"], qrels=qrels))
    fig = plot.completeness_curves(corr)
    assert len(fig.axes[0].lines) == 2
    with pytest.raises(SchemaError, match="completeness_correlation"):
        plot.completeness_curves(var)
    with pytest.raises(SchemaError, match="method="):
        plot.completeness_curves(corr, method="pearson")
    full = pdireval.evaluate(run, ["AP", "Bpref"], qrels=qrels)
    queries = sorted(full["query"].unique())
    res = pdireval.train_by_measure(full, train=queries[:4], test=queries[4:], train_scores=var)
    fig2 = plot.training_curves(res, eval_measure="AP")
    assert len(fig2.axes[0].lines) == 2
    # one measure as a string is that measure, not its letters (issue 13)
    assert len(plot.training_curves(res, eval_measure="AP", train_measures="AP").axes[0].lines) == 1
    plt.close("all")


def test_property_variants_equal_evaluate():
    """Random collections, levels, modes and seeds: evaluate_variants == evaluate per variant."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=12, deadline=None)
    @given(
        seed=st.integers(0, 10_000),
        levels=st.lists(st.sampled_from([1, 3, 10, 25, 50, 75, 100]), min_size=1, max_size=3, unique=True),
        mode=st.sampled_from(["drop", "unjudged"]),
        nested=st.booleans(),
        min_relevant=st.integers(0, 2),
    )
    def check(seed, levels, mode, nested, min_relevant):
        run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=4, depth=25, rng=seed)
        sub = pdireval.subsample_qrels(qrels, levels=levels, n_resamples=2, rng=seed, mode=mode, nested=nested,
                                       min_relevant=min_relevant)
        measures = ["AP", "infAP", "Bpref", "nDCG@10", "AP(judged_only=true)", "ERR@10"]
        if sub.empty:  # min_relevant=0 at a tiny level can remove every judgment
            with pytest.raises(SchemaError, match="empty"):
                pdireval.evaluate_variants(run, measures, sub)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)  # queries absent from every variant
            got = pdireval.evaluate_variants(run, measures, sub)
        for (x, r), g in sub.groupby(["level", "repeat"]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PdirevalWarning)
                want = pdireval.evaluate(run, measures, qrels=g[["query", "doc", "label"]])
            part = got[(got["level"] == x) & (got["repeat"] == r)].drop(columns=["level", "repeat"])
            pd.testing.assert_frame_equal(part.reset_index(drop=True), want)

    check()
