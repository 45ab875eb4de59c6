"""Stochastic systems: scores with a ``seed`` column (one ranking per system, seed, query).

The seed is a random effect nested in the system: seed 1 of system A has nothing to do
with seed 1 of system B. :func:`average_seeds` takes the mean over seeds per (system,
query); :func:`seed_shares` estimates, per system, how much of the variance of its
per-(query, seed) scores is the seed's (a one-way random-effects ANOVA of the seeds nested
in queries); :func:`nested_bootstrap` resamples queries, then each system's seeds within
each drawn query (the two-level bootstrap of Davison & Hinkley 1997, Section 3.8).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.core.chunking import chunks
from pdireval.core.groups import describe_group, group_columns, scores_groups
from pdireval.errors import SchemaError, show_rows

__all__ = [
    "SEEDS",
    "require_level_ids",
    "average_seeds",
    "seed_shares",
    "seed_arrays",
    "nested_bootstrap",
]

#: ``seeds=`` values of :func:`pdireval.aggregate` and :func:`pdireval.compare`
SEEDS = ("mean", "nested")


def require_seed(frame: pd.DataFrame, who: str) -> None:
    if "seed" not in frame.columns:
        raise SchemaError(
            f"{who}(seeds=...) needs a 'seed' column in the scores (it has "
            f"{list(frame.columns)!r}): evaluate a run with a 'seed' or 'trial' column "
            "(one ranking per system, seed and query), or drop seeds=."
        )
    require_level_ids(frame, "seed", f"{who}(seeds=...)")


def require_level_ids(frame: pd.DataFrame, column: str, who: str) -> None:
    """A facet column read as a random effect (``seed``, ``judge``) names a level on every
    row: a missing one would count as one more seed or judge (or as none), so it is a
    SchemaError showing the rows."""
    missing = frame[column].isna().to_numpy()
    if missing.any():
        rows = frame[missing]
        raise SchemaError(
            f"the scores column {column!r} has {int(missing.sum())} missing value(s):"
            f"{show_rows(rows)}\n{who} reads each row's {column} as one level of a random "
            f"effect: give those rows their {column}, or drop them.",
            failure_cases=rows,
        )


def average_seeds(frame: pd.DataFrame) -> pd.DataFrame:
    """The mean over seeds of every (system, query, group) of a canonical scores frame with
    a ``seed`` column (NaN values skipped), without the column; rows in first-seen order."""
    keys = [c for c in group_columns(frame) if c != "seed"]
    values = [c for c in ("value", "value_low", "value_high") if c in frame.columns]
    out = (
        frame.groupby(keys + ["system", "query"], sort=False, observed=True, dropna=False)[values]
        .mean()
        .reset_index()
    )
    return out[[c for c in frame.columns if c != "seed"]]


def seed_shares(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (group, system): ``n_seeds`` and ``share_seed``, the seed's share of the variance
    of the system's per-(query, seed) scores.

    One-way random-effects ANOVA of r seeds nested in each of n queries (Searle, Casella &
    McCulloch 1992, Section 3.6): MS_within = Σ_q Σ_k (x_qk − x̄_q)² / (n (r − 1)),
    MS_between = r Σ_q (x̄_q − x̄)² / (n − 1), σ²_seed = MS_within,
    σ²_query = max(0, (MS_between − MS_within) / r), share_seed = σ²_seed / (σ²_query +
    σ²_seed) (NaN when both are 0). Every query of a system needs the same number r ≥ 2 of
    seeds (non-NaN values).
    """
    keys = [c for c in group_columns(frame) if c != "seed"]
    data = frame[frame["value"].notna().to_numpy()]
    by_q = keys + ["system", "query"]
    grouped = data.groupby(by_q, sort=False, observed=True, dropna=False)["value"]
    q_mean = grouped.transform("mean").to_numpy()
    r = grouped.transform("size").to_numpy()
    within = np.square(data["value"].to_numpy() - q_mean)
    per_q = (
        data[by_q]
        .assign(_w=within, _r=r, _m=q_mean)
        .groupby(by_q, sort=False, observed=True, dropna=False)
        .agg(_w=("_w", "sum"), _r=("_r", "first"), _m=("_m", "first"))
        .reset_index()
    )
    by_s = keys + ["system"]
    sizes = per_q.groupby(by_s, sort=False, observed=True, dropna=False)["_r"].agg(["min", "max"])
    bad = sizes[(sizes["min"] != sizes["max"]) | (sizes["min"] < 2)]
    if len(bad):
        rows = bad.reset_index().rename(columns={"min": "fewest_seeds", "max": "most_seeds"})
        raise SchemaError(
            f"the seed's share of variance needs the same number (at least 2) of seeds on "
            f"every query of a system; {len(rows)} (group, system) do not:{show_rows(rows)}\n"
            "Evaluate every seed on every query (missing='zero' fills unanswered queries), or "
            "drop the incomplete seeds.",
            failure_cases=rows,
        )
    g = per_q.groupby(by_s, sort=False, observed=True, dropna=False)
    n = g["_m"].transform("size").to_numpy()
    grand = g["_m"].transform("mean").to_numpy()
    per_q = per_q.assign(_b=np.square(per_q["_m"].to_numpy() - grand), _n=n)
    s = (
        per_q.groupby(by_s, sort=False, observed=True, dropna=False)
        .agg(ss_w=("_w", "sum"), ss_b=("_b", "sum"), n=("_n", "first"), r=("_r", "first"))
        .reset_index()
    )
    n, r = s["n"].to_numpy(np.float64), s["r"].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ms_w = s["ss_w"].to_numpy() / (n * (r - 1.0))
        ms_b = r * s["ss_b"].to_numpy() / (n - 1.0)
        var_q = np.maximum((ms_b - ms_w) / r, 0.0)
        var_q = np.where(n > 1, var_q, 0.0)
        total = var_q + ms_w
        share = np.where(total > 0, ms_w / np.where(total > 0, total, 1.0), np.nan)
    out = s[by_s].copy()
    out["n_seeds"] = r.astype(np.int64)
    out["share_seed"] = share
    return out


