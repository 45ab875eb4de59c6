r"""Does an LLM judge favour systems built on its own model family? The judge's score minus the
humans' score, for the systems of the judge's family against the others: a paired interval over
queries and a permutation test over the family labels."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import check_same_grouping, describe_group, group_columns, group_matrices
from pdireval.docstrings import shared_docs
from pdireval.errors import (
    SchemaError,
    check_int,
    check_option,
    check_real,
    check_rng,
    group_generator,
    show_rows,
)
from pdireval.meta.inputs import meta_scores
from pdireval.stats.intervals import t_interval

if TYPE_CHECKING:
    from pdireval.types import Alternative, Columns, RngLike

__all__ = ["self_preference"]

ALTERNATIVES = ("two-sided", "greater", "less")  #: ``alternative=`` values


def _family_table(families) -> pd.Series:
    """system -> family from a mapping, a Series or a frame with ``system`` and ``family``."""
    if isinstance(families, pd.DataFrame):
        missing = [c for c in ("system", "family") if c not in families.columns]
        if missing:
            raise SchemaError(
                f"the families frame needs the columns 'system' and 'family'; it lacks {missing} "
                f"(columns: {list(families.columns)})."
            )
        table = families[["system", "family"]].drop_duplicates()
        twice = table[table["system"].duplicated(keep=False)]
        if len(twice):
            raise SchemaError(
                f"the families frame gives {twice['system'].nunique()} systems several "
                f"families:{show_rows(twice)}\nFix: one family per system."
            )
        series = table.set_index("system")["family"]
    elif isinstance(families, pd.Series):
        series = families
    elif isinstance(families, Mapping):
        series = pd.Series(dict(families), dtype=object)
    else:
        raise TypeError(
            "families= must be a mapping {system: family}, a Series indexed by system or a "
            f"frame with columns 'system' and 'family'; got {type(families).__name__}."
        )
    series = series.copy()
    series.index = series.index.astype(str)
    return series.astype(str)


def _permutation_stats(bias: np.ndarray, m: int, n_resamples: int, gen) -> tuple[np.ndarray, bool]:
    """The statistic under every (or ``n_resamples`` random) relabellings of m systems as the
    judge's family: mean bias of the relabelled family minus that of the others."""
    s = len(bias)
    total = bias.sum()
    if comb(s, m) <= n_resamples:
        chosen = np.fromiter(
            (i for c in combinations(range(s), m) for i in c), dtype=np.int64
        ).reshape(-1, m)
        exact = True
    else:
        chosen = np.argsort(gen.random((n_resamples, s)), axis=1)[:, :m]
        exact = False
    inside = bias[chosen].sum(axis=1)
    return inside / m - (total - inside) / (s - m), exact


def _p_value(observed: float, null: np.ndarray, exact: bool, alternative: str) -> float:
    tol = 1e-12 * max(1.0, abs(observed))
    if alternative == "two-sided":
        extreme = np.abs(null) >= abs(observed) - tol
    elif alternative == "greater":
        extreme = null >= observed - tol
    else:
        extreme = null <= observed + tol
    count = int(extreme.sum())
    if exact:  # the observed labelling is one of the enumerated ones
        return count / len(null)
    return (1 + count) / (1 + len(null))


