"""Does a reproduced run reproduce the original? Breuer et al. (2020)'s measures, as repro_eval.

:func:`reproducibility` compares original runs with their reproductions at three levels:
the document orderings (Kendall's τ Union and rank-biased overlap per query), the per-query
scores (RMSE, paired and unpaired t-tests), and the effect over a baseline (Effect Ratio,
ΔRI). Document orderings are handled for all (system, query) lists at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_run
from pdireval.core.segments import natural_order, order_key
from pdireval.errors import (
    OptionError,
    SchemaError,
    check_bool,
    check_int,
    check_option,
    check_real,
    options_by_name,
)
from pdireval.evaluation import evaluate
from pdireval.io import as_frame
from pdireval.stats import _adapters as adapters
from pdireval.stats.rank_overlap import inversions, rbo_truncated

__all__ = ["reproducibility", "REPRODUCIBILITY_STATISTICS"]

#: the ``statistic`` values of :func:`reproducibility`, in output order
REPRODUCIBILITY_STATISTICS = (
    "ktu",
    "rbo",
    "mean_original",
    "mean_reproduced",
    "rmse",
    "p_value_paired",
    "p_value_unpaired",
    "effect_ratio",
    "delta_ri",
    "p_equivalence",
    "equivalent",
)


def _ordered(run: pd.DataFrame, order: str, depth: int) -> pd.DataFrame:
    """(system, query, doc, pos) of the first ``depth`` documents of every list, trec_eval order."""
    frame = run[["system", "query", "doc"]].copy()
    if order == "score" and "score" in run.columns:
        # core.segments' trec_eval order (scores as C floats), ties by doc id descending
        frame["_key"] = order_key(run, "score")
        frame = frame.sort_values(
            ["system", "query", "_key", "doc"], ascending=[True, True, True, False], kind="stable"
        )
    else:
        if "rank" not in run.columns:
            raise SchemaError("order='rank' needs a 'rank' column in the runs; it has none.")
        frame["_key"] = order_key(run, "rank")
        frame = frame.sort_values(["system", "query", "_key", "doc"], kind="stable")
    frame["pos"] = frame.groupby(["system", "query"], sort=False).cumcount().to_numpy(np.int64)
    frame = frame[frame["pos"].to_numpy() < depth]
    return frame.drop(columns="_key").reset_index(drop=True)


def _document_order(orig: pd.DataFrame, rep: pd.DataFrame, *, depth: int, p: float):
    """Per (system, query) list both runs hold: KTU and RBO, as a frame."""
    a = _ordered(orig, "score" if "score" in orig.columns else "rank", depth)
    b = _ordered(rep, "score" if "score" in rep.columns else "rank", depth)
    segs = (
        a[["system", "query"]]
        .drop_duplicates()
        .merge(b[["system", "query"]].drop_duplicates(), on=["system", "query"], how="inner")
    )
    segs = segs.sort_values(["system", "query"], kind="stable", ignore_index=True)
    segs["seg"] = np.arange(len(segs))
    a = a.merge(segs, on=["system", "query"], how="inner")
    b = b.merge(segs, on=["system", "query"], how="inner")
    # the union of the two (trimmed) lists, numbered by doc id order within each list pair
    union = pd.concat([a[["seg", "doc"]], b[["seg", "doc"]]], ignore_index=True)
    union = union.drop_duplicates().sort_values(["seg", "doc"], kind="stable", ignore_index=True)
    union["code"] = union.groupby("seg", sort=False).cumcount().to_numpy(np.int64)
    a = a.merge(union, on=["seg", "doc"], how="left")
    b = b.merge(union, on=["seg", "doc"], how="left")
    n_seg = len(segs)
    width = int(union["code"].max()) + 1 if len(union) else 1
    len_a = np.bincount(a["seg"].to_numpy(), minlength=n_seg)
    len_b = np.bincount(b["seg"].to_numpy(), minlength=n_seg)
    # RBO: positions of every union document in each list (-1 = not in it)
    pos_a = np.full((n_seg, width), -1, dtype=np.int64)
    pos_b = np.full((n_seg, width), -1, dtype=np.int64)
    pos_a[a["seg"].to_numpy(), a["code"].to_numpy()] = a["pos"].to_numpy()
    pos_b[b["seg"].to_numpy(), b["code"].to_numpy()] = b["pos"].to_numpy()
    rbo = rbo_truncated(pos_a, pos_b, p, depth)
    # KTU: τ between the two sequences of union codes read in ranking order
    n = np.minimum(len_a, len_b)
    seq_w = max(1, int(max(len_a.max(initial=0), len_b.max(initial=0))))
    xa = np.full((n_seg, seq_w), np.inf)
    xb = np.full((n_seg, seq_w), np.inf)
    xa[a["seg"].to_numpy(), a["pos"].to_numpy()] = a["code"].to_numpy()
    xb[b["seg"].to_numpy(), b["pos"].to_numpy()] = b["code"].to_numpy()
    cut = np.arange(seq_w)[None, :] < n[:, None]
    xa = np.where(cut, xa, np.inf)
    order = np.argsort(xa, axis=1, kind="stable")
    yb = np.take_along_axis(np.where(cut, xb, np.inf), order, axis=1)
    disc = inversions(np.where(np.isfinite(yb), yb, 0.0), n)
    n0 = n * (n - 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        ktu = np.where(n >= 2, 1.0 - 2.0 * disc / np.where(n0 > 0, n0, 1.0), np.nan)
    segs["ktu"] = ktu
    segs["rbo"] = rbo
    return segs


def _t_paired(x, y):
    d = x - y
    n = len(d)
    if n < 2:
        return np.nan
    m = d.mean()
    sd = d.std(ddof=1)
    if sd == 0:
        return 1.0 if m == 0 else 0.0
    return float(min(1.0, 2.0 * adapters.t_sf(abs(m) / (sd / np.sqrt(n)), n - 1)))


def _t_unpaired(x, y):
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return np.nan
    sp2 = ((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2)
    diff = x.mean() - y.mean()
    if sp2 == 0:
        return 1.0 if diff == 0 else 0.0
    t = diff / np.sqrt(sp2 * (1.0 / n1 + 1.0 / n2))
    return float(min(1.0, 2.0 * adapters.t_sf(abs(t), n1 + n2 - 2)))


def _tost_paired(x, y, margin):
    """TOST p-value of |mean(x − y)| < margin: the larger one-sided paired t p-value."""
    from pdireval.stats.paired_tests import t_kernel

    d = (x - y).reshape(-1, 1)
    if len(d) < 2:
        return np.nan
    p_lower = t_kernel(d + margin, "greater")[1][0]
    p_upper = t_kernel(d - margin, "less")[1][0]
    return float(max(p_lower, p_upper))


def _tost_unpaired(x, y, margin):
    """TOST p-value of |mean x − mean y| < margin with Student's pooled-variance t-tests."""
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return np.nan
    sp2 = ((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2)
    diff = x.mean() - y.mean()
    if sp2 == 0:
        return 0.0 if abs(diff) < margin else 1.0
    se = np.sqrt(sp2 * (1.0 / n1 + 1.0 / n2))
    df = n1 + n2 - 2
    p_lower = adapters.t_p((diff + margin) / se, df, "greater")
    p_upper = adapters.t_p((diff - margin) / se, df, "less")
    return float(max(p_lower, p_upper))


def _ratio(num, den):
    return float(num / den) if den != 0 and np.isfinite(den) else np.nan


@options_by_name
def reproducibility(
    original: pd.DataFrame,
    reproduced: pd.DataFrame,
    *,
    qrels: pd.DataFrame,
    measures: str | Sequence[str] = ("AP", "nDCG", "P@10"),
    baseline: str | None = None,
    reproduced_qrels: pd.DataFrame | None = None,
    depth: int = 1000,
    p: float = 0.95,
    per_query: bool = False,
    margin: float | None = None,
    alpha: float = 0.05,
    columns: Mapping[str, str] | None = None,
    qrels_columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    r"""How well reproduced runs reproduce the originals (Breuer et al. 2020).

    ``original`` and ``reproduced`` are run frames holding the same system names (e.g. a
    baseline ``"bm25"`` and an advanced ``"bm25+rm3"``, each as published and as
    reproduced). Per system:

    * ``ktu`` — Kendall's τ Union, the mean over queries of τ between the two lists read as
      sequences of document numbers, the documents of the union of the two top-``depth``
      lists numbered in doc-id order (repro_eval's definition; lists of unequal length are
      compared over the shorter length, where repro_eval raises);
    * ``rbo`` — the mean over queries of rank-biased overlap truncated at ``depth`` and
      normalised by its weights, Σ_{d≤D} p^{d−1} X_d/d / Σ_{d≤D} p^{d−1} (Clarke et al.
      2021's form, as repro_eval);
    * per measure: ``mean_original``, ``mean_reproduced`` (each over its own queries),
      ``rmse`` = √(mean over shared queries of (original − reproduced)²),
      ``p_value_paired`` (two-sided paired t-test on the shared queries) and
      ``p_value_unpaired`` (two-sided Student t-test, pooled variance) — identical score
      vectors give p = 1;
    * with ``baseline`` (a system name), for every other system a: ``effect_ratio`` =
      mean_q(a′ − b′) / mean_q(a − b) (reproduced over original mean improvement; 1 for a
      perfect reproduction) and ``delta_ri`` = RI − RI′ with RI = (mean_a − mean_b) / mean_b
      (0 for a perfect reproduction; repro_eval's sign).

    * with ``margin=δ``, per measure: ``p_equivalence``, the TOST p-value (Schuirmann 1987)
      of "the reproduced mean is within δ of the original" — the larger of the two one-sided
      t-tests of H0: μ_o − μ_r ≤ −δ and H0: μ_o − μ_r ≥ δ (paired on the shared queries;
      Student's pooled-variance tests with ``reproduced_qrels``) — and ``equivalent``, 1.0
      when p_equivalence < ``alpha`` (the reproduction is equivalent within δ), else 0.0.
      Choose δ before looking at the reproduction: the smallest difference in the measure
      that would change a conclusion of the original paper (e.g. a fraction of its reported
      improvement over the baseline). "Not significantly different" (a large
      ``p_value_paired``) is no evidence of equivalence; a small ``p_equivalence`` is.

    With ``reproduced_qrels`` the reproduction ran on another collection (replicability):
    only the score-level statistics that do not pair queries are given (``mean_*``,
    ``p_value_unpaired``, ``effect_ratio``, ``delta_ri``).

    Parameters
    ----------
    original, reproduced
        Run frames (``system, query, doc, score`` and/or ``rank``); lists are ordered as
        trec_eval orders them (score descending compared at float32 precision, ties by doc
        id descending; by rank when there is no score). repro_eval compares the exact
        scores, so the two orders (and KTU / RBO) differ only where two scores of a list are
        equal in float32 but not in float64.
    qrels
        Judgments of the original collection (and of the reproduction when
        ``reproduced_qrels`` is None).
    measures
        Measure strings for the score-level statistics (see :func:`pdireval.measures`).
        Queries a system did not answer are left out (trec_eval's default).
    baseline
        The baseline system for Effect Ratio and ΔRI.
    depth, p
        Depth of the compared lists (KTU and RBO) and the RBO persistence (repro_eval's
        defaults 1000 and 0.95).
    per_query
        Return the per-query KTU and RBO instead: ``system, query, statistic, value``.
    margin
        Equivalence margin δ > 0 in the measures' units (None: no equivalence rows).
    alpha
        Level of the equivalence decision ``equivalent``.
    columns, qrels_columns
        ``{canonical name: your column name}`` for the runs and for the qrels.

    Returns
    -------
    DataFrame
        ``system``, ``measure`` (None for ``ktu`` and ``rbo``), ``statistic`` (names above, in
        that order within a system), ``value`` (float64; NaN where undefined, e.g. an Effect
        Ratio over a zero original improvement), ``n_queries`` (queries used). Systems in
        sorted order, the baseline first.

    References
    ----------
    Breuer, T., Ferro, N., Fuhr, N., Maistro, M., Sakai, T., Schaer, P., Soboroff, I.
    (2020). How to measure the reproducibility of system-oriented IR experiments. SIGIR.
    Clarke, C. L. A., Vtyurina, A., Smucker, M. D. (2021). Assessing top-k preferences.
    ACM TOIS.
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
    approach for assessing the equivalence of average bioavailability. Journal of
    Pharmacokinetics and Biopharmaceutics 15(6).
    """
    depth = check_int("depth", depth, minimum=1)
    if margin is not None:
        margin = check_real("margin", margin, low=0.0, inclusive=False)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, inclusive=False)
    p = check_real("p", p, low=0.0, high=1.0, inclusive=False)
    per_query = check_bool("per_query", per_query)
    orig = canonical_run(as_frame(original, "run"), columns)
    rep = canonical_run(as_frame(reproduced, "run"), columns)
    baseline, systems = _paired_systems(orig, rep, baseline)
    same_collection = reproduced_qrels is None
    if same_collection:
        _check_shared_queries(orig, rep)
    if per_query:
        if not same_collection:
            raise OptionError(
                "per_query=True gives the per-query KTU and RBO, which compare lists for the "
                "same queries; a replication on another collection (reproduced_qrels=) has none."
            )
        return _per_query_orders(orig, rep, systems, depth=depth, p=p)
    scores_o = evaluate(orig, measures, qrels=qrels, missing="drop", qrels_columns=qrels_columns)
    scores_r = evaluate(
        rep,
        measures,
        qrels=qrels if same_collection else reproduced_qrels,
        missing="drop",
        qrels_columns=qrels_columns,
    )
    measure_names = list(pd.unique(scores_o["measure"]))
    rows = []
    if same_collection:
        segs = _document_order(orig, rep, depth=depth, p=p)
        by_sys = segs.groupby("system", sort=False)
        ktu = by_sys["ktu"].mean()
        rbo = by_sys["rbo"].mean()
        n_lists = by_sys.size()
    for system in systems:
        if same_collection:
            n_l = int(n_lists.get(system, 0))
            rows.append((system, None, "ktu", float(ktu.get(system, np.nan)), n_l))
            rows.append((system, None, "rbo", float(rbo.get(system, np.nan)), n_l))
        for measure in measure_names:
            xo = _scores(scores_o, system, measure)
            xr = _scores(scores_r, system, measure)
            rows += _score_rows(system, measure, xo, xr, same_collection=same_collection)
            if baseline is not None and system != baseline:
                bo = _scores(scores_o, baseline, measure)
                br = _scores(scores_r, baseline, measure)
                rows += _effect_rows(system, measure, xo, xr, bo, br)
            if margin is not None:
                rows += _equivalence_rows(
                    system, measure, xo, xr, margin=margin, alpha=alpha, paired=same_collection
                )
    out = pd.DataFrame(rows, columns=["system", "measure", "statistic", "value", "n_queries"])
    out["value"] = out["value"].astype(np.float64)
    out["n_queries"] = out["n_queries"].astype(np.int64)
    return out


def _paired_systems(orig: pd.DataFrame, rep: pd.DataFrame, baseline: str | None):
    """The checked baseline and the systems in output order (the baseline first)."""
    systems_o = sorted(pd.unique(orig["system"]))
    systems_r = sorted(pd.unique(rep["system"]))
    if systems_o != systems_r:
        only = sorted(set(systems_o) ^ set(systems_r))
        raise SchemaError(
            f"original and reproduced hold different systems: {len(only)} system(s) in only one "
            f"of them, e.g. {only[:3]}.\nName each reproduced run like its original (the "
            "'system' column), so the two can be paired."
        )
    if baseline is not None:
        check_option("baseline", str(baseline), systems_o)
        baseline = str(baseline)
        systems = [baseline] + [s for s in systems_o if s != baseline]
    else:
        systems = systems_o
    return baseline, systems


def _check_shared_queries(orig: pd.DataFrame, rep: pd.DataFrame) -> None:
    """Raise unless the two runs share a query (a reproduction on the same collection)."""
    queries_o = set(orig["query"].astype(str))
    queries_r = set(rep["query"].astype(str))
    if not queries_o & queries_r:
        raise SchemaError(
            f"original and reproduced share no query (original: {len(queries_o)} queries, "
            f"e.g. {sorted(queries_o)[:3]}; reproduced: {len(queries_r)}, e.g. "
            f"{sorted(queries_r)[:3]}), so no query can be compared. Check that the query ids "
            "are spelled alike; for a replication on another collection, pass "
            "reproduced_qrels= (its own judgments)."
        )


def _per_query_orders(orig, rep, systems, *, depth: int, p: float) -> pd.DataFrame:
    """The per-query KTU and RBO, long: ``system, query, statistic, value``."""
    segs = _document_order(orig, rep, depth=depth, p=p)
    long = segs.melt(
        id_vars=["system", "query"],
        value_vars=["ktu", "rbo"],
        var_name="statistic",
        value_name="value",
    )
    queries = pd.unique(long["query"].to_numpy(dtype=object))
    q_rank = dict(zip(queries[natural_order(queries)], range(len(queries))))
    long["_s"] = long["system"].map({s: i for i, s in enumerate(systems)})
    long["_q"] = long["query"].map(q_rank)
    long = long.sort_values(["_s", "statistic", "_q"], kind="stable")
    out = long.drop(columns=["_s", "_q"]).reset_index(drop=True)
    out["value"] = out["value"].astype(np.float64)
    return out


def _scores(frame: pd.DataFrame, system, measure) -> pd.Series:
    """One system's per-query values of one measure, indexed by query."""
    sel = frame[(frame["system"] == system).to_numpy() & (frame["measure"] == measure).to_numpy()]
    return pd.Series(sel["value"].to_numpy(np.float64), index=sel["query"].to_numpy(dtype=object))


def _score_rows(system, measure, xo: pd.Series, xr: pd.Series, *, same_collection: bool):
    """Means, RMSE and t-test rows of one system and measure."""
    rows = [
        (system, measure, "mean_original", float(xo.mean()), len(xo)),
        (system, measure, "mean_reproduced", float(xr.mean()), len(xr)),
    ]
    if same_collection:
        shared = xo.index.intersection(xr.index)
        d = xo.loc[shared].to_numpy() - xr.loc[shared].to_numpy()
        rmse = float(np.sqrt(np.mean(d**2))) if len(d) else np.nan
        rows.append((system, measure, "rmse", rmse, len(shared)))
        p_paired = _t_paired(xo.loc[shared].to_numpy(), xr.loc[shared].to_numpy())
        rows.append((system, measure, "p_value_paired", p_paired, len(shared)))
    p_unpaired = _t_unpaired(xo.to_numpy(), xr.to_numpy())
    rows.append((system, measure, "p_value_unpaired", p_unpaired, len(xo) + len(xr)))
    return rows


def _mean_improvement(x: pd.Series, base: pd.Series) -> float:
    """Mean over the queries both hold of x − base (NaN when they share none)."""
    shared = x.index.intersection(base.index)
    if not len(shared):
        return np.nan
    return float(np.mean(x.loc[shared].to_numpy() - base.loc[shared].to_numpy()))


def _effect_rows(system, measure, xo, xr, bo, br):
    """Effect Ratio and ΔRI rows of one system over the baseline."""
    imp_o = _mean_improvement(xo, bo)
    imp_r = _mean_improvement(xr, br)
    n_r = len(xr.index.intersection(br.index))
    ri_o = _ratio(xo.mean() - bo.mean(), bo.mean())
    ri_r = _ratio(xr.mean() - br.mean(), br.mean())
    return [
        (system, measure, "effect_ratio", _ratio(imp_r, imp_o), n_r),
        (system, measure, "delta_ri", ri_o - ri_r, len(xr)),
    ]


def _equivalence_rows(system, measure, xo, xr, *, margin: float, alpha: float, paired: bool):
    """TOST p-value and equivalence verdict rows (paired on the shared queries or not)."""
    if paired:
        shared = xo.index.intersection(xr.index)
        p_eq = _tost_paired(xo.loc[shared].to_numpy(), xr.loc[shared].to_numpy(), margin)
        n_eq = len(shared)
    else:
        p_eq = _tost_unpaired(xo.to_numpy(), xr.to_numpy(), margin)
        n_eq = len(xo) + len(xr)
    verdict = np.nan if np.isnan(p_eq) else float(p_eq < alpha)
    return [
        (system, measure, "p_equivalence", p_eq, n_eq),
        (system, measure, "equivalent", verdict, n_eq),
    ]