def seed_arrays(frame: pd.DataFrame):
    """``(keys, systems, x)`` per group (the seed excluded): x is the float64 array
    (n_queries, n_systems, n_seeds) of a complete table, queries and systems sorted as
    strings, each system's seeds in sorted order. Every system needs the same number of
    seeds on every query (systems may differ in their seed names)."""
    keys = [c for c in group_columns(frame) if c != "seed"]
    for key, group in scores_groups(frame, keys):
        where = describe_group(key)
        q_code, q_ids = pd.factorize(group["query"], sort=True)
        s_code, s_ids = pd.factorize(group["system"], sort=True)
        r_code, _ = pd.factorize(
            group["system"].astype(str) + "\x1f" + group["seed"].astype(str), sort=True
        )
        # each system's seeds numbered 0..r-1
        first = np.full(len(s_ids), np.iinfo(np.int64).max)
        np.minimum.at(first, s_code, r_code)
        k = r_code - first[s_code]
        counts = np.bincount(s_code * (k.max() + 1) + k, minlength=len(s_ids) * (k.max() + 1))
        n_seeds = (counts.reshape(len(s_ids), -1) > 0).sum(axis=1)
        r = int(n_seeds.max())
        x = np.full((len(q_ids), len(s_ids), r), np.nan)
        if (n_seeds != r).any() or (k >= r).any():
            raise SchemaError(
                f"the {where} give systems different numbers of seeds "
                f"({dict(zip(s_ids, n_seeds))}); "
                "the two-level bootstrap draws the same number of seeds for every system: "
                "evaluate every system with as many seeds."
            )
        x[q_code, s_code, k] = group["value"].to_numpy(dtype=np.float64)
        if np.isnan(x).any():
            t, s, j = np.nonzero(np.isnan(x))
            cells = pd.DataFrame(
                {"system": np.asarray(s_ids)[s], "query": np.asarray(q_ids)[t], "seed_number": j}
            )
            raise SchemaError(
                f"the {where} do not form a complete system x query x seed table: "
                f"{len(cells)} cell(s) have no value (no row, or NaN):{show_rows(cells)}\n"
                "Evaluate every seed of every system on every query (missing='zero'), or drop "
                "those queries.",
                failure_cases=cells,
            )
        yield key, list(s_ids), x


