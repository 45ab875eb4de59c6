"""Paired significance tests for every pair of systems, vectorized over pairs and resamples.

Array level (importable by other modules, e.g. ``from pdireval.meta.significance import
sign_test``): :func:`paired_t`, :func:`wilcoxon`, :func:`sign_test`, :func:`randomization_test`,
:func:`bootstrap_test`, :func:`tukey_hsd`, :func:`adjust_pvalues`.

Frame level: :func:`compare` — one row per (measure, system_a, system_b).

Speed: the resampling tests draw **one** set of resamples per group (measure) and share it
by every system pair. The paired bootstrap then needs no per-pair
resampling at all: with C the B × n matrix of how often each query occurs in each bootstrap
sample and W the n × P matrix of centred per-query differences of the P pairs, the replicate
sums are ``C @ W`` and the replicate sums of squares ``C @ W**2`` — two matrix products,
chunked over pairs so that memory stays bounded. The randomisation test is likewise one
product of the ±1 sign matrix with the difference matrix.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from pdireval.core.chunking import chunks, progress_bar
from pdireval.core.groups import (
    group_columns,
    group_matrices,
    pair_indices,
)
from pdireval.docstrings import shared_docs
from pdireval.errors import (
    OptionError,
    SchemaError,
    check_int,
    check_option,
    check_real,
    check_rng,
    group_generator,
    renamed_options,
    warn_caller,
)
from pdireval.meta.inputs import meta_scores
from pdireval.stats import _adapters
from pdireval.stats.corrections import (
    RESAMPLING_CORRECTIONS,
    adjust_pvalues,
    canonical_correction,
)
from pdireval.stats.multiplicity import DEFAULT_JOINT_RESAMPLES, joint_kernel
from pdireval.stats.multiplicity import joint_resamples as joint_draws
from pdireval.stats.paired_tests import (
    ALTERNATIVES,
    DEFAULT_RESAMPLES,
    bootstrap_counts,
    bootstrap_kernel,
    check_alternative,
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

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from pdireval.types import (
        Alternative,
        Columns,
        CompareMethod,
        Correction,
        ResamplingCorrection,
        RngLike,
        Seeds,
    )

__all__ = [
    "adjust_pvalues",
    "compare",
    "decision_p",
    "METHODS",
    "DEFAULT_RESAMPLES",
    "ALTERNATIVES",
]

METHODS = ("bootstrap", "t", "wilcoxon", "sign", "randomization", "tukey")
#: compare()'s ``method=`` values: the tests and the Bayesian posterior (``"bayes"``).
COMPARE_METHODS = METHODS + ("bayes",)
#: Other tools' names of the same tests, read case-insensitively: ranx's ``stat_test=``
#: (``"student"``, ``"fisher"``: Fisher's randomisation test, ``"tukey"``) and the common
#: spellings of the paired t-test and of the permutation test.
METHOD_ALIASES = {
    "student": "t",
    "ttest": "t",
    "t-test": "t",
    "ttest_rel": "t",
    "fisher": "randomization",
    "permutation": "randomization",
    "randomisation": "randomization",
}


# ----------------------------------------------------------------------------- helpers


# ------------------------------------------------------------------------ test kernels
# Each kernel works on D, the n x P matrix of per-query differences of P pairs.


# --------------------------------------------------------------- array-level public API


# ------------------------------------------------------------------ frame-level compare


#: Ceiling on ``n_resamples`` of :func:`compare` (and the functions built on it): the
#: resampling tests draw a (n_resamples x n_queries) matrix at once, so 10**6 resamples of 250
#: queries already take 2 GiB. Checked before anything is drawn.
MAX_RESAMPLES = 10**6


#: compare()'s Bayesian method: posterior probabilities instead of a test.
BAYES = COMPARE_METHODS[-1]

#: Above this many queries the Wilcoxon and sign tests reject almost every pair (Ihemelandu &
#: Ekstrand 2023): compare() warns once, pointing to effect sizes and margin=.
LARGE_N = 1000


def _warn_large_n(method: str, n: int) -> None:
    """The large-n advice of :func:`compare` (once per call site)."""
    warn_caller(
        f"method={method!r} on {n} queries (> {LARGE_N}): with thousands of queries the "
        "Wilcoxon and sign tests reject true null hypotheses more often than their level "
        "says, and every test finds almost any difference significant (Ihemelandu & "
        "Ekstrand, SIGIR 2023), so these p-values say little. Use method='t', "
        "'randomization' or 'bootstrap', read the effect sizes first (mean_diff with "
        "ci_low/ci_high, effect_size), and test for a difference that matters with "
        "margin=δ (equivalence / non-inferiority) or method='bayes' with margin=δ (the "
        "probability that the difference lies within ±δ).",
        once="compare-large-n",
    )


def _check_bayes(alternative, correction, n_resamples, required_diff_alpha, seeds) -> None:
    """Options that compare(method='bayes') does not take, each with the fix."""
    if alternative != "two-sided":
        raise OptionError(
            f"method='bayes' reports P(a > b) (prob_a_better) and a two-sided credible "
            f"interval, so it takes no alternative= (got {alternative!r}); drop it."
        )
    if correction is not None and canonical_correction(correction, resampling=True) is not None:
        raise OptionError(
            "method='bayes' gives posterior probabilities, not p-values, so there is nothing "
            f"to correct (got correction={correction!r}); pass correction=None."
        )
    if n_resamples is not None:
        raise OptionError(
            "method='bayes' uses the closed-form Student-t posterior and draws no resamples; "
            f"drop n_resamples={n_resamples!r}."
        )
    if required_diff_alpha is not None:
        raise OptionError(
            "required_diff_alpha= is Sakai's bootstrap quantity; method='bayes' does not "
            "compute it. Drop it or use method='bootstrap'."
        )
    if seeds == "nested":
        raise OptionError(
            "seeds='nested' is a two-level bootstrap; with method='bayes' pass seeds='mean'."
        )


def _check_joint(method, joint, margin, seeds, family, frame) -> None:
    """Options a resampling correction (maxT, closed testing) cannot take."""
    from pdireval.stats.multiplicity import JOINT_METHODS

    if method == "tukey":
        raise OptionError(
            "the randomised Tukey HSD already controls the family-wise error over all pairs; "
            f"pass correction=None with method='tukey', or correction={joint!r} with "
            "method='t', 'randomization', 'wilcoxon', 'sign' or 'bootstrap'."
        )
    if method not in JOINT_METHODS:
        raise OptionError(
            f"correction={joint!r} resamples one of the tests {', '.join(JOINT_METHODS)}; "
            f"method={method!r} is not one of them."
        )
    if margin is not None:
        raise OptionError(
            f"correction={joint!r} adjusts tests of no difference; with margin= (equivalence "
            "tests) use a p-value correction such as correction='holm'."
        )
    if seeds == "nested":
        raise OptionError(
            f"seeds='nested' draws its own two-level bootstrap; correction={joint!r} needs "
            "seeds='mean' (or None)."
        )
    keys = group_columns(frame)
    if family == "all" and keys and frame.groupby(keys, dropna=False, observed=True).ngroups > 1:
        raise OptionError(
            f"correction={joint!r} resamples the queries of one group at a time, so its "
            "family is a group's pairs: use family='group' (default), or select one measure, "
            "or a p-value correction such as 'holm' with family='all'."
        )


def _posterior_columns(mean, ci_low, ci_high, n, margin, confidence_level) -> dict:
    r"""Posterior probabilities of :func:`compare`'s ``method="bayes"``.

    Under the noninformative (Jeffreys) prior p(μ, σ²) ∝ 1/σ² for normal per-query
    differences, the posterior of μ is Student's t_{n−1}(z̄, s/√n) (Gelman et al. 2013,
    Section 3.2), so P(μ > 0) = F_{n−1}(z̄/(s/√n)) and
    P(|μ| < δ) = F_{n−1}((δ − z̄)/(s/√n)) − F_{n−1}((−δ − z̄)/(s/√n)). The scale s/√n is read
    back from the credible interval z̄ ± t_{n−1, (1+CL)/2}·s/√n. Constant differences (s = 0)
    put the posterior on z̄: P(μ > 0) = 1, 0, or ½ when z̄ = 0; P(|μ| < δ) = 1 or 0.
    """
    mean = np.asarray(mean, dtype=np.float64)
    if n < 2:
        nan = np.full(len(mean), np.nan)
        out = {"prob_a_better": nan}
        if margin is not None:
            out["prob_rope"] = nan.copy()
            out["margin"] = np.full(len(mean), margin)
        return out
    df = n - 1
    quantile = _adapters.t_ppf(0.5 + confidence_level / 2.0, df)
    se = (np.asarray(ci_high) - np.asarray(ci_low)) / (2.0 * quantile)
    flat = se <= 0
    safe = np.where(flat, 1.0, se)
    cdf = lambda x: 1.0 - _adapters.t_sf(x, df)  # noqa: E731
    prob = np.where(flat, np.where(mean > 0, 1.0, np.where(mean < 0, 0.0, 0.5)), cdf(mean / safe))
    out = {"prob_a_better": prob}
    if margin is not None:
        rope = cdf((margin - mean) / safe) - cdf((-margin - mean) / safe)
        out["prob_rope"] = np.where(flat, (np.abs(mean) < margin).astype(np.float64), rope)
        out["margin"] = np.full(len(mean), margin)
    return out


def _resolve_resamples(method, n_resamples):
    if n_resamples is None:
        return DEFAULT_RESAMPLES.get(method, 0)
    return check_int("n_resamples", n_resamples, minimum=1, maximum=MAX_RESAMPLES)


def _baseline_list(baseline) -> list[str] | None:
    """``baseline=`` as a list of system names (None: all pairs)."""
    if baseline is None:
        return None
    if isinstance(baseline, (list, tuple, np.ndarray, pd.Index, pd.Series)):
        names = [str(b) for b in baseline]
        if not names:
            raise OptionError(
                "baseline= is an empty list; pass one or more system names, or None for all pairs."
            )
        if len(set(names)) != len(names):
            raise OptionError(f"baseline= names a system twice: {names}. List each baseline once.")
        return names
    return [str(baseline)]


def _baseline_index(systems, baseline, keys):
    """Column index of each baseline system (a list), or None for all pairs."""
    names = [str(s) for s in systems]
    bases = _baseline_list(baseline)
    if bases is None:
        return None
    missing = [b for b in bases if b not in names]
    if missing:
        where = f" in the group {keys}" if keys else ""
        raise SchemaError(
            f"baseline={missing[0]!r} is not a system of the scores{where}; the systems are "
            f"{', '.join(names[:10])}{' ...' if len(names) > 10 else ''}. Pass one of them."
        )
    return [names.index(b) for b in bases]


def _pairs(m: int, bases):
    """(I, J): all pairs i < j, or (k, b) for each baseline b in turn and every other k in
    column order — a pair of two baselines only once, against the earlier baseline."""
    if bases is None:
        return pair_indices(m)
    if len(bases) == 1:
        return pair_indices(m, bases[0])
    pi, pj = [], []
    for pos, b in enumerate(bases):
        earlier = set(bases[:pos])
        others = np.array([k for k in range(m) if k != b and k not in earlier], dtype=np.int64)
        pi.append(others)
        pj.append(np.full(len(others), b, dtype=np.int64))
    return np.concatenate(pi), np.concatenate(pj)


_EXTRA = ("hedges_g", "bf10", "n_wins", "n_ties", "n_losses")
#: The per-pair arrays every call of _test_group fills.
_COLUMNS = (
    "mean_diff",
    "statistic",
    "p_value",
    "ci_low",
    "ci_high",
    "effect_size",
    "required",
    "p_lower",
    "p_upper",
)


def _one_test(method, d, alternative, counts, signs, exact, a=None, b=None):
    """(statistic, p-value) of one test on the differences d (n × P) of a − b."""
    if method == "t":
        return t_kernel(d, alternative)
    if method == "wilcoxon":
        return _adapters.wilcoxon_columns(d, alternative)
    if method == "sign":
        if a is None:
            a, b = d, np.zeros_like(d)
        gt, _lt, p = sign_kernel(a, b, alternative)
        return gt.astype(np.float64), p
    if method == "randomization":
        return randomization_kernel(d, signs, exact, alternative)
    if counts is None:  # bootstrap with fewer than 2 queries
        nan = np.full(d.shape[1], np.nan)
        return nan, nan.copy()
    res = bootstrap_kernel(d, counts, alternative=alternative)
    return res["statistic"], res["p_value"]


def _test_group(
    x,
    method,
    *,
    n_res,
    rng,
    baseline=None,
    confidence_level=0.95,
    alpha=None,
    progress=None,
    alternative="two-sided",
    extras=False,
    margin=None,
    joint=None,
    joint_resamples=DEFAULT_JOINT_RESAMPLES,
):
    """Run one test on every pair of columns of the queries x systems matrix x.

    ``joint``: a resampling correction (``"maxt"``, ``"maxt-single"``, ``"closed"``) whose
    adjusted p-values go to ``cols["p_adjusted"]``, from the same resamples as ``p_value`` for
    the bootstrap and the randomisation test (``joint_resamples`` sign flips drawn from
    ``rng`` for the other tests).

    ``baseline``: None (all pairs), a column index, or a list of them. Returns (I, J, dict of
    per-pair arrays: mean_diff, statistic, p_value, ci_low, ci_high, effect_size, required
    [bootstrap with alpha; tukey: the HSD critical value], and with ``extras`` hedges_g, bf10,
    n_wins, n_ties, n_losses)."""
    n, m = x.shape
    bases = [baseline] if isinstance(baseline, (int, np.integer)) else baseline
    pi, pj = _pairs(m, bases)
    n_pairs = len(pi)
    cols = {k: np.full(n_pairs, np.nan) for k in _COLUMNS + (_EXTRA if extras else ())}
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
    width = max(
        n, counts.shape[0] if counts is not None else 0, signs.shape[0] if signs is not None else 0
    )
    parts = chunks(n_pairs, 3 * width)
    two_sided = alternative == "two-sided"
    tail = (1.0 - confidence_level) / (2.0 if two_sided else 1.0)
    for part in progress_bar(
        parts, desc=f"{method} pairs", progress=progress if len(parts) > 1 else False
    ):
        a = x[:, pi[part]]
        b = x[:, pj[part]]
        d = a - b
        mean = d.mean(axis=0)
        cols["mean_diff"][part] = mean
        if extras:
            cols["n_wins"][part] = (d > 0).sum(axis=0)
            cols["n_ties"][part] = (d == 0).sum(axis=0)
            cols["n_losses"][part] = (d < 0).sum(axis=0)
        if n >= 2:
            sd = d.std(axis=0, ddof=1)
            const = constant(d)
            with np.errstate(divide="ignore", invalid="ignore"):
                cols["effect_size"][part] = np.where(const, signed_inf(mean), mean / sd)
                half = _adapters.t_ppf(1.0 - tail, n - 1) * sd / math.sqrt(n)
            cols["ci_low"][part] = mean - half if alternative != "less" else -np.inf
            cols["ci_high"][part] = mean + half if alternative != "greater" else np.inf
            if extras:
                cols["hedges_g"][part] = _adapters.hedges_g_paired(a, b)
                if two_sided:
                    t_paired, _ = t_kernel(d)
                    cols["bf10"][part] = _adapters.bayes_factor_t(t_paired, n)
        if margin is not None and method != "tukey":
            # TOST / non-inferiority: one-sided tests of the shifted differences
            lower = upper = None
            if alternative in ("two-sided", "greater"):  # H0: mean <= -margin
                lower = _one_test(method, d + margin, "greater", counts, signs, exact)
                cols["p_lower"][part] = lower[1]
            if alternative in ("two-sided", "less"):  # H0: mean >= margin
                upper = _one_test(method, d - margin, "less", counts, signs, exact)
                cols["p_upper"][part] = upper[1]
            if lower is not None and upper is not None:
                use_lower = lower[1] >= upper[1]
                cols["statistic"][part] = np.where(use_lower, lower[0], upper[0])
                cols["p_value"][part] = np.maximum(lower[1], upper[1])
            else:
                cols["statistic"][part], cols["p_value"][part] = lower if upper is None else upper
            if method == "bootstrap" and counts is not None:
                res = bootstrap_kernel(
                    d, counts, confidence_level=confidence_level, alternative=alternative
                )
                cols["ci_low"][part], cols["ci_high"][part] = res["ci_low"], res["ci_high"]
        elif method in ("t", "wilcoxon", "sign", "randomization"):
            cols["statistic"][part], cols["p_value"][part] = _one_test(
                method, d, alternative, counts, signs, exact, a, b
            )
        elif method == "bootstrap":
            if counts is None:
                continue
            res = bootstrap_kernel(
                d, counts, confidence_level=confidence_level, alpha=alpha, alternative=alternative
            )
            cols["statistic"][part] = res["statistic"]
            cols["p_value"][part] = res["p_value"]
            cols["ci_low"][part], cols["ci_high"][part] = res["ci_low"], res["ci_high"]
            if alpha is not None:
                cols["required"][part] = res["required"]
        elif method == "tukey":
            scale = np.abs(a).mean(axis=0) + np.abs(b).mean(axis=0)
            cols["statistic"][part] = np.abs(mean)
            cols["p_value"][part] = tukey_p(hsd, mean, scale)
    if joint is not None:
        resamples = (counts, False) if method == "bootstrap" else (signs, exact)
        cols["p_adjusted"] = _joint_p(
            x, pi, pj, method, joint, resamples, joint_resamples, rng, alternative
        )
    if method == "tukey" and alpha is not None:
        # The HSD critical value: the smallest |difference| declared significant at alpha.
        k = required_position(alpha, n_res)
        cols["required"][:] = hsd[n_res - k]
    return pi, pj, cols


def _joint_p(x, pi, pj, method, joint, resamples, n_res, rng, alternative):
    """Adjusted p-values of a resampling correction for the pairs (pi, pj) of x: on the
    test's own resamples (bootstrap counts, randomisation signs), else on ``n_res`` sign
    flips drawn from ``rng``."""
    n = x.shape[0]
    if n < 2:
        return np.full(len(pi), np.nan)
    res, exact = resamples
    if method not in ("bootstrap", "randomization"):
        res, exact = joint_draws(method, n, n_res, rng)
    d = x[:, pi] - x[:, pj]
    return joint_kernel(d, method, res, exact, correction=joint, alternative=alternative)


def canonical_method(method):
    """pdireval's name of a test given in any supported spelling (see ``METHOD_ALIASES``)."""
    if isinstance(method, str) and method not in METHODS:
        key = method.strip().lower()
        method = METHOD_ALIASES.get(key, key if key in METHODS else method)
    if method not in METHODS:
        allowed = ", ".join(repr(c) for c in METHODS)
        raise OptionError(
            f"method= must be one of {allowed} (or ranx's names 'student', 'fisher'); "
            f"got {method!r}."
        )
    return method


