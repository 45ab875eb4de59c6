"""Paired significance tests for every pair of systems, vectorized over pairs and resamples.

Array level (importable by other modules, e.g. ``from pdireval.meta.significance import
sign_test``): :func:`paired_t`, :func:`wilcoxon`, :func:`sign_test`, :func:`randomization_test`,
:func:`bootstrap_test`, :func:`tukey_hsd`, :func:`adjust_pvalues`.

Frame level: :func:`compare` — one row per (measure, system_a, system_b).

Speed: the resampling tests draw **one** set of resamples per group (measure) and share it
by every system pair (methods-spec §8.2). The paired bootstrap then needs no per-pair
resampling at all: with C the B × n matrix of how often each topic occurs in each bootstrap
sample and W the n × P matrix of centred per-topic differences of the P pairs, the replicate
sums are ``C @ W`` and the replicate sums of squares ``C @ W**2`` — two matrix products,
chunked over pairs so that memory stays bounded. The randomisation test is likewise one
product of the ±1 sign matrix with the difference matrix.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pdireval.core.chunking import chunks, progress_bar
from pdireval.core.groups import group_columns, pair_indices, score_matrix, scores_groups
from pdireval.core.schema import canonical_scores
from pdireval.errors import OptionError, SchemaError, check_option, group_rng
from pdireval.stats import adapters as _adapters
from pdireval.stats.corrections import CORRECTIONS, adjust_pvalues
from pdireval.stats.paired_tests import (
    DEFAULT_RESAMPLES,
    bootstrap_counts,
    bootstrap_kernel,
    constant,
    randomization_kernel,
    randomization_signs,
    required_position,
    sign_kernel,
    signed_inf,
    t_kernel,
    tukey_null,
    tukey_p,
)

__all__ = ["adjust_pvalues", "compare", "METHODS", "DEFAULT_RESAMPLES"]

METHODS = ("bootstrap", "t", "wilcoxon", "sign", "randomization", "tukey")






# ----------------------------------------------------------------------------- helpers










# ------------------------------------------------------------------------ test kernels
# Each kernel works on D, the n x P matrix of per-topic differences of P pairs.




















# --------------------------------------------------------------- array-level public API
















# ------------------------------------------------------------------ frame-level compare


def _resolve_resamples(method, n_resamples):
    if n_resamples is None:
        return DEFAULT_RESAMPLES.get(method, 0)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise OptionError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    return int(n_resamples)


def _baseline_index(systems, baseline, keys):
    if baseline is None:
        return None
    names = [str(s) for s in systems]
    if str(baseline) not in names:
        where = f" in the group {keys}" if keys else ""
        raise SchemaError(
            f"baseline={baseline!r} is not a system of the scores{where}; the systems are "
            f"{', '.join(names[:10])}{' ...' if len(names) > 10 else ''}. Pass one of them."
        )
    return names.index(str(baseline))


def _test_group(x, method, *, n_res, rng, baseline=None, confidence_level=0.95, alpha=None,
                progress=None):
    """Run one test on every pair of columns of the topics x systems matrix x.

    Returns (I, J, dict of per-pair arrays: mean_diff, statistic, p_value, ci_low, ci_high,
    effect_size, required [bootstrap with alpha; tukey: the HSD critical value])."""
    n, m = x.shape
    pi, pj = pair_indices(m, baseline)
    n_pairs = len(pi)
    cols = {k: np.full(n_pairs, np.nan) for k in
            ("mean_diff", "statistic", "p_value", "ci_low", "ci_high", "effect_size", "required")}
    if n_pairs == 0:
        return pi, pj, cols
    counts = signs = hsd = None
    exact = False
    if method == "bootstrap" and n >= 2:
        counts = bootstrap_counts(rng, n, n_res)
    elif method == "randomization":
        signs, exact = randomization_signs(rng, n, n_res)
    elif method == "tukey":
        hsd = tukey_null(x, rng, n_res, progress=progress)
    width = max(n, counts.shape[0] if counts is not None else 0, signs.shape[0] if signs is not None else 0)
    parts = chunks(n_pairs, 3 * width)
    tail = (1.0 - confidence_level) / 2.0
    for part in progress_bar(parts, desc=f"{method} pairs", progress=progress if len(parts) > 1 else False):
        a = x[:, pi[part]]
        b = x[:, pj[part]]
        d = a - b
        mean = d.mean(axis=0)
        cols["mean_diff"][part] = mean
        if n >= 2:
            sd = d.std(axis=0, ddof=1)
            const = constant(d)
            with np.errstate(divide="ignore", invalid="ignore"):
                cols["effect_size"][part] = np.where(
                    const, signed_inf(mean), mean / sd
                )
                half = _adapters.t_ppf(1.0 - tail, n - 1) * sd / math.sqrt(n)
            cols["ci_low"][part] = mean - half
            cols["ci_high"][part] = mean + half
        if method == "t":
            cols["statistic"][part], cols["p_value"][part] = t_kernel(d)
        elif method == "wilcoxon":
            cols["statistic"][part], cols["p_value"][part] = _adapters.wilcoxon_columns(d)
        elif method == "sign":
            gt, _lt, p = sign_kernel(a, b)
            cols["statistic"][part], cols["p_value"][part] = gt, p
        elif method == "randomization":
            cols["statistic"][part], cols["p_value"][part] = randomization_kernel(d, signs, exact)
        elif method == "bootstrap":
            if counts is None:
                continue
            res = bootstrap_kernel(d, counts, confidence_level=confidence_level, alpha=alpha)
            cols["statistic"][part] = res["statistic"]
            cols["p_value"][part] = res["p_value"]
            cols["ci_low"][part], cols["ci_high"][part] = res["ci_low"], res["ci_high"]
            if alpha is not None:
                cols["required"][part] = res["required"]
        elif method == "tukey":
            scale = np.abs(a).mean(axis=0) + np.abs(b).mean(axis=0)
            cols["statistic"][part] = np.abs(mean)
            cols["p_value"][part] = tukey_p(hsd, mean, scale)
    if method == "tukey" and alpha is not None:
        # The HSD critical value: the smallest |difference| declared significant at alpha.
        k = required_position(alpha, n_res)
        cols["required"][:] = hsd[n_res - k]
    return pi, pj, cols


def _check_common(method, confidence_level):
    check_option("method", method, METHODS)
    if not (isinstance(confidence_level, (float, int)) and 0 < confidence_level < 1):
        raise OptionError(f"confidence_level must be in (0, 1), got {confidence_level!r}")


def _iter_tests(frame, method, *, n_resamples, rng, baseline=None, confidence_level=0.95,
                alpha=None, progress=None):
    """Yield (keys, systems, n_queries, means, I, J, cols) for every group of a scores frame."""
    n_res = _resolve_resamples(method, n_resamples)
    make_rng = group_rng(rng)
    groups = list(scores_groups(frame))
    for keys, group in progress_bar(groups, desc="groups", progress=progress if len(groups) > 1 else False):
        matrix = score_matrix(group)
        systems = list(matrix.columns)
        x = matrix.to_numpy(dtype=np.float64)
        base = _baseline_index(systems, baseline, keys)
        pi, pj, cols = _test_group(
            x, method, n_res=n_res, rng=make_rng(), baseline=base,
            confidence_level=confidence_level, alpha=alpha, progress=progress,
        )
        yield keys, systems, x.shape[0], x.mean(axis=0), pi, pj, cols


def compare(
    scores: pd.DataFrame,
    *,
    method: str = "bootstrap",
    n_resamples: int | None = None,
    rng=None,
    correction: str | None = None,
    baseline=None,
    family: str = "group",
    confidence_level: float = 0.95,
    progress: bool | None = None,
) -> pd.DataFrame:
    r"""Paired significance test of every pair of systems, per measure (and grouping key).

    Systems are aligned on ``query`` (a complete query × system matrix per group is required;
    :func:`pdireval.core.groups.score_matrix` says how to fix a gap). Every pair (a, b) with a
    before b in sorted system order is tested — or, with ``baseline=``, every other system
    (``system_a``) against the baseline (``system_b``). Per-topic differences are
    z_t = a_t − b_t.

    Methods (all two-sided):

    * ``"bootstrap"`` (default) — Sakai's (2006) studentised paired bootstrap test; the
      p-value is the ASL of methods-spec §8.1. The index matrix
      ``rng.integers(0, n, size=(B, n))`` is drawn once per group and shared by all pairs
      (§8.2), so with ``rng=<int>`` every p-value is the one any implementation of §8.1
      with that seed gets. Default B = 1000.
    * ``"t"`` — Student's paired t-test, t = z̄ / (s_z/√n), n − 1 degrees of freedom.
    * ``"wilcoxon"`` — Wilcoxon signed-rank test (scipy's defaults: zero differences dropped).
    * ``"sign"`` — exact sign test (methods-spec §8.7); ``statistic`` = #{t : a_t > b_t}.
    * ``"randomization"`` — paired Fisher randomisation test of the mean difference (sign
      flips shared by all pairs; exact when 2^n ≤ B; default B = 10000), see
      :func:`randomization_test`.
    * ``"tukey"`` — randomised Tukey HSD (methods-spec §8.4; Carterette 2012), which
      already controls the family-wise error over all pairs of the group. Default B = 5000.

    Parameters
    ----------
    scores
        Scores frame: ``system, query, measure, value`` plus optional grouping columns.
    method
        One of the methods above.
    n_resamples
        Resamples of the resampling methods (None: the method's default).
    rng
        Seed or numpy Generator. An integer seed restarts the draw protocol for every
        group (so a measure's p-values do not depend on the other measures in the frame);
        a Generator is consumed group after group.
    correction
        Multiple-comparison adjustment written to ``p_adjusted``: None, ``"bonferroni"``,
        ``"holm"`` (Holm 1979) or ``"bh"`` (Benjamini–Hochberg 1995 false discovery rate).
    baseline
        A system name: compare every other system with it instead of all pairs.
    family
        What one family of the correction is: ``"group"`` (default; the pairs of one
        measure / group) or ``"all"`` (every row of the result).
    confidence_level
        Of the interval ``ci_low, ci_high`` of the mean difference.
    progress
        Show tqdm progress bars (None: only when stderr is a terminal).

    Returns
    -------
    DataFrame
        One row per (group, pair), groups in :func:`pdireval.core.groups.scores_groups` order,
        pairs in system order. Columns: the grouping keys (``measure`` and any extra
        column of ``scores``); ``system_a``, ``system_b``; ``mean_a``, ``mean_b`` (means over
        queries); ``mean_diff`` (mean of a − b); ``ci_low``, ``ci_high`` (confidence interval
        of the mean difference: bootstrap percentile interval of z̄ + w̄*_b on the same
        resamples for ``"bootstrap"``, Student-t interval z̄ ± t_{n−1}·s_z/√n otherwise);
        ``effect_size`` (Cohen's d_z = z̄ / s_z); ``statistic`` (t for ``"t"`` and
        ``"bootstrap"``, min(W+, W−) for ``"wilcoxon"``, #wins of a for ``"sign"``, z̄ for
        ``"randomization"``, |z̄| for ``"tukey"``); ``p_value`` (unadjusted; the ASL for the
        bootstrap); ``p_adjusted`` (after ``correction``; equal to ``p_value`` without);
        ``method``; ``correction`` (``"none"`` without); ``n_queries``.

    Notes
    -----
    Fewer than 2 queries make every statistic NaN. A pair whose differences are all zero
    gets p = 1 under every method (a system is never significantly different from itself).

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    Smucker, M., Allan, J., Carterette, B. (2007). A comparison of statistical significance
    tests for information retrieval evaluation. CIKM.
    Carterette, B. (2012). Multiple testing in statistical analysis of systems-based
    information retrieval experiments. TOIS 30(1).
    """
    frame = canonical_scores(scores)
    _check_common(method, confidence_level)
    check_option("correction", correction, CORRECTIONS)
    check_option("family", family, ("group", "all"))
    if method == "tukey" and correction is not None:
        raise OptionError(
            "the randomised Tukey HSD already controls the family-wise error over all pairs; "
            "pass correction=None with method='tukey'"
        )
    keys_cols = group_columns(frame)
    parts = []
    for keys, systems, n_q, means, pi, pj, cols in _iter_tests(
        frame, method, n_resamples=n_resamples, rng=rng, baseline=baseline,
        confidence_level=confidence_level, progress=progress,
    ):
        names = np.array(systems, dtype=object)
        part = {k: [keys[k]] * len(pi) for k in keys_cols}
        part.update(
            system_a=names[pi], system_b=names[pj], mean_a=means[pi], mean_b=means[pj],
            mean_diff=cols["mean_diff"], ci_low=cols["ci_low"], ci_high=cols["ci_high"],
            effect_size=cols["effect_size"], statistic=cols["statistic"].astype(np.float64),
            p_value=cols["p_value"],
        )
        part["p_adjusted"] = adjust_pvalues(cols["p_value"], correction) if family == "group" else cols["p_value"]
        part["method"] = method
        part["correction"] = correction or "none"
        part["n_queries"] = np.full(len(pi), n_q, dtype=np.int64)
        parts.append(pd.DataFrame(part))
    out = pd.concat(parts, ignore_index=True)
    if family == "all":
        out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), correction)
    for col in ("system_a", "system_b", "method", "correction"):
        out[col] = out[col].astype(str)
    return out