def nested_bootstrap(
    x: np.ndarray,
    pi: np.ndarray,
    pj: np.ndarray,
    *,
    n_resamples: int,
    gen,
    confidence_level: float,
    alternative: str,
):
    """Two-level bootstrap of the mean difference of pairs of systems with seeds.

    x: (n, S, r) scores of S systems on n queries with r seeds each. A replicate draws n
    queries with replacement (the same queries for every system: pairs stay paired), then,
    for every drawn query and every system independently, r of that system's seeds with
    replacement; its statistic is d*_b = x̄*_a − x̄*_b, the difference of the two systems'
    means over the drawn (query, seed) cells. Returns ``mean_diff`` (observed), the
    percentile ``ci_low`` / ``ci_high`` at ``confidence_level`` and the p-value of the
    shifted bootstrap distribution: two-sided p = #(|d*_b − d̄| ≥ |d̄|) / B, ``"greater"``
    #(d*_b − d̄ ≥ d̄) / B, ``"less"`` #(d*_b − d̄ ≤ d̄) / B (Davison & Hinkley 1997).
    Vectorised over resamples (memory-bounded chunks) and pairs.
    """
    means = x.mean(axis=(0, 2))
    observed = means[pi] - means[pj]
    reps = _replicate_means(x, n_resamples, gen)
    stats = reps[:, pi] - reps[:, pj]
    alpha = 1.0 - confidence_level
    ci_low = np.quantile(stats, alpha / 2, axis=0)
    ci_high = np.quantile(stats, 1 - alpha / 2, axis=0)
    shifted = stats - observed
    if alternative == "two-sided":
        p = (np.abs(shifted) >= np.abs(observed) - 1e-12).mean(axis=0)
    elif alternative == "greater":
        p = (shifted >= observed - 1e-12).mean(axis=0)
    else:
        p = (shifted <= observed + 1e-12).mean(axis=0)
    return {"mean_diff": observed, "ci_low": ci_low, "ci_high": ci_high, "p_value": p}


def _replicate_means(x: np.ndarray, n_resamples: int, gen):
    """(B, S) two-level bootstrap replicates of every system's mean over (query, seed)."""
    n, n_s, r = x.shape
    out = np.empty((n_resamples, n_s))
    for part in chunks(n_resamples, 2 * n * n_s * r):
        b = part.stop - part.start
        q = gen.integers(0, n, size=(b, n))
        k = gen.integers(0, r, size=(b, n, n_s, r))
        out[part] = x[q[:, :, None, None], np.arange(n_s)[None, None, :, None], k].mean(axis=(1, 3))
    return out


def nested_mean_intervals(frame: pd.DataFrame, *, n_resamples: int, seq, confidence_level: float):
    """Per (group, system): ``se`` and the percentile ``ci_low`` / ``ci_high`` of the mean
    over (query, seed) from the two-level bootstrap (queries, then the system's seeds)."""
    from pdireval.errors import group_generator

    keys = [c for c in group_columns(frame) if c != "seed"]
    rows = []
    alpha = 1.0 - confidence_level
    for key, systems, x in seed_arrays(frame):
        gen = group_generator(seq, *(str(key[k]) for k in keys))
        reps = _replicate_means(x, n_resamples, gen)
        low, high = np.quantile(reps, [alpha / 2, 1 - alpha / 2], axis=0)
        rows.append(
            pd.DataFrame(
                {
                    **{k: [key[k]] * len(systems) for k in keys},
                    "system": systems,
                    "se": reps.std(axis=0, ddof=1),
                    "ci_low": low,
                    "ci_high": high,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def nested_compare(
    table: pd.DataFrame,
    frame: pd.DataFrame,
    *,
    n_resamples: int,
    seq,
    confidence_level: float,
    alternative: str,
) -> pd.DataFrame:
    """Replace the bootstrap columns of :func:`pdireval.compare`'s table (computed on the
    seed means) by the two-level bootstrap's: ``ci_low``, ``ci_high``, ``p_value``
    (``statistic`` NaN), with ``n_seeds``; rows and their order unchanged."""
    from pdireval.errors import group_generator

    keys = [c for c in group_columns(frame) if c != "seed"]
    table = table.copy()
    n_seeds = np.zeros(len(table), dtype=np.int64)
    for key, systems, x in seed_arrays(frame):
        mask = np.ones(len(table), dtype=bool)
        for k in keys:
            mask &= (table[k].astype(str) == str(key[k])).to_numpy()
        rows = np.flatnonzero(mask)
        if len(rows) == 0:
            continue
        index = {s: i for i, s in enumerate(systems)}
        pi = np.array([index[s] for s in table["system_a"].to_numpy()[rows]])
        pj = np.array([index[s] for s in table["system_b"].to_numpy()[rows]])
        gen = group_generator(seq, *(str(key[k]) for k in keys))
        res = nested_bootstrap(
            x,
            pi,
            pj,
            n_resamples=n_resamples,
            gen=gen,
            confidence_level=confidence_level,
            alternative=alternative,
        )
        for c in ("ci_low", "ci_high", "p_value"):
            table.loc[table.index[rows], c] = res[c]
        table.loc[table.index[rows], "statistic"] = np.nan
        n_seeds[rows] = x.shape[2]
    table["n_seeds"] = n_seeds
    table["method"] = "nested_bootstrap"
    return table