def _check_margin(method, margin):
    """Validate compare()'s ``margin`` (None or a positive number) and return it."""
    if margin is None:
        return None
    margin = check_real("margin", margin, low=0.0, inclusive=False)
    if method == "tukey":
        raise OptionError(
            "margin= (equivalence / non-inferiority) shifts the per-query differences of one "
            "pair, which the randomised Tukey HSD does not test; use method='t', 'wilcoxon', "
            "'sign', 'bootstrap' or 'randomization' with margin=."
        )
    return margin


def check_common(method, confidence_level, alternative="two-sided"):
    """Validate the options every test shares; return the canonical method name."""
    method = canonical_method(method)
    check_real("confidence_level", confidence_level, low=0, high=1, inclusive=False)
    check_alternative(alternative)
    if method == "tukey" and alternative != "two-sided":
        raise OptionError(
            "the randomised Tukey HSD is two-sided only (it compares |mean difference| with the "
            f"range of the permuted means); got alternative={alternative!r}. Use method='t', "
            "'bootstrap', 'randomization', 'wilcoxon' or 'sign' for a one-sided test."
        )
    return method


def iter_tests(
    frame,
    method,
    *,
    n_resamples,
    rng,
    baseline=None,
    confidence_level=0.95,
    alpha=None,
    progress=None,
    alternative="two-sided",
    extras=False,
    margin=None,
    joint=None,
):
    """Yield (keys, systems, n_queries, means, I, J, cols) for every group of a scores frame.

    ``joint``: a resampling correction (see :func:`_test_group`); its resamples are
    ``n_resamples`` (None: the method's default, else ``DEFAULT_JOINT_RESAMPLES``)."""
    n_res = _resolve_resamples(method, n_resamples)
    joint_res = n_res or (
        DEFAULT_JOINT_RESAMPLES
        if n_resamples is None
        else check_int("n_resamples", n_resamples, minimum=1, maximum=MAX_RESAMPLES)
    )
    seed = check_rng(rng)
    _baseline_list(baseline)  # validate before any work
    groups = group_matrices(frame)
    keys = group_columns(frame)
    n_groups = frame.groupby(keys, dropna=False, observed=True).ngroups if keys else 1
    for keys, matrix in progress_bar(
        groups,
        total=n_groups,
        desc=f"{method} groups",
        progress=progress if n_groups > 1 else False,
    ):
        systems = list(matrix.columns)
        x = matrix.to_numpy(dtype=np.float64)
        base = _baseline_index(systems, baseline, keys)
        pi, pj, cols = _test_group(
            x,
            method,
            n_res=n_res,
            rng=group_generator(seed),
            baseline=base,
            confidence_level=confidence_level,
            alpha=alpha,
            progress=progress,
            alternative=alternative,
            extras=extras,
            margin=margin,
            joint=joint,
            joint_resamples=joint_res,
        )
        yield keys, systems, x.shape[0], x.mean(axis=0), pi, pj, cols