@shared_docs
def self_preference(
    llm: pd.DataFrame,
    human: pd.DataFrame,
    families: Mapping[str, str] | pd.Series | pd.DataFrame,
    judge_family: str,
    *,
    alternative: Alternative = "two-sided",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Does the LLM judge favour the systems of its own model family (Clarke & Dietz 2024)?

    On each query q both frames share and each system s, the judge's bias is
    d_{s,q} = llm_{s,q} − human_{s,q}. With F the systems of ``judge_family`` (m of the S
    systems), the per-query contrast is

    .. math:: \delta_q = \frac{1}{m}\sum_{s\in F} d_{s,q}
        - \frac{1}{S-m}\sum_{s\notin F} d_{s,q},

    and the estimate is its mean over the n queries: how much more the judge inflates (or less
    it deflates) its own family's scores than the others'. The interval is the paired t interval
    of the mean of δ_q (n − 1 degrees of freedom: families compared on the same queries). The
    p-value is a permutation test of the family labels (the null: the judge's bias does not
    depend on the family): the statistic recomputed with m systems drawn as the family, over all
    C(S, m) relabellings when there are at most ``n_resamples`` of them (exact), else over
    ``n_resamples`` random ones, p = (1 + #{extreme}) / (1 + B) (Phipson & Smyth 2010).

    Parameters
    ----------
    llm
        Scores frame under the judge's labels (``system, query, measure, value`` + grouping
        columns).
    human
        Scores frame under human labels, the same systems and measures; the queries both frames
        hold are compared (complete system × query matrices there).
    families
        Each system's model family: a mapping ``{system: family}``, a Series indexed by system,
        or a frame with columns ``system`` and ``family``. Every system of the scores needs one.
    judge_family
        The judge's family; some but not all systems must belong to it.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (the judge favours its family: estimate > 0)
        or ``"less"``; for the p-value.
    {n_resamples}
    {confidence_level}
    {rng}
    {columns}

    Returns
    -------
    DataFrame
        One row per group: the grouping keys (``measure``, ...), ``judge_family``,
        ``estimate`` (mean of δ_q), ``se``, ``ci_low``, ``ci_high``, ``p_value``,
        ``bias_family`` and ``bias_other`` (the mean of d over the family's systems and over the
        others), ``n_family`` (m), ``n_other`` (S − m), ``n_queries`` (n), ``n_permutations``
        (relabellings used), ``exact`` (all relabellings enumerated).

    Raises
    ------
    SchemaError
        ``judge_family`` is the family of no system or of every system; systems without a
        family; the frames share no query, or hold different measures or systems.

    References
    ----------
    Clarke, C. L. A., Dietz, L. (2024). LLM-based relevance assessment still can't replace human
    relevance assessment. arXiv:2412.17156.
    Phipson, B., Smyth, G. K. (2010). Permutation p-values should never be zero: calculating
    exact p-values when permutations are randomly drawn. Statistical Applications in Genetics
    and Molecular Biology 9.
    """
    check_option("alternative", alternative, ALTERNATIVES)
    n_resamples = check_int("n_resamples", n_resamples, minimum=1, maximum=10**6)
    level = check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    seed = check_rng(rng)
    table = _family_table(families)
    judge_family = str(judge_family)
    a = meta_scores(llm, columns, function="self_preference")
    b = meta_scores(human, columns, function="self_preference")
    check_same_grouping(group_columns(a), group_columns(b))
    human_ms = {tuple(k.items()): m for k, m in group_matrices(b, what="human scores")}
    rows = []
    for keys, llm_m in group_matrices(a, what="llm scores"):
        where = describe_group(keys)
        human_m = human_ms.get(tuple(keys.items()))
        if human_m is None:
            raise SchemaError(
                f"human holds no scores of the {where}: give both frames the same measures."
            )
        if set(human_m.columns) != set(llm_m.columns):
            only = sorted(set(human_m.columns) ^ set(llm_m.columns))
            raise SchemaError(
                f"llm and human hold different systems in the {where} (e.g. {only[:3]}); keep "
                "the systems both frames share."
            )
        shared = llm_m.index.intersection(human_m.index)
        if len(shared) == 0:
            raise SchemaError(f"llm and human share no query in the {where}; check the query ids.")
        systems = llm_m.columns
        fam = table.reindex(systems.astype(str))
        if fam.isna().any():
            lacking = list(systems[fam.isna().to_numpy()])
            raise SchemaError(
                f"{len(lacking)} systems have no family in families= (e.g. {lacking[:5]}); give "
                "every system of the scores a family."
            )
        own = (fam == judge_family).to_numpy()
        m = int(own.sum())
        if m == 0 or m == len(systems):
            present = sorted(set(fam))
            what = "no system" if m == 0 else "every system"
            raise SchemaError(
                f"judge_family={judge_family!r} is the family of {what} in the {where} "
                f"(families: {present[:10]}); the check compares the judge's family with the "
                "others, so it needs systems of both."
            )
        d = llm_m.loc[shared, systems].to_numpy() - human_m.loc[shared, systems].to_numpy()
        delta = d[:, own].mean(axis=1) - d[:, ~own].mean(axis=1)
        n = len(delta)
        estimate = float(delta.mean())
        sd = float(delta.std(ddof=1)) if n > 1 else np.nan
        se, low, high = t_interval(estimate, sd, n, level)
        observed_bias = d.mean(axis=0)
        gen = group_generator(seed, *keys.values())
        null, exact = _permutation_stats(observed_bias, m, n_resamples, gen)
        observed = float(observed_bias[own].mean() - observed_bias[~own].mean())
        rows.append(
            {
                **keys,
                "judge_family": judge_family,
                "estimate": estimate,
                "se": float(se),
                "ci_low": float(low),
                "ci_high": float(high),
                "p_value": _p_value(observed, null, exact, alternative),
                "bias_family": float(d[:, own].mean()),
                "bias_other": float(d[:, ~own].mean()),
                "n_family": m,
                "n_other": len(systems) - m,
                "n_queries": n,
                "n_permutations": len(null),
                "exact": exact,
            }
        )
    return pd.DataFrame(rows)
