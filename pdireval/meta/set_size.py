"""How many queries does a test collection need? Sakai (2016)'s topic set size design.

:func:`query_set_size` takes the variance of a measure from an existing scores frame (the
one-way ANOVA's within-system mean square V_E, as Sakai (2016) does, or the two-way ANOVA's
residual mean square, Sakai's (2014) variant) and returns the
number of queries at which a paired t-test, a one-way ANOVA or a repeated-measures ANOVA
reaches a given power for a minimum detectable difference, or at which the expected width
of the confidence interval of a paired difference drops below a cap. Power comes from
pingouin (``power_ttest``, ``power_anova``, ``power_rm_anova``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import group_matrices
from pdireval.errors import OptionError, check_int, check_option, check_option_list, check_real
from pdireval.meta.inputs import meta_scores
from pdireval.stats import _adapters as adapters
from pdireval.stats.gtheory import anova_table
from pdireval.types import Columns

if TYPE_CHECKING:
    from typing import Literal

    from pdireval.types import SetSizeMethod

__all__ = ["query_set_size", "SET_SIZE_METHODS", "VARIANCE_ESTIMATES"]

SET_SIZE_METHODS = ("ttest", "anova", "rm_anova", "ci")
#: the variance estimates of ``query_set_size(variance=...)``
VARIANCE_ESTIMATES = ("one-way", "two-way")

#: the largest query count searched; designs needing more report this bound's excess as NaN
MAX_QUERIES = 10_000_000


def _power(method: str, effect: float, n: float, m: int, alpha: float) -> float:
    """Power at n queries (float n accepted); ``effect`` is d (ttest) or f² (ANOVAs).

    The power tends to 1 as the effect grows (n >= 2); pingouin's noncentral distributions
    answer NaN (or divide by zero when η² rounds to 1) for huge effects (d ~ 1e10, e.g.
    scores far smaller than ``min_difference``), which is read as that limit, 1.
    """
    if method == "ttest":
        p = adapters.power_ttest_paired(effect, n, alpha)
    else:
        eta2 = effect / (1.0 + effect)
        if eta2 >= 1.0:  # f² so large that η² rounds to 1: the limit
            return 1.0
        p = (
            adapters.power_anova(eta2, m, n, alpha)
            if method == "anova"
            else adapters.power_rm_anova(eta2, m, n, alpha)
        )
    return 1.0 if np.isnan(p) and effect > 1.0 else p


def _smallest_n(method, effect, m, alpha, power) -> int | float:
    """Smallest integer n ≥ 2 whose power reaches ``power`` (pingouin's root, then exact)."""
    if effect <= 0:
        return math.inf
    if _power(method, effect, 2, m, alpha) >= power:
        return 2
    if method == "ttest":
        guess = adapters.n_ttest_paired(effect, power, alpha)
    else:
        eta2 = effect / (1.0 + effect)
        guess = (
            adapters.n_anova(eta2, m, power, alpha)
            if method == "anova"
            else adapters.n_rm_anova(eta2, m, power, alpha)
        )
    if not np.isfinite(guess):
        return math.inf
    n = max(2, int(math.ceil(guess)))
    # the root is a float: settle on the integer exactly (the power grows with n)
    while n > 2 and _power(method, effect, n - 1, m, alpha) >= power:
        n -= 1
    while _power(method, effect, n, m, alpha) < power:
        n += 1
    return n


def _ci_factor(n: np.ndarray) -> np.ndarray:
    """E[s] / σ for a normal sample of size n: √(2/(n − 1)) Γ(n/2) / Γ((n − 1)/2)."""
    from scipy.special import gammaln

    return np.sqrt(2.0 / (n - 1.0)) * np.exp(gammaln(n / 2.0) - gammaln((n - 1.0) / 2.0))


def _expected_width(n, sd_diff, alpha):
    n = np.asarray(n, dtype=np.float64)
    return 2.0 * adapters.t_ppf(1.0 - alpha / 2.0, n - 1.0) * _ci_factor(n) * sd_diff / np.sqrt(n)


def _smallest_n_ci(sd_diff: float, width: float, alpha: float) -> int | float:
    """Smallest n ≥ 2 whose expected interval width is at most ``width``."""
    if sd_diff == 0:
        return 2
    z = float(adapters.norm_ppf(1.0 - alpha / 2.0))
    start = (2.0 * z * sd_diff / width) ** 2  # the normal-theory size, a lower bound
    lo = max(2, int(math.floor(start)) - 1)
    hi = max(lo + 16, int(2 * start) + 16)
    while hi <= MAX_QUERIES:
        n = np.arange(lo, hi + 1)
        ok = np.flatnonzero(_expected_width(n, sd_diff, alpha) <= width)
        if len(ok):
            return int(n[ok[0]])
        lo, hi = hi + 1, 2 * hi
    return math.inf


def query_set_size(
    scores: pd.DataFrame,
    *,
    method: SetSizeMethod | Sequence[SetSizeMethod] = "ttest",
    min_difference: float | Sequence[float] = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
    variance: float | Literal["one-way", "two-way"] = "one-way",
    n_systems: int | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Queries needed to detect a given difference (Sakai 2016, topic set size design).

    Sakai calls this *topic set size design*; pdireval says "query" for a topic everywhere, so
    the function is ``query_set_size`` (``topic_set_size`` before 0.2, a deprecated alias until
    0.3).

    The per-query score variance σ² of each group of ``scores`` (a query × system matrix x,
    m systems, n queries) is estimated as Sakai (2016) does — the within-system mean square
    V_E of the one-way ANOVA with the systems as the factor,
    σ̂² = Σ_i Σ_j (x_ij − x̄_i)² / (m(n − 1)), which includes the query variance
    (``variance="one-way"``, the default) — or as in Sakai's (2014) variant, the residual mean
    square of the additive two-way system × query ANOVA, which removes it
    (``variance="two-way"``; on Robust 2003 it asks 2.6–4× fewer queries, e.g. AP, minD 0.05,
    t-test: 65 instead of 256). A number is used as σ² as it is. Both estimates are reported.
    For a minimum detectable difference minD and each method:

    * ``"ttest"`` — paired two-sided t-test: smallest n with power ≥ ``power`` at level
      ``alpha`` for the standardised difference d = minD / σ_d, σ_d² = 2σ² (the variance
      of a difference of two systems' scores); power from the noncentral t with n − 1
      degrees of freedom and noncentrality d√n (pingouin's ``power_ttest``, ``contrast=
      "paired"``).
    * ``"anova"`` — one-way ANOVA over m systems (Sakai's design): the worst case of a
      range minD has noncentrality λ = n minD² / (2σ²) with (m − 1, m(n − 1)) degrees of
      freedom, i.e. pingouin's ``power_anova`` with f² = minD² / (2mσ²).
    * ``"rm_anova"`` — the same effect in a repeated-measures (system × query) ANOVA,
      degrees of freedom (m − 1, (m − 1)(n − 1)): pingouin's ``power_rm_anova`` with the
      same f² and ``corr=0`` (σ² is already the residual variance).
    * ``"ci"`` — the interval-width design: smallest n whose *expected* 100(1 − alpha)%
      confidence interval width for a paired difference,
      2 t_{1−α/2}(n − 1) · c_n σ_d / √n with c_n = √(2/(n − 1)) Γ(n/2)/Γ((n − 1)/2)
      (E[s] = c_n σ), is at most ``min_difference``.

    Parameters
    ----------
    scores
        Scores frame (``system, query, measure, value`` + grouping columns): each group a
        complete system × query matrix (an incomplete one is refused, as by every meta
        function), at least 2 × 2 when ``variance`` is None.
    method
        One of ``"ttest"`` (default), ``"anova"``, ``"rm_anova"``, ``"ci"``, or a list.
    min_difference
        minD (or the interval-width cap for ``"ci"``), > 0; a list gives one row each.
    alpha, power
        Significance level (two-sided) and target power (1 − β), both in (0, 1).
    variance
        ``"one-way"`` (default, Sakai 2016), ``"two-way"`` (Sakai 2014), or σ² itself (a
        number ≥ 0).
    n_systems
        m for the ANOVA methods (default: the systems of the group).

    Returns
    -------
    DataFrame
        The grouping keys (``measure``, ...), ``method``, ``min_difference``, ``n_queries``
        (float64: an integer, or inf when no finite n works, e.g. σ² > 0 with... minD = 0
        is rejected, so inf only when the search bound is passed), ``variance`` (the σ² used),
        ``variance_estimate`` (str: ``"one-way"``, ``"two-way"`` or ``"given"``),
        ``variance_one_way``, ``variance_two_way`` (both estimates of the group; NaN when the
        group has fewer than 2 systems or queries), ``n_systems`` (m), ``alpha``, ``power``
        (the target), ``achieved_power`` (power at ``n_queries``; NaN for ``"ci"``),
        ``expected_ci_width`` (for ``"ci"``; NaN otherwise). Rows by group, method in the
        order given, then min_difference.

    Notes
    -----
    The powers are exact (noncentral t and F). Sakai's Excel tools (samplesizeTTEST2,
    samplesizeANOVA2, samplesizeCI2) compute them with Nagata's (2003) normal approximations
    and ask for one or two more queries in about 5 % of designs; to reproduce their tables,
    pass their σ² as ``variance=`` and expect those designs to differ by that much.

    References
    ----------
    Sakai, T. (2016). Topic set size design. Information Retrieval Journal 19(3).
    Sakai, T. (2014). Topic set size design with variance estimates from two-way ANOVA. EVIA 2014.
    Sakai, T. (2014). Designing test collections for comparing many systems. CIKM 2014.
    Nagata, Y. (2003). How to Design the Sample Size. Asakura Shoten (in Japanese).
    """
    methods = check_option_list("method", method, SET_SIZE_METHODS)
    scalar = np.ndim(min_difference) == 0
    diffs = [min_difference] if scalar else list(min_difference)  # type: ignore[arg-type]
    if not diffs:
        raise OptionError("min_difference= is an empty list; pass at least one difference > 0")
    diffs = [check_real("min_difference", d, low=0.0, inclusive=False) for d in diffs]
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, inclusive=False)
    power = check_real("power", power, low=0.0, high=1.0, inclusive=False)
    if isinstance(variance, str):
        check_option("variance", variance, VARIANCE_ESTIMATES)
    else:
        variance = check_real("variance", variance, low=0.0)
    if n_systems is not None:
        n_systems = check_int("n_systems", n_systems, minimum=2)
    frame = meta_scores(scores, columns, function="query_set_size")
    rows = []
    for keys, matrix in group_matrices(frame):
        n_sys_group = matrix.shape[1]
        x = matrix.to_numpy(np.float64)
        one_way = two_way = np.nan
        if x.shape[0] >= 2 and x.shape[1] >= 2:
            one_way = float(x.var(axis=0, ddof=1).mean())  # pooled within-system variance
            two_way = float(anova_table(x)["ms_residual"])
        if isinstance(variance, str):
            if not np.isfinite(one_way):
                raise OptionError(
                    f"the scores{_where(keys)} hold {x.shape[1]} system(s) x {x.shape[0]} "
                    f"query(ies); the {variance} ANOVA variance needs at least 2 of each.\n"
                    "Evaluate more systems or queries, or pass variance= yourself (a number)."
                )
            var = one_way if variance == "one-way" else two_way
        else:
            var = float(variance)
        estimate = variance if isinstance(variance, str) else "given"
        m = n_systems if n_systems is not None else int(n_sys_group)
        sd_diff = math.sqrt(2.0 * var)
        for meth in methods:
            if meth in ("anova", "rm_anova") and m < 2:
                raise OptionError(f"method={meth!r} needs at least 2 systems; pass n_systems=")
            for d in diffs:
                achieved = width = np.nan
                if meth == "ci":
                    n = _smallest_n_ci(sd_diff, d, alpha)
                    if np.isfinite(n):
                        width = float(_expected_width(n, sd_diff, alpha))
                else:
                    if var == 0:
                        n = 2
                        achieved = 1.0
                    else:
                        effect = d / sd_diff if meth == "ttest" else d * d / (2.0 * m * var)
                        n = _smallest_n(meth, effect, m, alpha, power)
                        if np.isfinite(n):
                            achieved = _power(meth, effect, n, m, alpha)
                rows.append(
                    {
                        **keys,
                        "method": meth,
                        "min_difference": d,
                        "n_queries": float(n),
                        "variance": var,
                        "variance_estimate": estimate,
                        "variance_one_way": one_way,
                        "variance_two_way": two_way,
                        "n_systems": m,
                        "alpha": alpha,
                        "power": power,
                        "achieved_power": achieved,
                        "expected_ci_width": width,
                    }
                )
    out = pd.DataFrame(rows)
    for c in (
        "min_difference",
        "n_queries",
        "variance",
        "variance_one_way",
        "variance_two_way",
        "alpha",
        "power",
        "achieved_power",
        "expected_ci_width",
    ):
        out[c] = out[c].astype(np.float64)
    out["n_systems"] = out["n_systems"].astype(np.int64)
    return out


def _where(keys: dict) -> str:
    return "" if not keys else " (" + ", ".join(f"{k}={v!r}" for k, v in keys.items()) + ")"