def _wants_required_diff(method, correction, alternative, margin, alpha) -> bool:
    """Check the Tukey HSD's correction and required_diff_alpha; whether compare() reports
    Sakai's required difference."""
    if method == "tukey" and correction is not None:
        raise OptionError(
            "the randomised Tukey HSD already controls the family-wise error over all pairs; "
            "pass correction=None with method='tukey'"
        )
    if alpha is not None:
        check_real("required_diff_alpha", alpha, low=0, high=1, inclusive=False)
    # Sakai's required difference: two-sided bootstrap and Tukey HSD only
    return (
        alpha is not None
        and method in ("bootstrap", "tukey")
        and alternative == "two-sided"
        and margin is None
    )


def _group_rows(
    keys,
    keys_cols,
    systems,
    n_q,
    means,
    pi,
    pj,
    cols,
    *,
    method,
    alternative,
    correction,
    family,
    joint,
    required,
    alpha,
    margin,
    confidence_level,
    bayes,
) -> pd.DataFrame:
    """compare()'s rows for the pairs (pi, pj) of one group's systems, from iter_tests'
    columns (p_adjusted corrected within the group when family='group')."""
    names = np.array(systems, dtype=object)
    part: dict[str, object] = {k: [keys[k]] * len(pi) for k in keys_cols}
    part.update(
        system_a=names[pi],
        system_b=names[pj],
        mean_a=means[pi],
        mean_b=means[pj],
        mean_diff=cols["mean_diff"],
        ci_low=cols["ci_low"],
        ci_high=cols["ci_high"],
        effect_size=cols["effect_size"],
        hedges_g=cols["hedges_g"],
        bf10=cols["bf10"],
        statistic=cols["statistic"].astype(np.float64),
        p_value=cols["p_value"],
    )
    if joint is not None:
        part["p_adjusted"] = cols["p_adjusted"]
    else:
        part["p_adjusted"] = (
            adjust_pvalues(cols["p_value"], cast("Correction | None", correction))
            if family == "group"
            else cols["p_value"]
        )
    part["required_diff"] = cols["required"] if required else np.full(len(pi), np.nan)
    for k in ("n_wins", "n_ties", "n_losses"):
        part[k] = cols[k].astype(np.int64)
    part["method"] = method
    part["alternative"] = alternative
    part["correction"] = correction or "none"
    part["required_alpha"] = np.full(len(pi), float(alpha) if alpha is not None else np.nan)
    part["n_queries"] = np.full(len(pi), n_q, dtype=np.int64)
    part.update(_last_columns(cols, n_q, margin, confidence_level, bayes))
    return pd.DataFrame(part)


