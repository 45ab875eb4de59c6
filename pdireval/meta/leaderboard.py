"""Do two sets of judgments (or two measures) rank the systems alike? One call, one table.

:func:`leaderboard_agreement` compares the leaderboards two scores frames induce — e.g. the
same runs evaluated with human and with LLM qrels — by rank correlation (Kendall's τ_b,
τ_AP), rank-biased overlap, top-k overlap, the largest rank change, the per-query score
correlation, and how often the two frames reach the same significance decision on a pair of
systems.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.chunking import CHUNK_CELLS, chunks
from pdireval.core.groups import check_same_grouping, group_columns, group_matrices
from pdireval.errors import OptionError, SchemaError, check_bool, check_int, check_real
from pdireval.meta.inputs import meta_scores
from pdireval.stats import _adapters as adapters
from pdireval.stats.means import exact_means, mid_ranks
from pdireval.stats.rank_correlation import kendall_tau, tau_ap, tau_ap_b
from pdireval.stats.rank_overlap import kendall_tau_b_rows, rbo_ext_ties, top_k_overlap_ties

if TYPE_CHECKING:
    from pdireval.types import RngLike

__all__ = ["leaderboard_agreement", "LEADERBOARD_STATISTICS", "leaderboard_positions"]

#: the ``statistic`` values of :func:`leaderboard_agreement`, in output order
LEADERBOARD_STATISTICS = (
    "kendall_tau_b",
    "tau_ap",
    "tau_ap_b",
    "rbo",
    "top_k_overlap",
    "max_rank_change",
    "score_pearson",
    "query_kendall_mean",
    "sig_agreement",
    "sig_both_same",
    "sig_both_flipped",
    "sig_only_scores",
    "sig_only_other",
    "sig_neither",
)


def leaderboard_positions(means: np.ndarray, systems) -> np.ndarray:
    """0-based leaderboard position of each system: mean descending, ties by system name."""
    names = np.asarray(systems, dtype=object).astype(str)
    order = np.lexsort((names, -np.asarray(means, dtype=np.float64)))
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    return pos


def _paired_t_pvalues(x: np.ndarray, i: np.ndarray, j: np.ndarray):
    """Two-sided paired t-test p-value and mean difference of columns i − j of x [Q, S].

    The variance of a difference comes from the covariance matrix, var(x_i − x_j) =
    v_i + v_j − 2 c_ij, computed in blocks of systems (one matrix product per block, memory
    bounded); pairs whose variance is at rounding level are recomputed from their
    differences, so an exactly constant difference gets p = 1 (zero mean) or 0 (else).
    """
    n = x.shape[0]
    mean = x.mean(axis=0)
    if n < 2:
        return np.full(len(i), np.nan), mean[i] - mean[j]
    centred = x - mean
    var = (centred**2).sum(axis=0) / (n - 1)
    var_d = np.empty(len(i))
    n_s = x.shape[1]
    block = max(1, CHUNK_CELLS // max(1, n_s))  # rows of the covariance matrix per block
    order = np.argsort(i, kind="stable")
    bounds = np.searchsorted(i[order], np.arange(0, n_s + block, block))
    for b, start in enumerate(range(0, n_s, block)):
        sel = order[bounds[b] : bounds[b + 1]]
        if len(sel) == 0:
            continue
        cov = centred[:, start : start + block].T @ centred / (n - 1)
        var_d[sel] = var[i[sel]] + var[j[sel]] - 2.0 * cov[i[sel] - start, j[sel]]
    diff = mean[i] - mean[j]
    scale = var[i] + var[j]
    tiny = np.flatnonzero(var_d <= 1e-9 * np.where(scale > 0, scale, 1.0))
    for sl in chunks(len(tiny), n):  # exact differences for the near-constant pairs only
        k = tiny[sl]
        d = x[:, i[k]] - x[:, j[k]]
        var_d[k] = d.var(axis=0, ddof=1)
        diff[k] = d.mean(axis=0)
    var_d = np.maximum(var_d, 0.0)
    sd = np.sqrt(var_d)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = diff / (sd / np.sqrt(n))
    p = 2.0 * adapters.t_sf(np.abs(t), n - 1)
    p = np.where(sd > 0, p, np.where(diff == 0, 1.0, 0.0))
    return np.minimum(p, 1.0), diff


def _group_rows(xa, xb, systems, *, p, k, alpha):
    """Statistic values (in LEADERBOARD_STATISTICS order) and the per-system table."""
    n_s = xa.shape[1]
    mean_a = exact_means(xa)  # equal exact sums tie, whatever the order of the queries
    mean_b = exact_means(xb)
    pos_a = leaderboard_positions(mean_a, systems)
    pos_b = leaderboard_positions(mean_b, systems)
    values = {}
    values["kendall_tau_b"] = kendall_tau(mean_a, mean_b, variant="b")
    tied = len(np.unique(mean_a)) < n_s or len(np.unique(mean_b)) < n_s
    values["tau_ap"] = np.nan if tied or n_s < 2 else tau_ap(mean_b, mean_a)
    values["tau_ap_b"] = tau_ap_b(mean_a, mean_b)
    # tie-aware (tied means in either frame never make these depend on system names)
    values["rbo"] = rbo_ext_ties(mean_a, mean_b, p)
    values["top_k_overlap"] = top_k_overlap_ties(mean_a, mean_b, min(k, n_s))
    values["max_rank_change"] = float(np.abs(mid_ranks(mean_a) - mid_ranks(mean_b)).max())
    a, b = xa.ravel(), xb.ravel()
    values["score_pearson"] = adapters.pearson(a, b)[0]
    per_query = kendall_tau_b_rows(xa, xb)
    values["query_kendall_mean"] = (
        float(np.nanmean(per_query)) if np.isfinite(per_query).any() else np.nan
    )
    i, j = np.triu_indices(n_s, 1)
    if len(i):
        p_a, d_a = _paired_t_pvalues(xa, i, j)
        p_b, d_b = _paired_t_pvalues(xb, i, j)
        sig_a, sig_b = p_a < alpha, p_b < alpha
        same_dir = np.sign(d_a) == np.sign(d_b)
        both = sig_a & sig_b
        values["sig_both_same"] = float(np.mean(both & same_dir))
        values["sig_both_flipped"] = float(np.mean(both & ~same_dir))
        values["sig_only_scores"] = float(np.mean(sig_a & ~sig_b))
        values["sig_only_other"] = float(np.mean(~sig_a & sig_b))
        values["sig_neither"] = float(np.mean(~sig_a & ~sig_b))
        values["sig_agreement"] = values["sig_both_same"] + values["sig_neither"]
    else:
        for name in LEADERBOARD_STATISTICS:
            if name.startswith("sig_"):
                values[name] = np.nan
    table = pd.DataFrame(
        {
            "system": list(systems),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "rank_a": pos_a + 1,
            "rank_b": pos_b + 1,
            "rank_change": pos_a - pos_b,
        }
    )
    return [float(values[s]) for s in LEADERBOARD_STATISTICS], table


#: statistics with a bootstrap interval, and the argument order of their row function
_BOOTSTRAPPED = {
    "kendall_tau_b": ("kendall_b", False),
    "tau_ap": ("tau_ap", True),
    "tau_ap_b": ("tau_ap_b", False),
    "rbo": ("rbo", False),
    "top_k_overlap": ("top_k_overlap", False),
}


def _statistics_block(values, systems, xa, xb, level, n_res, seed, *, p, k) -> pd.DataFrame:
    """One group's statistics, with their bootstrap intervals at ``level`` (None: none; NaN
    for a single query, where every replicate would be that query, as in aggregate)."""
    block = pd.DataFrame(
        {
            "statistic": list(LEADERBOARD_STATISTICS),
            "value": values,
            "n_systems": len(systems),
            "n_queries": xa.shape[0],
        }
    )
    if level is not None and xa.shape[0] < 2:
        block["ci_low"], block["ci_high"] = np.nan, np.nan
    elif level is not None:
        block["ci_low"], block["ci_high"] = _intervals(xa, xb, values, level, n_res, seed, p=p, k=k)
    return block


def _intervals(xa, xb, values, level, n_res, seed, *, p, k):
    """ci_low, ci_high of every statistic (NaN where there is no bootstrap interval)."""
    from pdireval.errors import group_generator
    from pdireval.meta.agreement_intervals import percentile_interval
    from pdireval.stats.correlation_rows import correlation_rows
    from pdireval.stats.means import exact_resampled_means
    from pdireval.stats.paired_tests import bootstrap_counts

    counts = bootstrap_counts(group_generator(seed), xa.shape[0], n_res)
    # exact means, as the observed leaderboards': replicates tie where equal sums do
    ra, rb = exact_resampled_means(xa, counts), exact_resampled_means(xb, counts)
    low = np.full(len(values), np.nan)
    high = np.full(len(values), np.nan)
    for i, name in enumerate(LEADERBOARD_STATISTICS):
        if name not in _BOOTSTRAPPED:
            continue
        method, swap = _BOOTSTRAPPED[name]
        reps = correlation_rows(method, *((rb, ra) if swap else (ra, rb)), p=p, k=k)
        low[i], high[i] = percentile_interval(reps, level, point=values[i], what=name)
    return low, high


def _matrices(ma, mb, what):
    """The two groups' query × system matrices on the queries they share, same systems."""
    if list(ma.columns) != list(mb.columns):
        only = sorted(set(ma.columns) ^ set(mb.columns))
        raise SchemaError(
            f"scores and other rank different systems{what}: {len(only)} system(s) are in only "
            f"one of them, e.g. {only[:3]}.\nA leaderboard comparison needs the same systems: "
            "keep the systems both frames evaluate."
        )
    shared = ma.index.intersection(mb.index)
    if len(shared) == 0:
        raise SchemaError(
            f"scores and other share no query{what} (e.g. {list(ma.index[:3])} vs "
            f"{list(mb.index[:3])}).\nCheck that the query ids are spelled alike in both frames."
        )
    return (
        ma.loc[shared].to_numpy(np.float64),
        mb.loc[shared].to_numpy(np.float64),
        list(ma.columns),
    )


