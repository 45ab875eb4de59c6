"""Discriminative power (Sakai 2006), ASL curves, and conflicts between two measures."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns
from pdireval.docstrings import shared_docs
from pdireval.errors import OptionError, check_real
from pdireval.meta.inputs import meta_scores
from pdireval.meta.significance import check_common, compare, iter_tests
from pdireval.types import Columns, RngLike, TestMethod

__all__ = ["discriminative_power", "asl_curve", "decision_conflicts"]


def _check_alpha(alpha):
    check_real("alpha", alpha, low=0, high=1, inclusive=False)


COMPARE_COLUMNS = ("system_a", "system_b", "mean_diff", "p_value", "method")


def is_compare_result(frame) -> bool:
    """True when ``frame`` looks like a :func:`pdireval.compare` result (its pair columns)."""
    return isinstance(frame, pd.DataFrame) and all(c in frame.columns for c in COMPARE_COLUMNS)


def _tests(scores, method, n_resamples, rng, progress, *, what, columns=None):
    """A compare() result: the one given (no test rerun) or compare(scores, ...)."""
    if is_compare_result(scores):
        given = [
            name
            for name, v in (("method", method), ("n_resamples", n_resamples), ("rng", rng))
            if v is not None
        ]
        if given:
            raise OptionError(
                f"{what} got a compare() result, whose tests are already run: {', '.join(given)}= "
                "cannot apply to it. Drop them, or pass the scores frame instead."
            )
        if scores["method"].nunique() > 1:
            raise OptionError(
                f"{what} got a compare() result mixing several methods: pass one "
                "compare() call's result."
            )
        return scores
    return compare(
        scores,
        method=method or "bootstrap",
        n_resamples=1000 if n_resamples is None else n_resamples,
        rng=rng,
        progress=progress,
        columns=columns,
    )


@shared_docs
def discriminative_power(
    scores: pd.DataFrame,
    *,
    method: TestMethod | None = None,
    alpha: float = 0.05,
    n_resamples: int | None = None,
    rng: RngLike = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Discriminative power of each measure: how many system pairs a test separates.

    For every group (measure and any extra grouping column) every unordered pair of systems
    is tested with ``method`` (see :func:`pdireval.compare`; the default is Sakai's
    studentised paired bootstrap with one index matrix shared by all pairs). A pair is significant
    iff its p-value (ASL) is strictly below ``alpha``.

    Sakai's *estimated performance difference required*: for each pair, sort the
    bootstrap replicates by t*_b descending and take the one at 1-based position ⌈α·B⌉ (among
    replicates sharing that t*, the smallest b); its |w̄*_b|. The estimate is the maximum over
    all pairs. For ``method="tukey"`` the analogue is reported: the HSD critical value, the
    ⌈α·B⌉-th largest hsd_b (a mean difference at least this large is significant).

    Parameters
    ----------
    scores
        Scores frame, or a :func:`pdireval.compare` result to reuse (all pairs; no test is
        rerun, ``method``, ``n_resamples`` and ``rng`` must then be left out; its
        ``required_diff`` is the largest of compare's per-pair ``required_diff`` when compare
        was called with the same ``alpha``, NaN otherwise: it needs the bootstrap replicates).
    method
        A method of :func:`pdireval.compare` (default ``"bootstrap"``).
    alpha
        Significance level.
    {n_resamples}
    {rng}
    {progress}
    {columns}

    Returns
    -------
    DataFrame
        One row per group: the grouping keys (``measure``, extras), ``method``, ``n_pairs``
        (m(m − 1)/2), ``n_significant`` (pairs with p < alpha), ``power``
        (n_significant / n_pairs), ``required_diff`` (Sakai's estimate for ``"bootstrap"``, the
        HSD critical value for ``"tukey"``, NaN for the other methods and for a compare()
        result made without ``required_diff_alpha=`` or with another level).

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    """
    _check_alpha(alpha)
    if is_compare_result(scores):
        return _power_of_tests(
            _tests(scores, method, n_resamples, rng, progress, what="discriminative_power"), alpha
        )
    method = method or "bootstrap"
    n_resamples = 1000 if n_resamples is None else n_resamples
    frame = meta_scores(scores, columns, function="discriminative_power")
    method = check_common(method, 0.95)
    keys_cols = group_columns(frame)
    rows = []
    want_required = alpha if method in ("bootstrap", "tukey") else None
    for keys, _systems, _n, _means, pi, _pj, cols in iter_tests(
        frame, method, n_resamples=n_resamples, rng=rng, alpha=want_required, progress=progress
    ):
        p = cols["p_value"]
        n_pairs = len(pi)
        n_sig = int(np.sum(p < alpha))
        req = cols["required"]
        required = (
            float(np.max(req))
            if (want_required is not None and n_pairs and not np.isnan(req).all())
            else np.nan
        )
        row = {k: keys[k] for k in keys_cols}
        row.update(
            method=method,
            n_pairs=n_pairs,
            n_significant=n_sig,
            power=n_sig / n_pairs if n_pairs else np.nan,
            required_diff=required,
        )
        rows.append(row)
    out = pd.DataFrame(
        rows, columns=[*keys_cols, "method", "n_pairs", "n_significant", "power", "required_diff"]
    )
    out["n_pairs"] = out["n_pairs"].astype(np.int64)
    out["n_significant"] = out["n_significant"].astype(np.int64)
    out["power"] = out["power"].astype(np.float64)
    out["required_diff"] = out["required_diff"].astype(np.float64)
    return out