@renamed_options(alpha="required_diff_alpha")
@shared_docs
def compare(
    scores: pd.DataFrame,
    *,
    method: CompareMethod = "bootstrap",
    alternative: Alternative = "two-sided",
    n_resamples: int | None = None,
    rng: RngLike = None,
    correction: Correction | ResamplingCorrection | None = None,
    baseline: str | Sequence[str] | None = None,
    family: Literal["group", "all"] = "group",
    confidence_level: float = 0.95,
    required_diff_alpha: float | None = None,
    margin: float | None = None,
    progress: bool | None = None,
    columns: Columns = None,
    seeds: Seeds | None = None,
) -> pd.DataFrame:
    r"""Paired significance test of every pair of systems, per measure (and grouping key).

    Systems are aligned on ``query`` (a complete query × system matrix per group is required;
    :func:`pdireval.core.groups.score_matrix` says how to fix a gap). Every pair (a, b) with a
    before b in sorted system order is tested — or, with ``baseline=``, every other system
    (``system_a``) against each baseline (``system_b``). Per-query differences are
    z_t = a_t − b_t; ``alternative="greater"`` tests whether a is better than b (mean z > 0).

    Methods:

    * ``"bootstrap"`` (default) — Sakai's (2006) studentised paired bootstrap test; the
      p-value is the achieved significance level (ASL): the share of B resamples of the
      null-centred differences whose studentised mean is at least as extreme as the observed
      one. The index matrix ``rng.integers(0, n, size=(B, n))`` is drawn once per group and
      shared by all pairs (as in Sakai's discriminative-power protocol). Default B = 1000.
    * ``"t"`` — Student's paired t-test, t = z̄ / (s_z/√n), n − 1 degrees of freedom
      (``scipy.stats.ttest_rel``).
    * ``"wilcoxon"`` — Wilcoxon signed-rank test (scipy's defaults: zero differences dropped).
    * ``"sign"`` — exact sign test; ``statistic`` = #{t : a_t > b_t}.
    * ``"randomization"`` — paired Fisher randomisation test of the mean difference (sign
      flips shared by all pairs; exact when 2^n ≤ B; default B = 10000), see
      :func:`pdireval.stats.paired_tests.randomization_test`.
    * ``"tukey"`` — randomised Tukey HSD (Carterette 2012; Sakai 2012), which already
      controls the family-wise error over all pairs of the group. Two-sided only. Default
      B = 5000.
    * ``"bayes"`` — no test: the posterior of the mean difference μ under the noninformative
      (Jeffreys) prior p(μ, σ²) ∝ 1/σ² for normal per-query differences, Student's
      t_{n−1}(z̄, s_z/√n) in closed form (no sampler, no resamples; Gelman et al. 2013,
      Section 3.2), as Sakai (2017) and Benham et al. (2020) advocate reporting:
      ``prob_a_better`` = P(μ > 0 | data) = F_{n−1}(z̄/(s_z/√n)), the posterior mean
      (``mean_diff``) and the equal-tailed credible interval of μ in ``ci_low, ci_high``
      (numerically the t confidence interval); with ``margin=δ``, ``prob_rope`` =
      P(|μ| < δ | data), the posterior mass in the region of practical equivalence.
      ``p_value`` is NaN (there is no p-value to correct: ``correction=`` must be None);
      two-sided only; ``bf10`` stays pingouin's JZS Bayes factor.

    **Large samples.** With more than 1,000 queries ``"wilcoxon"`` and ``"sign"`` exceed
    their nominal type I error rate and every test finds almost any difference significant
    (Ihemelandu & Ekstrand 2023); compare warns once (a PdirevalWarning at your line) and
    points to the t, randomisation and bootstrap tests, effect sizes and ``margin=``.

    **Equivalence and non-inferiority** (``margin=δ > 0``, any method but ``"tukey"``): the
    null hypothesis becomes "the systems differ by at least δ". Two one-sided tests (TOST;
    Schuirmann 1987) of the shifted differences: p_lower tests H0: μ ≤ −δ against μ > −δ
    (the method's ``"greater"`` test of z_t + δ), p_upper tests H0: μ ≥ δ against μ < δ (its
    ``"less"`` test of z_t − δ). ``alternative="two-sided"`` gives equivalence,
    |μ| < δ, with p = max(p_lower, p_upper); ``"greater"`` gives non-inferiority of a
    (μ > −δ, p = p_lower); ``"less"`` non-superiority (μ < δ, p = p_upper). A small p means
    "equivalent within δ" (or "not worse by δ or more"). For ``"t"`` this equals the larger
    of ``scipy.stats.ttest_rel(a + δ, b, alternative="greater")`` and
    ``ttest_rel(a − δ, b, alternative="less")``; ``"wilcoxon"`` and ``"sign"`` test the
    median difference, ``"randomization"`` assumes shifted differences symmetric about 0.
    TOST at level α is equivalent to the (1 − 2α) confidence interval of the mean
    difference lying inside (−δ, δ). **Pick δ before looking at the data**: the smallest
    difference that would matter to a user of the measure, e.g. a published minimum
    detectable difference, or Sakai's (2006) ``required_diff`` of an earlier, comparable
    experiment; never the observed difference.

    Parameters
    ----------
    scores
        Scores frame: ``system, query, measure, value`` plus optional grouping columns.
    method
        One of the methods above, or another tool's name of the same test (ranx's
        ``"student"`` and ``"fisher"``, ``"ttest"``, ``"permutation"``; see
        ``METHOD_ALIASES``); the result's ``method`` column holds the name above.
    alternative
        scipy's values: ``"two-sided"`` (default), ``"greater"`` (H1: mean of a − b > 0),
        ``"less"``. One-sided alternatives also make ``ci_low, ci_high`` one-sided, as scipy
        does: [low, ∞) for ``"greater"``, (−∞, high] for ``"less"``. Not for ``"tukey"``.
    n_resamples
        Resamples of the resampling methods (None: the method's default).
    rng
        None (default: fresh entropy, as everywhere in pdireval), an integer seed, a
        ``SeedSequence`` or a Generator (which contributes one draw). Pass a seed for
        p-values that two identical calls reproduce. Every group's draws start from the
        seed alone (``default_rng(seed)`` for an integer), so a measure's p-values do not
        depend on the other measures in the frame.
    correction
        Multiple-comparison adjustment written to ``p_adjusted`` (see
        :func:`pdireval.stats.corrections.adjust_pvalues`): None, ``"bonferroni"``,
        ``"sidak"`` (Šidák 1967), ``"holm"`` (Holm 1979), ``"holm-sidak"``, ``"hochberg"``
        (Hochberg 1988), ``"hommel"`` (Hommel 1988) — family-wise error —, ``"bh"``
        (Benjamini & Hochberg 1995) or ``"by"`` (Benjamini & Yekutieli 2001) — false
        discovery rate. statsmodels' ``multipletests`` names, which PyTerrier uses too
        (``"fdr_bh"``, ``"fdr_by"``, ``"hs"``, ``"simes-hochberg"``, ...), give the same
        adjustment; the ``correction`` column holds the name above. None (the default, as
        in scipy, ranx and PyTerrier): no adjustment and no ``p_adjusted`` column — right for
        one comparison planned in advance; for all pairs, or many systems against a
        baseline, pass one (``pdireval report`` and :func:`pdireval.paper_table` use Holm).
        Resampling corrections, which resample the per-query differences of all pairs of
        the family at once so that correlated comparisons are not over-corrected
        (:func:`pdireval.stats.multiplicity.resampling_adjust` states each statistic):
        ``"maxt"`` — Westfall & Young's (1993) step-down maxT (Boytsov, Belova & Westfall
        2013); ``"maxt-single"`` — its single-step form; ``"closed"`` — closed testing with
        a sum-of-squares resampling test of every intersection, for families of at most 8
        pairs. They take ``method`` ``"t"`` (sign flips, studentised), ``"randomization"``
        (the same sign flips as its p-values), ``"wilcoxon"`` / ``"sign"`` (sign flips of
        the standardised signed-rank / sign statistic) or ``"bootstrap"`` (the same
        bootstrap samples as its p-values, null-centred), ``n_resamples`` (default 10000
        for the sign-flip tests without a default of their own) and ``rng``; not
        ``margin=``, and ``family="all"`` only with one group.
    baseline
        A system name, or a list of them: compare every other system with each baseline
        instead of all pairs (a pair of two baselines appears once, against the earlier one).
    family
        What one family of the correction is: ``"group"`` (default; the pairs of one
        measure / group) or ``"all"`` (every row of the result).
    {confidence_level}
    required_diff_alpha
        Significance level of Sakai's (2006) estimated difference required for significance,
        written to ``required_diff`` (None, the default: not computed, which saves about a
        quarter of the bootstrap's time). The p-values do not depend on it. (``alpha=``
        before 0.2, deprecated: elsewhere ``alpha`` is the level of a decision.)
    margin
        Equivalence margin δ > 0 (in the measure's units) for TOST / non-inferiority tests
        (above); None (default): ordinary tests of "no difference".
    {progress}
    columns
        Optional mapping ``{canonical name: your column name}`` for ``scores``.
    seeds
        Scores with a ``seed`` column (repeated runs of a stochastic system): None (default)
        compares the systems seed by seed (``seed`` is a grouping key); ``"mean"``: the seed
        is a random effect, the test runs on each system's mean over its seeds per query;
        ``"nested"`` (``method="bootstrap"`` only): a two-level bootstrap — each replicate
        draws the queries with replacement (the same for both systems), then, per drawn
        query and system, that system's r seeds with replacement — gives ``ci_low``,
        ``ci_high`` (percentile) and ``p_value`` (shifted distribution: two-sided
        #(|d* − d̄| ≥ |d̄|)/B) for the difference of the means over (query, seed), with
        ``statistic`` NaN, ``method`` ``"nested_bootstrap"`` and ``n_seeds``; the other
        columns are those of ``"mean"`` (Davison & Hinkley 1997, Section 3.8). Seeds are
        not paired across systems; every system needs the same number of seeds on every query.

    Returns
    -------
    DataFrame
        One row per (group, pair), groups in :func:`pdireval.core.groups.scores_groups` order,
        pairs in system order (with baselines: baseline by baseline, in the order given).
        Columns:

        - the grouping keys (``measure`` and any extra column of ``scores``);
        - ``system_a``, ``system_b`` (str; with ``baseline=``, ``system_b`` is the baseline);
        - ``mean_a``, ``mean_b`` (means over queries); ``mean_diff`` (mean of a − b);
        - ``ci_low``, ``ci_high``: confidence interval of the mean difference — the bootstrap
          percentile interval of z̄ + w̄*_b on the same resamples for ``"bootstrap"``, the
          Student-t interval z̄ ± t_{n−1}·s_z/√n otherwise (one-sided for one-sided
          alternatives); for ``"bayes"`` the equal-tailed credible interval of μ at
          ``confidence_level`` (the same numbers);
        - ``effect_size``: Cohen's d_z = z̄ / s_z (±inf when the differences are constant);
        - ``hedges_g``: Hedges' g as pingouin's ``compute_effsize(a, b, paired=True,
          eftype="hedges")``: (ā − b̄)/√((s_a² + s_b²)/2) · (1 − 3/(8n − 9)) (±inf when
          both systems' scores are constant and their means differ);
        - ``bf10``: JZS Bayes factor of the paired t statistic in favour of a difference
          (Rouder et al. 2009; Cauchy prior scale 0.707, pingouin's ``bayesfactor_ttest``),
          two-sided only: NaN for one-sided alternatives and for constant differences;
        - ``statistic``: t for ``"t"`` and ``"bootstrap"``, scipy's Wilcoxon statistic
          (min(W+, W−) two-sided, W+ one-sided), #wins of a for ``"sign"``, z̄ for
          ``"randomization"``, |z̄| for ``"tukey"``, z̄/(s_z/√n) (the posterior's
          standardised location) for ``"bayes"``;
        - ``p_value`` (unadjusted; the ASL for the bootstrap; NaN for ``"bayes"``); with a
          ``correction`` only, ``p_adjusted`` (after it) and ``family_size`` (int64: how many
          p-values were adjusted together, the pairs of the group or, with ``family="all"``,
          every row). Without a
          correction there is no ``p_adjusted``, so an uncorrected p-value is never read as a
          corrected one;
        - ``required_diff``: with ``required_diff_alpha=``, Sakai's (2006) estimated
          difference required for significance at that level, from the same resamples as
          ``p_value``: the replicates sorted by |t*_b| descending, the one at 1-based
          position ⌈α·B⌉ (among replicates sharing that |t*|, the smallest b), its |w̄*_b|
          (the largest over the
          pairs is :func:`pdireval.discriminative_power`'s ``required_diff``); for
          ``"tukey"`` the HSD critical value (the same for every pair of the group). NaN
          without ``required_diff_alpha``, for the other methods and for one-sided
          alternatives;
        - ``n_wins``, ``n_ties``, ``n_losses`` (int64): queries with a_t > b_t, a_t = b_t,
          a_t < b_t (PyTerrier's +/− columns);
        - ``method``; ``alternative``; ``correction`` (``"none"`` without);
          ``required_alpha`` (``required_diff_alpha``, NaN without); ``n_queries``;
        - ``"bayes"`` only: ``prob_a_better`` (P(μ > 0 | data)); with ``margin=`` also
          ``prob_rope`` (P(|μ| < δ | data)) and ``margin``;
        - with ``margin=`` only: ``margin`` (δ), ``p_lower`` (H0: μ ≤ −δ), ``p_upper``
          (H0: μ ≥ δ; NaN where the alternative does not use it); ``p_value`` is then the
          equivalence / non-inferiority p-value and ``statistic`` that of the deciding
          one-sided test (for the bootstrap, the studentised statistic).

    Notes
    -----
    Fewer than 2 queries make every statistic NaN. A pair whose differences are all zero
    gets p = 1 under every method and alternative (a system is never significantly different
    from itself).

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    Smucker, M., Allan, J., Carterette, B. (2007). A comparison of statistical significance
    tests for information retrieval evaluation. CIKM.
    Rouder, J. N., Speckman, P. L., Sun, D., Morey, R. D., Iverson, G. (2009). Bayesian t tests
    for accepting and rejecting the null hypothesis. Psychonomic Bulletin & Review 16.
    Carterette, B. (2012). Multiple testing in statistical analysis of systems-based
    information retrieval experiments. TOIS 30(1).
    Lakens, D. (2013). Calculating and reporting effect sizes to facilitate cumulative
    science. Frontiers in Psychology 4.
    Westfall, P. H., Young, S. S. (1993). Resampling-Based Multiple Testing. Wiley.
    Boytsov, L., Belova, A., Westfall, P. (2013). Deciding on an adjustment for multiplicity
    in IR experiments. SIGIR.
    Sakai, T. (2016). Statistical significance, power, and sample sizes: a systematic review
    of SIGIR and TOIS, 2006-2015. SIGIR.
    Sakai, T. (2017). The probability that your hypothesis is correct, credible intervals, and
    effect sizes for IR evaluation. SIGIR.
    Benham, R., Carterette, B., Culpepper, J. S., Moffat, A. (2020). Bayesian inferential risk
    evaluation on multiple IR systems. SIGIR.
    Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A., Rubin, D. B. (2013).
    Bayesian Data Analysis, 3rd ed. CRC Press.
    Ihemelandu, N., Ekstrand, M. D. (2023). Inference at scale: significance testing for
    large search and recommendation experiments. SIGIR.
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power
    approach for assessing the equivalence of average bioavailability. Journal of
    Pharmacokinetics and Biopharmaceutics 15(6).
    """
    frame = meta_scores(scores, columns, function="compare")
    bayes = isinstance(method, str) and method.strip().lower() == BAYES
    if bayes:
        _check_bayes(alternative, correction, n_resamples, required_diff_alpha, seeds)
        method = "t"  # the Jeffreys posterior of the mean is the t-test's pivot
    method = check_common(method, confidence_level, alternative)
    correction = canonical_correction(correction, resampling=True)
    joint = correction if correction in RESAMPLING_CORRECTIONS else None
    if bayes and margin is not None:
        margin = check_real("margin", margin, low=0.0, inclusive=False)
    elif not bayes:
        margin = _check_margin(method, margin)
    if joint is not None:
        _check_joint(method, joint, margin, seeds, family, frame)
    if seeds is not None:
        options = dict(
            method=BAYES if bayes else method,
            alternative=alternative,
            n_resamples=n_resamples,
            rng=rng,
            correction=correction,
            baseline=baseline,
            family=family,
            confidence_level=confidence_level,
            required_diff_alpha=required_diff_alpha,
            margin=margin,
            progress=progress,
        )
        return _compare_seeds(frame, seeds, options)
    check_option("family", family, ("group", "all"))
    alpha = required_diff_alpha
    required = _wants_required_diff(method, correction, alternative, margin, alpha)
    keys_cols = group_columns(frame)
    parts = []
    large_n_warned = False
    for keys, systems, n_q, means, pi, pj, cols in iter_tests(
        frame,
        method,
        n_resamples=n_resamples,
        rng=rng,
        baseline=baseline,
        confidence_level=confidence_level,
        alpha=alpha if required else None,
        progress=progress,
        alternative=alternative,
        extras=True,
        margin=None if bayes else margin,
        joint=joint,
    ):
        if method in ("wilcoxon", "sign") and n_q > LARGE_N and not large_n_warned:
            large_n_warned = True
            _warn_large_n(method, n_q)
        part = _group_rows(
            keys,
            keys_cols,
            systems,
            n_q,
            means,
            pi,
            pj,
            cols,
            method=method,
            alternative=alternative,
            correction=correction,
            family=family,
            joint=joint,
            required=required,
            alpha=alpha,
            margin=margin,
            confidence_level=confidence_level,
            bayes=bayes,
        )
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    if family == "all" and joint is None:
        out["p_adjusted"] = adjust_pvalues(
            out["p_value"].to_numpy(), cast("Correction | None", correction)
        )
    for col in ("system_a", "system_b", "method", "alternative", "correction"):
        out[col] = out[col].astype(str)
    _warn_single_query(out, keys_cols)
    return _family_columns(out, correction, family, keys_cols)