def _judge_pairs(frame: pd.DataFrame, **options) -> pd.DataFrame:
    """:func:`leaderboard_agreement` of every pair of judges of a scores frame with a
    ``judge`` column (a loop over judge pairs; each pair is vectorised inside)."""
    judge = frame["judge"].to_numpy(dtype=object)
    names = sorted(pd.unique(judge), key=str)
    parts = {j: frame[judge == j].drop(columns="judge").reset_index(drop=True) for j in names}
    blocks = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            block = leaderboard_agreement(parts[a], parts[b], **options)
            block.insert(0, "judge_b", b)
            block.insert(0, "judge_a", a)
            blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    for c in ("judge_a", "judge_b"):
        out[c] = out[c].astype(frame["judge"].dtype)
    return out


def leaderboard_agreement(
    scores: pd.DataFrame,
    other: pd.DataFrame | None = None,
    *,
    p: float = 0.9,
    k: int = 10,
    alpha: float = 0.05,
    per_system: bool = False,
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    rng: RngLike = None,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    r"""How alike two scores frames rank the same systems (e.g. human vs LLM qrels).

    Systems are ranked by their mean over the queries both frames share (position 1 = best),
    means from correctly rounded sums (:func:`pdireval.stats.means.exact_means`), so systems
    whose values have equal sums tie whatever the query order. The statistics treat ties
    without reading names; only the ``per_system`` table orders tied systems by name. With
    ``other``, each measure of ``scores`` is compared with the same measure of ``other`` (extra
    grouping columns matched too); without it, every pair of measures of ``scores`` is compared
    (two measures, one qrels).

    Statistics (``statistic`` column, in this order):

    * ``kendall_tau_b`` — Kendall's τ_b between the system means;
    * ``tau_ap`` — AP correlation of ``other``'s leaderboard against ``scores``'s as the
      truth (Yilmaz, Aslam & Robertson 2008); NaN when a frame has tied means;
    * ``tau_ap_b`` — Urbano & Marrero's (2017) tie-aware, symmetric τ_AP,b (the symmetric
      τ_AP when no means are tied; see :func:`pdireval.stats.rank_correlation.tau_ap_b`);
    * ``rbo`` — extrapolated rank-biased overlap with persistence ``p`` (Webber, Moffat &
      Zobel 2010, eq. 32), RBO = A_n pⁿ + (1 − p)/p Σ_{d=1}^{n} A_d p^d, A_d the overlap of
      the two top-d sets divided by d; with tied means, its mean over every order of the
      tied systems (exact: A_d replaced by its expectation, see
      :func:`pdireval.stats.rank_overlap.rbo_ext_ties`), so names never matter;
    * ``top_k_overlap`` — |top-k ∩ top-k| / k (k capped at the number of systems), with
      tied means its mean over every order of the tied systems;
    * ``max_rank_change`` — the largest |rank in scores − rank in other|, tied systems
      sharing their mid-rank (the mean of their positions);
    * ``score_pearson`` — Pearson's r over all (system, query) scores;
    * ``query_kendall_mean`` — the mean over queries of Kendall's τ_b between the systems'
      scores on that query (queries where it is undefined skipped);
    * significance decisions of a two-sided paired t-test at ``alpha`` on every pair of
      systems, as fractions of the n(n − 1)/2 pairs: ``sig_both_same`` (significant in
      both, same direction), ``sig_both_flipped`` (significant in both, opposite
      directions), ``sig_only_scores``, ``sig_only_other``, ``sig_neither``, and
      ``sig_agreement`` = ``sig_both_same`` + ``sig_neither`` (the same conclusion).

    Without ``other``, scores with a ``judge`` column (:func:`pdireval.evaluate` on qrels of
    several judges) compare every pair of judges on each measure in one call: the
    leaderboard of ``judge_a`` (the truth for τ_AP) against that of ``judge_b``.

    Parameters
    ----------
    scores, other
        Scores frames (``system, query, measure, value`` + grouping columns), complete
        system × query matrices on the shared queries.
    p
        RBO persistence, 0 < p < 1 (0.9 weighs the top ten positions most).
    k
        Depth of the top-k overlap.
    alpha
        Significance level of the paired t-tests.
    confidence_level
        Add ``ci_low``, ``ci_high`` for ``kendall_tau_b``, ``tau_ap``, ``tau_ap_b``, ``rbo``
        and ``top_k_overlap`` (NaN for the other statistics): the percentile interval of the
        statistic over B query-bootstrap replicates, each recomputing both leaderboards on the
        same resampled queries (``rng.integers(0, n, size=(B, n))`` over the shared queries).
        A statistic undefined on some replicate (``tau_ap`` with tied means) gets NaN bounds
        and a :class:`pdireval.PdirevalWarning`, and so does a group with a single shared
        query (every replicate is that query: no interval, as in :func:`pdireval.aggregate`).
        None (default): no interval.
    n_resamples
        Bootstrap resamples B (at most 10**5).
    rng
        Seed of the bootstrap (None, the default: fresh entropy; an int, a SeedSequence or a
        Generator).
    per_system
        Return the leaderboard table instead: ``measure_a, measure_b, [keys], system,
        mean_a, mean_b, rank_a, rank_b, rank_change`` (rank_a − rank_b; positive = the
        system moved up in ``other``), systems in ``scores``'s leaderboard order.
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        ``measure_a``, ``measure_b``, the other grouping keys, ``statistic``, ``value``
        (float64), ``n_systems``, ``n_queries`` (queries both frames share); with
        ``confidence_level`` also ``ci_low``, ``ci_high``. Rows by group, then statistic in
        the order above. Judge pairs: first ``judge_a``, ``judge_b`` (judges sorted,
        ``judge_a < judge_b``), then the columns above (``measure_a`` = ``measure_b``), rows
        by judge pair.

    References
    ----------
    Kendall, M. G. (1938). A new measure of rank correlation. Biometrika.
    Yilmaz, E., Aslam, J. A., Robertson, S. (2008). A new rank correlation coefficient for
    information retrieval. SIGIR.
    Webber, W., Moffat, A., Zobel, J. (2010). A similarity measure for indefinite rankings.
    ACM TOIS.
    Voorhees, E. M. (2000). Variations in relevance judgments and the measurement of
    retrieval effectiveness. Information Processing & Management.
    Urbano, J., Marrero, M. (2017). The treatment of ties in AP correlation. ICTIR.
    """
    from pdireval.meta.agreement_intervals import check_ci_options

    level, n_res = check_ci_options(confidence_level, n_resamples)
    p = check_real("p", p, low=0.0, high=1.0, inclusive=False)
    k = check_int("k", k, minimum=1)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, inclusive=False)
    per_system = check_bool("per_system", per_system)
    frame_a = meta_scores(scores, columns, function="leaderboard_agreement")
    extra = [c for c in group_columns(frame_a) if c != "measure"]
    if other is None and "judge" in extra and frame_a["judge"].nunique() > 1:
        return _judge_pairs(
            frame_a,
            p=p,
            k=k,
            alpha=alpha,
            per_system=per_system,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            rng=rng,
        )
    if other is None:
        frame_b = frame_a
    else:
        frame_b = meta_scores(other, columns, function="leaderboard_agreement")
        extra_b = [c for c in group_columns(frame_b) if c != "measure"]
        check_same_grouping(extra, extra_b)
    keys = ["measure", *extra]
    grouped_a = {tuple(kk.values()): m for kk, m in group_matrices(frame_a, by=keys, what="scores")}
    grouped_b = (
        grouped_a
        if other is None
        else {
            tuple(kk.values()): m for kk, m in group_matrices(frame_b, by=keys, what="other scores")
        }
    )
    combos = []
    if other is None:
        extras = list(dict.fromkeys(kk[1:] for kk in grouped_a))
        measures = list(pd.unique(frame_a["measure"]))
        for ex in extras:
            present = [m for m in measures if (m, *ex) in grouped_a]
            for ia, ma in enumerate(present):
                for mb in present[ia + 1 :]:
                    combos.append(((ma, *ex), (mb, *ex)))
        if not combos:
            raise OptionError(
                "leaderboard_agreement without other= compares pairs of measures, but the "
                "scores hold one measure per group.\nPass other= (the same runs evaluated "
                "with the other qrels), or evaluate two measures."
            )
    else:
        for kk in grouped_a:
            if kk in grouped_b:
                combos.append((kk, kk))
        if not combos:
            raise SchemaError(
                "scores and other share no measure (and grouping key values): "
                f"{sorted(map(str, grouped_a))[:3]} vs {sorted(map(str, grouped_b))[:3]}.\n"
                "Evaluate both with the same measure strings."
            )
    seed = None
    if level is not None and not per_system:
        from pdireval.errors import check_rng

        seed = check_rng(rng)
    blocks = []
    single = []  # groups with a single query: no interval
    for ka, kb in combos:
        where = (
            "" if not extra else " (" + ", ".join(f"{c}={v!r}" for c, v in zip(extra, ka[1:])) + ")"
        )
        xa, xb, systems = _matrices(grouped_a[ka], grouped_b[kb], where)
        values, table = _group_rows(xa, xb, systems, p=p, k=k, alpha=alpha)
        if per_system:
            block = table.iloc[np.argsort(table["rank_a"].to_numpy(), kind="stable")].reset_index(
                drop=True
            )
        else:
            block = _statistics_block(values, systems, xa, xb, level, n_res, seed, p=p, k=k)
            if level is not None and xa.shape[0] < 2:
                single.append(f"measures {ka[0]!r} and {kb[0]!r}{where}")
        for c, v in reversed(list(zip(extra, ka[1:]))):
            block.insert(0, c, v)
        block.insert(0, "measure_b", kb[0])
        block.insert(0, "measure_a", ka[0])
        blocks.append(block)
    if single:
        from pdireval.meta.mean_intervals import warn_no_interval

        warn_no_interval(single, "group(s) with a single query", "bootstrap")
    out = pd.concat(blocks, ignore_index=True)
    if per_system:
        for c in ("rank_a", "rank_b", "rank_change"):
            out[c] = out[c].astype(np.int64)
    else:
        out["value"] = out["value"].astype(np.float64)
        out["n_systems"] = out["n_systems"].astype(np.int64)
        out["n_queries"] = out["n_queries"].astype(np.int64)
    return out
