"""Confidence intervals of per-system means for :func:`pdireval.aggregate` (one job: the columns
``se, ci_low, ci_high`` of its table); the statistics are in :mod:`pdireval.stats.intervals`."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import pandas as pd

from pdireval.core.groups import describe_group, group_matrices
from pdireval.errors import (
    OptionError,
    check_int,
    check_option,
    check_real,
    check_rng,
    group_generator,
    warn_caller,
)

if TYPE_CHECKING:
    from pdireval.types import IntervalMethod

__all__ = [
    "check_interval_options",
    "add_intervals",
    "warn_no_interval",
    "MAX_RESAMPLES",
    "DEFAULT_RESAMPLES",
]

#: ``method=`` values of the intervals
METHODS = ("t", "bootstrap", "anova")
#: ceiling on ``n_resamples`` (a B × n count matrix is drawn per group), as compare()'s
MAX_RESAMPLES = 10**6
#: bootstrap resamples when ``n_resamples`` is None
DEFAULT_RESAMPLES = 1000


def check_interval_options(
    confidence_level: float | None,
    method: str | None,
    bootstrap_interval: str,
    n_resamples: int | None,
    wide: bool,
) -> tuple[float, IntervalMethod]:
    """Validate the interval options of aggregate(); return (confidence_level, method)."""
    from pdireval.stats.intervals import BOOTSTRAP_INTERVALS

    level = (
        0.95
        if confidence_level is None
        else check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    )
    method = "t" if method is None else method
    check_option("method", method, METHODS)
    check_option("bootstrap_interval", bootstrap_interval, BOOTSTRAP_INTERVALS)
    if n_resamples is not None:
        check_int("n_resamples", n_resamples, minimum=2, maximum=MAX_RESAMPLES)
    if wide:
        raise OptionError(
            "wide=True shows one mean per cell and has no room for intervals; drop wide=True "
            "to get se, ci_low and ci_high, or drop confidence_level= / method= for the wide view."
        )
    return level, cast("IntervalMethod", method)


def warn_no_interval(cases: list[str], what: str, method: str):
    """The one warning for intervals that cannot be computed (aggregate, compare, correlate,
    leaderboard_agreement): a :class:`pdireval.PdirevalWarning` at the user's line naming the
    cases (the first five) whose ``ci_low`` and ``ci_high`` are NaN; nothing when ``cases``
    is empty."""
    if not cases:
        return
    shown = "; ".join(cases[:5]) + (f"; ... and {len(cases) - 5} more" if len(cases) > 5 else "")
    warn_caller(
        f"{len(cases)} {what} have no {method} interval (ci_low and ci_high are NaN): "
        f"{shown}. An interval needs variation across queries; add queries or leave these "
        "cases out."
    )


def _warn(cases: list[str], method: str):
    what = (
        "groups whose residual variance is 0"
        if method == "anova"
        else "(group, system) cases with fewer than two values or all values equal"
    )
    warn_no_interval(cases, what, method)


def add_intervals(
    out: pd.DataFrame,
    frame: pd.DataFrame,
    keys: list[str],
    *,
    confidence_level: float,
    method: str,
    bootstrap_interval: str,
    n_resamples,
    rng,
) -> pd.DataFrame:
    """``out`` (aggregate's table) with ``se, ci_low, ci_high, ci_method, confidence_level``."""
    from pdireval.stats import intervals

    out = out.copy()
    if method == "t":
        se, low, high = intervals.t_interval(
            out["mean"], out["std"], out["n_queries"], confidence_level
        )
        bad = np.isnan(low)
        cases = [
            f"system {s!r} of {describe_group({k: r[k] for k in keys})}"
            for s, r in zip(out["system"][bad], out[keys][bad].to_dict("records"))
        ]
        _warn(cases, "t")
        out["se"], out["ci_low"], out["ci_high"] = se, low, high
        out["ci_method"] = "t"
    else:
        from pdireval.stats.paired_tests import bootstrap_counts

        n_res = DEFAULT_RESAMPLES if n_resamples is None else int(n_resamples)
        seed = check_rng(rng)
        parts, cases = [], []
        for group_keys, matrix in group_matrices(frame, by=keys, allow_nan=method == "bootstrap"):
            x = matrix.to_numpy(dtype=np.float64)
            if method == "anova":
                _, se, low, high = intervals.anova_interval(x, confidence_level)
                if np.isnan(low).any():
                    cases.append(describe_group(group_keys))
            else:
                counts = bootstrap_counts(group_generator(seed), x.shape[0], n_res)
                se, low, high = intervals.bootstrap_interval(
                    x, counts, confidence_level, bootstrap_interval
                )
                cases += [
                    f"system {s!r} of {describe_group(group_keys)}"
                    for s in matrix.columns[np.isnan(low)]
                ]
            part = pd.DataFrame(
                {"system": matrix.columns.astype(object), "se": se, "ci_low": low, "ci_high": high}
            )
            for k in keys:
                part[k] = group_keys[k]
            parts.append(part)
        _warn(cases, method)
        table = pd.concat(parts, ignore_index=True)
        for k in keys:  # merge on the same dtypes as out's keys
            table[k] = table[k].astype(out[k].dtype)
        out = out.merge(table, on=keys + ["system"], how="left", sort=False)
        out["ci_method"] = bootstrap_interval if method == "bootstrap" else "anova"
    out["confidence_level"] = float(confidence_level)
    for c in ("se", "ci_low", "ci_high"):
        out[c] = out[c].astype(np.float64)
    return out