def _warn_single_query(out: pd.DataFrame, keys: list) -> None:
    """aggregate's warning for pairs compared on fewer than two queries (NaN intervals)."""
    from pdireval.meta.mean_intervals import warn_no_interval

    few = out[out["n_queries"].to_numpy() < 2]
    cases = [
        ", ".join(f"{k}={row[k]!r}" for k in keys) + f": {row['system_a']} vs {row['system_b']}"
        for _, row in few.iterrows()
    ]
    if cases:
        method = str(few["method"].iloc[0])
        warn_no_interval(cases, "pair(s) compared on fewer than two queries", method)


def _last_columns(cols, n_q, margin, confidence_level, bayes) -> dict:
    """compare()'s columns of method='bayes' (posterior probabilities, ``method``, NaN
    ``p_value``) or of margin= (``margin``, ``p_lower``, ``p_upper``)."""
    n_pairs = len(cols["mean_diff"])
    if bayes:
        out = _posterior_columns(
            cols["mean_diff"], cols["ci_low"], cols["ci_high"], n_q, margin, confidence_level
        )
        return {"method": BAYES, "p_value": np.full(n_pairs, np.nan), **out}
    if margin is None:
        return {}
    return {
        "margin": np.full(n_pairs, margin),
        "p_lower": cols["p_lower"],
        "p_upper": cols["p_upper"],
    }


