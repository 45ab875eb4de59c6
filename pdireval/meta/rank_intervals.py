"""How sure is a leaderboard? Rank intervals, the probability of being best, the top group."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import describe_group, group_columns, group_matrices
from pdireval.errors import (
    OptionError,
    PdirevalWarning,
    check_int,
    check_real,
    check_rng,
    group_generator,
)
from pdireval.meta.inputs import meta_scores
from pdireval.meta.significance import decision_p

if TYPE_CHECKING:
    from pdireval.types import Columns, Correction, RngLike, TestMethod

__all__ = ["rank_uncertainty"]

#: ceiling on ``n_resamples`` (a B × n count matrix and a B × m rank matrix per group)
MAX_RESAMPLES = 10**6


def rank_uncertainty(
    scores: pd.DataFrame,
    *,
    n_resamples: int = 1000,
    rng: RngLike = None,
    confidence_level: float = 0.95,
    test: TestMethod = "t",
    correction: Correction | None = "holm",
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Rank of every system with its uncertainty, from a query bootstrap, per measure (and group).

    Each group's complete query × system matrix is resampled by queries — one index matrix
    ``rng.integers(0, n, size=(B, n))``, every system's queries resampled together, so a
    replicate is a leaderboard on one resampled query set. In replicate b the systems are
    ranked by mean (1 = best, equal means share their average rank), giving per system
    (:func:`pdireval.stats.rank_bootstrap.rank_distribution`). Observed and replicate means
    are exact (correctly rounded sums, :func:`pdireval.stats.means.exact_means` and
    :func:`~pdireval.stats.means.exact_resampled_means`), so systems whose values have equal
    sums tie in the observed ranking and in every replicate, whatever the query order:

    * the observed ``rank``; the ``rank_low``, ``rank_high`` interval (the α/2 and 1 − α/2
      order statistics of its bootstrap ranks, α = 1 − confidence_level, widened to contain
      the observed rank when they miss it); the ``expected_rank`` (mean bootstrap rank);
    * ``p_best``: the share of replicates in which the system is best (a tie for best
      shared equally), summing to 1 over the systems of a group.

    The **top group** is the set of systems not significantly below the best one: the best
    observed system (ties: the first by name) is compared with every other system by
    :func:`pdireval.compare` (``method=test``, ``alternative="less"``: H1 "the other system
    is worse", ``correction=`` over the m − 1 comparisons, ``rng=`` as given), and a system
    is in the top group unless its adjusted p-value is below α. A group with a single query
    gets NaN intervals, expected ranks and P(best), with a :class:`pdireval.PdirevalWarning`.
    Works on any scores frame
    (e.g. an LLM-judge leaderboard's per-item scores, or per-query numbers read from another
    tool).

    Parameters
    ----------
    scores
        Scores frame (``system, query, measure, value`` + grouping keys), a complete system ×
        query matrix per group.
    n_resamples
        Bootstrap replicates B (at most 10**6).
    rng
        Seed (None, the default: fresh entropy; an int, a SeedSequence or a Generator). Every
        group starts from the seed alone (the same index matrix for groups with the same
        queries).
    confidence_level
        Level of the rank intervals; α = 1 − confidence_level is also the level of the
        top-group tests.
    test
        :func:`pdireval.compare`'s method for the top group (default ``"t"``; any but
        ``"tukey"``, which has no one-sided test).
    correction
        :func:`pdireval.compare`'s multiple-comparison correction (default ``"holm"``;
        None for none).
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        One row per (group, system), groups in :func:`pdireval.core.groups.scores_groups`
        order, systems by observed rank (then name). Columns: the grouping keys, ``system``,
        ``mean``, ``rank``, ``rank_low``, ``rank_high``, ``expected_rank``, ``p_best``
        (float64), ``in_top_group`` (bool), ``p_vs_top`` (adjusted p-value of the test
        against the best system; NaN for the best itself), ``n_queries``, ``n_resamples``
        (int64).

    References
    ----------
    Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    """
    from pdireval.meta.significance import canonical_method, compare
    from pdireval.stats.corrections import canonical_correction
    from pdireval.stats.means import exact_means, exact_resampled_means
    from pdireval.stats.paired_tests import bootstrap_counts
    from pdireval.stats.rank_bootstrap import rank_distribution

    n_res = check_int("n_resamples", n_resamples, minimum=2, maximum=MAX_RESAMPLES)
    level = check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    test = canonical_method(test)
    if test == "tukey":
        raise OptionError(
            "test='tukey' has no one-sided test, which the top group needs (is a system "
            "significantly *worse* than the best?); use test='t', 'bootstrap', 'wilcoxon', "
            "'sign' or 'randomization'."
        )
    correction = canonical_correction(correction)
    frame = meta_scores(scores, columns, function="rank_uncertainty")
    seed = check_rng(rng)
    keys = group_columns(frame)
    blocks, degenerate = [], []
    for group_keys, matrix in group_matrices(frame, what="scores"):
        x = matrix.to_numpy(dtype=np.float64)
        n, m = x.shape
        systems = np.asarray(matrix.columns, dtype=object)
        counts = bootstrap_counts(group_generator(seed), n, n_res)
        # one definition of a tie for the observed and the replicate leaderboards: exact
        # (correctly rounded) means, bit for bit the same for equal sums of values
        observed = exact_means(x)
        dist = rank_distribution(exact_resampled_means(x, counts), observed, level)
        if n < 2:  # every replicate is the one query: no uncertainty can be read off
            for name in ("rank_low", "rank_high", "expected_rank", "p_best"):
                dist[name] = np.full(m, np.nan)
            degenerate.append(describe_group(group_keys))
        best = int(np.lexsort((systems.astype(str), -observed))[0])
        p_top = np.full(m, np.nan)
        if m > 1 and n >= 2:
            sub = pd.DataFrame(
                {
                    "system": np.repeat(systems, n),
                    "query": np.tile(matrix.index, m),
                    "value": x.T.ravel(),
                }
            )
            for k in keys:
                sub[k] = group_keys[k]
            res = compare(
                sub,
                method=test,
                alternative="less",
                baseline=systems[best],
                correction=correction,
                rng=seed,
                progress=False,
            )
            where = {s: i for i, s in enumerate(systems)}
            p_top[[where[s] for s in res["system_a"]]] = decision_p(res).to_numpy()
        in_top = ~(p_top < 1.0 - level)
        block = pd.DataFrame(
            {
                "system": systems.astype(str),
                "mean": observed,
                **dist,
                "in_top_group": in_top,
                "p_vs_top": p_top,
            }
        )
        block["n_queries"] = np.int64(n)
        block["n_resamples"] = np.int64(n_res)
        block = block.iloc[np.lexsort((block["system"].to_numpy(), block["rank"].to_numpy()))]
        for k in reversed(keys):
            block.insert(0, k, group_keys[k])
        blocks.append(block)
    if degenerate:
        warnings.warn(
            f"{len(degenerate)} group(s) have a single query, so their rank intervals, expected "
            f"ranks and P(best) are NaN: {'; '.join(degenerate[:5])}. A query bootstrap needs "
            "at least two queries.",
            PdirevalWarning,
            stacklevel=2,
        )
    out = pd.concat(blocks, ignore_index=True)
    for c in ("mean", "rank", "rank_low", "rank_high", "expected_rank", "p_best", "p_vs_top"):
        out[c] = out[c].astype(np.float64)
    out["in_top_group"] = out["in_top_group"].astype(bool)
    for c in ("n_queries", "n_resamples"):
        out[c] = out[c].astype(np.int64)
    return out
