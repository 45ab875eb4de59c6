"""Rank correlation between the system rankings induced by measures (or by two scores frames).

Array level: :func:`kendall_tau` (τ_a, τ_b, Goodman–Kruskal γ), :func:`tau_ap` (Yilmaz, Aslam &
Robertson 2008, and its symmetric version), :func:`rank_correlation` (any method by name,
with p-value). Frame level: :func:`correlate`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import SchemaError, show_rows
from ..schema import canonical_scores, group_columns
from . import _adapters
from ._common import ParameterError, check_choice

__all__ = ["kendall_tau", "tau_ap", "rank_correlation", "correlate", "CORRELATION_METHODS"]

CORRELATION_METHODS = ("kendall_a", "kendall_b", "gamma", "spearman", "pearson", "tau_ap", "tau_ap_sym")


def _vectors(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ParameterError(f"x and y must be 1-D of the same length, got shapes {x.shape} and {y.shape}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ParameterError("x and y must not hold NaN: drop the objects without a value first")
    return x, y


def _pair_counts(x, y):
    """(concordant, discordant, tied in x, tied in y, n0) over the unordered pairs."""
    n = len(x)
    i, j = np.triu_indices(n, 1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(y[i] - y[j])
    prod = sx * sy
    return (int((prod > 0).sum()), int((prod < 0).sum()), int((sx == 0).sum()),
            int((sy == 0).sum()), len(i))


def kendall_tau(x, y, variant: str = "b") -> float:
    r"""Kendall's rank correlation between two score vectors over the same objects.

    Over the n0 = n(n − 1)/2 unordered pairs: c concordant, d discordant, n1 tied in x, n2
    tied in y (methods-spec §5.1):

    * ``"a"``: τ_a = (c − d) / n0;
    * ``"b"`` (default, scipy's ``kendalltau``): τ_b = (c − d) / √((n0 − n1)(n0 − n2));
    * ``"gamma"``: Goodman–Kruskal γ = (c − d) / (c + d) — the statistic seed 001 calls τ.

    Without ties the three agree. Undefined (n < 2 or a zero denominator) gives NaN.
    """
    check_choice("variant", variant, ("a", "b", "gamma"))
    x, y = _vectors(x, y)
    if len(x) < 2:
        return float("nan")
    c, d, n1, n2, n0 = _pair_counts(x, y)
    if variant == "a":
        den = float(n0)
    elif variant == "b":
        den = float(np.sqrt(float(n0 - n1) * float(n0 - n2)))
    else:
        den = float(c + d)
    return float((c - d) / den) if den > 0 else float("nan")


def tau_ap(x, y, *, symmetric: bool = False) -> float:
    r"""AP correlation τ_AP of ranking x against the "true" ranking y (Yilmaz et al. 2008).

    Order the items by x descending; for the item at position i = 2..N, C(i) is the number of
    items above it (in x's order) that y also ranks above it. Then (methods-spec §5.6)

    .. math:: \tau_{AP}(x \mid y) = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1 .

    Top-weighted: swapping the top two of five items gives 0.5, the bottom two 0.875 (Kendall's
    τ: 0.8 for both). ``symmetric=True`` returns (τ_AP(x|y) + τ_AP(y|x)) / 2. Ties in x or y
    make τ_AP undefined: a ParameterError (ValueError). N < 2 gives NaN.
    """
    x, y = _vectors(x, y)
    n = len(x)
    if n < 2:
        return float("nan")
    if len(np.unique(x)) < n or len(np.unique(y)) < n:
        raise ParameterError(
            "tau_ap is undefined with tied scores (Yilmaz et al. 2008 assume total orders); "
            "break the ties or use method='kendall_b'"
        )
    if symmetric:
        return (tau_ap(x, y) + tau_ap(y, x)) / 2.0
    yo = y[np.argsort(-x, kind="stable")]
    above = np.tril(yo[None, :] > yo[:, None], k=-1)  # [i, j]: j above i in x and in y
    c = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


def rank_correlation(x, y, method: str = "kendall_b") -> tuple[float, float]:
    """(statistic, p_value) of one correlation method between two score vectors.

    p-values (two-sided, H0: no association) come from scipy for ``kendall_b`` (which
    equals ``kendall_a`` without ties, so τ_a gets that p-value when neither vector has
    ties, NaN otherwise), ``spearman`` and ``pearson``; γ and τ_AP have none (NaN).
    """
    check_choice("method", method, CORRELATION_METHODS)
    x, y = _vectors(x, y)
    if method in ("kendall_a", "kendall_b", "gamma"):
        stat = kendall_tau(x, y, variant=method.removeprefix("kendall_"))
        p = float("nan")
        untied = len(np.unique(x)) == len(x) and len(np.unique(y)) == len(y)
        if len(x) >= 2 and (method == "kendall_b" or (method == "kendall_a" and untied)):
            if not np.isnan(stat):
                p = _adapters.kendalltau_b(x, y)[1]
        return stat, p
    if method == "spearman":
        if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            return float("nan"), float("nan")
        return _adapters.spearman(x, y)
    if method == "pearson":
        return _adapters.pearson(x, y)
    return tau_ap(x, y, symmetric=method == "tau_ap_sym"), float("nan")


def _system_means(frame: pd.DataFrame, extra: list[str], what: str) -> dict:
    """{extra-key tuple: DataFrame system x measure of means (first-appearance measure order)}."""
    out = {}
    measure_order = list(pd.unique(frame["measure"]))
    grouped = frame.groupby(extra, sort=True, dropna=False) if extra else [((), frame)]
    for key, group in grouped:
        key = key if isinstance(key, tuple) else (key,)
        table = group.pivot_table(index="system", columns="measure", values="value", aggfunc="mean",
                                  dropna=False)
        table = table[[m for m in measure_order if m in table.columns]].sort_index()
        missing = table.isna()
        if missing.to_numpy().any():
            cells = missing.stack()
            cells = cells[cells].reset_index()[["system", "measure"]]
            raise SchemaError(
                f"the {what} do not give every system a mean for every measure: {len(cells)} "
                f"(system, measure) pair(s) have no value:{show_rows(cells)}\n"
                "Rank correlation compares the same systems under each measure: drop those "
                "systems, or evaluate them with every measure.",
                failure_cases=cells,
            )
        out[key] = table
    return out


def correlate(
    scores: pd.DataFrame,
    other: pd.DataFrame | None = None,
    *,
    method: str | list[str] = "kendall_b",
) -> pd.DataFrame:
    r"""Rank correlation between the system rankings induced by measures.

    Systems are ranked by their mean over queries (NaN values skipped) under each measure.
    Without ``other``: one row per unordered pair of measures of ``scores`` (in order of first
    appearance) and per value of the other grouping columns. With ``other`` (a second scores
    frame, e.g. another query set or collection): one row per (measure of ``scores``, measure
    of ``other``) — the same measure in both gives the rank stability between the two
    experiments; extra grouping columns present in both frames are matched.

    Methods (one name or a list): ``"kendall_b"`` (default), ``"kendall_a"``, ``"gamma"``
    (seed 001's τ), ``"spearman"``, ``"pearson"``, ``"tau_ap"`` (τ_AP of measure_a's ranking
    against measure_b's as the truth) and ``"tau_ap_sym"``; see :func:`kendall_tau`,
    :func:`tau_ap`, :func:`rank_correlation`.

    Returns
    -------
    DataFrame
        ``measure_a``, ``measure_b``, the other grouping keys, ``method``, ``statistic``,
        ``p_value`` (two-sided; NaN where the method has none), ``n_systems``. Rows ordered by
        group, measure pair, then method in the order given.

    References
    ----------
    Kendall, M. G. (1938). A new measure of rank correlation. Biometrika.
    Yilmaz, E., Aslam, J. A., Robertson, S. (2008). A new rank correlation coefficient for
    information retrieval. SIGIR.
    """
    methods = [method] if isinstance(method, str) else list(method)
    if not methods:
        raise ParameterError("method= is an empty list; pass at least one correlation method")
    for m in methods:
        check_choice("method", m, CORRELATION_METHODS)
    frame = canonical_scores(scores)
    extra = [c for c in group_columns(frame) if c != "measure"]
    left = _system_means(frame, extra, "scores")
    if other is None:
        right = None
    else:
        frame_b = canonical_scores(other)
        extra_b = [c for c in group_columns(frame_b) if c != "measure"]
        if sorted(extra_b) != sorted(extra):
            raise SchemaError(
                f"scores and other have different grouping columns ({extra} vs {extra_b}); "
                "drop or add columns so both frames have the same ones"
            )
        right = _system_means(frame_b, extra, "other scores")
    rows = []
    for key, table in left.items():
        if right is None:
            meas = list(table.columns)
            combos = [(a, b) for i, a in enumerate(meas) for b in meas[i + 1:]]
            table_b = table
        else:
            if key not in right:
                continue
            table_b = right[key]
            if set(table.index) != set(table_b.index):
                only = sorted(set(table.index) ^ set(table_b.index))
                raise SchemaError(
                    f"scores and other rank different systems ({len(only)} only in one of them, "
                    f"e.g. {only[:3]}); keep the systems they share in both frames"
                )
            table_b = table_b.loc[table.index]
            combos = [(a, b) for a in table.columns for b in table_b.columns]
        for a, b in combos:
            xa = table[a].to_numpy(dtype=np.float64)
            xb = table_b[b].to_numpy(dtype=np.float64)
            for m in methods:
                stat, p = rank_correlation(xa, xb, m)
                row = {"measure_a": a, "measure_b": b}
                row.update(dict(zip(extra, key)))
                row.update(method=m, statistic=float(stat), p_value=float(p), n_systems=len(xa))
                rows.append(row)
    columns = ["measure_a", "measure_b", *extra, "method", "statistic", "p_value", "n_systems"]
    out = pd.DataFrame(rows, columns=columns)
    out["n_systems"] = out["n_systems"].astype(np.int64)
    out["statistic"] = out["statistic"].astype(np.float64)
    out["p_value"] = out["p_value"].astype(np.float64)
    return out