def _compare_seeds(frame, seeds, options) -> pd.DataFrame:
    """compare() of scores with a ``seed`` column: on the means over seeds (``"mean"``) or
    by the two-level bootstrap (``"nested"``); ``options``: compare()'s other arguments."""
    from pdireval.meta.seeds import SEEDS, average_seeds, nested_compare, require_seed

    method, correction, family = options["method"], options["correction"], options["family"]
    rng, n_resamples = options["rng"], options["n_resamples"]
    check_option("seeds", seeds, SEEDS)
    require_seed(frame, "compare")
    if seeds == "nested" and method != "bootstrap":
        raise OptionError(
            f"seeds='nested' is a two-level bootstrap: use it with method='bootstrap' (got "
            f"{method!r}), or seeds='mean' to run {method!r} on the means over seeds."
        )
    out = compare(average_seeds(frame), **options)
    if seeds == "nested":
        out = nested_compare(
            out,
            frame,
            n_resamples=_resolve_resamples(method, n_resamples),
            seq=check_rng(rng),
            confidence_level=options["confidence_level"],
            alternative=options["alternative"],
        )
        by = [c for c in group_columns(out) if c in group_columns(frame) and c != "seed"]
        if correction is not None and family == "all":
            out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), correction)
        elif correction is not None:
            out["p_adjusted"] = (
                out.groupby(by, sort=False, observed=True, dropna=False)["p_value"].transform(
                    lambda p: adjust_pvalues(p.to_numpy(), correction)
                )
                if by
                else adjust_pvalues(out["p_value"].to_numpy(), correction)
            )
    return out


def _family_columns(out: pd.DataFrame, correction, family: str, keys: list) -> pd.DataFrame:
    """Without a correction, no ``p_adjusted`` (a copy of ``p_value`` read as corrected);
    with one, ``family_size``: the number of p-values adjusted together."""
    if correction is None:
        return out.drop(columns="p_adjusted")
    if family == "all" or not keys:
        size = np.full(len(out), len(out), dtype=np.int64)
    else:
        grouped = out.groupby(keys, sort=False, observed=True, dropna=False)["p_value"]
        size = grouped.transform("size").to_numpy(dtype=np.int64)
    out.insert(out.columns.get_loc("p_adjusted") + 1, "family_size", size)
    return out


def decision_p(tests: pd.DataFrame) -> pd.Series:
    """The p-values a decision reads in a :func:`compare` result: ``p_adjusted`` where a
    correction was applied, else ``p_value`` (a result without a correction has no
    ``p_adjusted``)."""
    return tests["p_adjusted"] if "p_adjusted" in tests.columns else tests["p_value"]