def _required_of(group: pd.DataFrame, alpha: float) -> float:
    """Sakai's required difference of one group of a compare() result: the largest per-pair
    ``required_diff`` when compare() computed it at this ``alpha`` (else NaN)."""
    if (
        "required_diff" not in group.columns
        or "required_alpha" not in group.columns
        or not len(group)
    ):
        return np.nan
    at = group["required_alpha"].to_numpy(dtype=np.float64)
    req = group["required_diff"].to_numpy(dtype=np.float64)
    if not (at == alpha).all() or np.isnan(req).all():
        return np.nan
    return float(np.nanmax(req))


def _power_of_tests(res: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """discriminative_power's frame from a compare() result (required_diff: from compare's
    ``required_diff`` when it was computed at ``alpha``, else NaN)."""
    keys = list(res.columns[: list(res.columns).index("system_a")])
    rows = []
    for _, group in _groups_in_order(res, keys):
        n_pairs = len(group)
        n_sig = int((group["p_value"].to_numpy() < alpha).sum())
        row = {k: group[k].iloc[0] for k in keys}
        row.update(
            method=str(group["method"].iloc[0]),
            n_pairs=n_pairs,
            n_significant=n_sig,
            power=n_sig / n_pairs if n_pairs else np.nan,
            required_diff=_required_of(group, alpha),
        )
        rows.append(row)
    out = pd.DataFrame(
        rows, columns=[*keys, "method", "n_pairs", "n_significant", "power", "required_diff"]
    )
    return out.astype(
        {
            "n_pairs": np.int64,
            "n_significant": np.int64,
            "power": np.float64,
            "required_diff": np.float64,
        }
    )


@shared_docs
def asl_curve(
    scores: pd.DataFrame,
    *,
    method: TestMethod | None = None,
    n_resamples: int | None = None,
    rng: RngLike = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    """ASL curve data: every pair's p-value (ASL), sorted increasingly, per measure (Sakai 2006).

    Plotting ``p_value`` against ``rank`` for several measures gives Sakai's ASL curves: the
    lower and flatter a measure's curve, the more pairs it separates at any significance level
    (see :func:`pdireval.plot.asl_curves`). Same tests and draws as
    :func:`discriminative_power` with the same arguments.

    Parameters
    ----------
    scores : DataFrame
        Scores frame (``system, query, measure, value`` + grouping keys), a complete query ×
        system matrix per group; or a :func:`pdireval.compare` result to reuse (no test is
        rerun; ``method``, ``n_resamples`` and ``rng`` must then be left out).
    method : str
        The paired test, as in :func:`pdireval.compare` (default ``"bootstrap"``).
    {n_resamples}
    {rng}
    {progress}
    {columns}

    Returns
    -------
    DataFrame
        One row per (group, pair): grouping keys, ``method``, ``rank`` (1-based position in
        increasing p-value order; ties keep system-pair order), ``system_a``, ``system_b``,
        ``p_value``.

    References
    ----------
    Sakai, T. (2006). Evaluating Evaluation Metrics Based on the Bootstrap. SIGIR 2006.
    """
    res = _tests(scores, method, n_resamples, rng, progress, what="asl_curve", columns=columns)
    frame_keys = [c for c in res.columns[: list(res.columns).index("system_a")]]
    parts = []
    for _, group in _groups_in_order(res, frame_keys):
        g = group.iloc[np.argsort(group["p_value"].to_numpy(), kind="stable")].copy()
        g["rank"] = np.arange(1, len(g) + 1, dtype=np.int64)
        parts.append(g[[*frame_keys, "method", "rank", "system_a", "system_b", "p_value"]])
    if not parts:  # fewer than two systems: no pair, an empty table with the same columns
        return res.reindex(
            columns=[*frame_keys, "method", "rank", "system_a", "system_b", "p_value"]
        ).astype({"rank": np.int64})
    return pd.concat(parts, ignore_index=True)


def _groups_in_order(res, keys):
    """Groups of a compare() result in the order they appear."""
    if not keys:
        yield (), res
        return
    codes = res.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    for code in pd.unique(codes):
        yield code, res[codes == code]


@shared_docs
def decision_conflicts(
    scores: pd.DataFrame,
    *,
    method: TestMethod | None = None,
    alpha: float = 0.05,
    n_resamples: int | None = None,
    rng: RngLike = None,
    progress: bool | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    """Pairs of systems on which two measures reach different significance decisions.

    Every pair of systems is tested under every measure (:func:`pdireval.compare`); then, for
    every unordered pair of measures (order of first appearance; per value of any extra
    grouping column), a system pair is a *conflict* iff it is significant (p < alpha) under one
    measure and not under the other (Karmaker & Feng 2022, Tables 7 and 17). Pairs
    significant under both measures but in opposite directions are counted separately
    (``n_opposite``; Sakai's stricter notion of a conflict).

    Parameters
    ----------
    scores : DataFrame
        Scores frame with at least two measures, a complete query × system matrix per group;
        or a :func:`pdireval.compare` result to reuse (no test is rerun; ``method``,
        ``n_resamples`` and ``rng`` must then be left out).
    method : str
        The paired test, as in :func:`pdireval.compare` (default ``"bootstrap"``).
    alpha : float
        Significance level of a decision.
    {n_resamples}
    {rng}
    {progress}
    {columns}

    Returns
    -------
    DataFrame
        ``measure_a``, ``measure_b``, the other grouping keys, ``method``, ``n_pairs``,
        ``n_significant_a``, ``n_significant_b``, ``n_both`` (significant under both),
        ``n_conflicts`` (decisions differ), ``n_opposite`` (both significant, opposite signs of
        the mean difference), ``conflict_rate`` (n_conflicts / n_pairs).

    References
    ----------
    Karmaker, S. K., & Feng, D. (2022). Joint Upper & Lower Bound Normalization for IR Evaluation.
    Preprint. Sakai, T. (2006). Evaluating Evaluation Metrics Based on the Bootstrap. SIGIR 2006.
    """
    _check_alpha(alpha)
    res = _tests(
        scores, method, n_resamples, rng, progress, what="decision_conflicts", columns=columns
    )
    method_name = str(res["method"].iloc[0]) if len(res) else (method or "bootstrap")
    extra = [c for c in res.columns[: list(res.columns).index("system_a")] if c != "measure"]
    rows = []
    for _key, group in _groups_in_order(res, extra):
        measures = list(pd.unique(group["measure"]))
        by = {m: group[group["measure"] == m].set_index(["system_a", "system_b"]) for m in measures}
        key_values = {c: group[c].iloc[0] for c in extra}
        for i, ma in enumerate(measures):
            for mb in measures[i + 1 :]:
                a, b = by[ma].align(by[mb], join="inner", axis=0)
                sa = a["p_value"].to_numpy() < alpha
                sb = b["p_value"].to_numpy() < alpha
                opposite = (
                    sa
                    & sb
                    & (np.sign(a["mean_diff"].to_numpy()) != np.sign(b["mean_diff"].to_numpy()))
                )
                n_pairs = len(a)
                row = {
                    "measure_a": ma,
                    "measure_b": mb,
                    **key_values,
                    "method": method_name,
                    "n_pairs": n_pairs,
                    "n_significant_a": int(sa.sum()),
                    "n_significant_b": int(sb.sum()),
                    "n_both": int((sa & sb).sum()),
                    "n_conflicts": int((sa != sb).sum()),
                    "n_opposite": int(opposite.sum()),
                    "conflict_rate": (sa != sb).sum() / n_pairs if n_pairs else np.nan,
                }
                rows.append(row)
    cols = [
        "measure_a",
        "measure_b",
        *extra,
        "method",
        "n_pairs",
        "n_significant_a",
        "n_significant_b",
        "n_both",
        "n_conflicts",
        "n_opposite",
        "conflict_rate",
    ]
    out = pd.DataFrame(rows, columns=cols)
    for c in cols[len(extra) + 3 : -1]:
        out[c] = out[c].astype(np.int64)
    out["conflict_rate"] = out["conflict_rate"].astype(np.float64)
    return out
