"""Query informativeness and percentage absolute difference (Karmaker & Feng 2022).

* :func:`query_sets` — Karmaker & Feng (2022, Section 4.4): how far real systems get above the
  random baseline on each query; the *uninformative* and *ideal* query sets.
* :func:`percentage_absolute_difference` — Karmaker & Feng (2022, eq. 8), the percentage
  absolute difference between the averages of two systems, averaged over all pairs.
"""

from __future__ import annotations

import re
import warnings
from typing import Literal

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns, group_matrices, pair_indices
from pdireval.core.schema import ID_DTYPE
from pdireval.core.segments import natural_order
from pdireval.docstrings import shared_docs
from pdireval.errors import PdirevalWarning, SchemaError, check_bool, check_option, show_rows
from pdireval.meta.inputs import meta_scores
from pdireval.types import Columns

__all__ = ["query_sets", "percentage_absolute_difference"]

SETS = ("uninformative", "ideal")
_CUTOFF = re.compile(r"@(\d+)$")


def _expected_per_query(expected: pd.DataFrame) -> pd.Series:
    if not isinstance(expected, pd.DataFrame):
        raise TypeError(
            "expected must be a DataFrame with a 'query' column and a 'random' column (the "
            f"frame pdireval.bounds returns) or a 'value' column; got {type(expected).__name__}"
        )
    column = "random" if "random" in expected.columns else "value"
    missing = [c for c in ("query", column) if c not in expected.columns]
    if missing:
        raise SchemaError(
            f"expected has no column {missing[0]!r}: it needs 'query' and either 'random' (the "
            "output of pdireval.bounds) or 'value' (an expected value per query); its columns "
            f"are {list(expected.columns)}."
        )
    frame = pd.DataFrame(
        {
            "query": expected["query"].astype(str),
            "value": pd.to_numeric(expected[column], errors="coerce"),
        }
    )
    return frame.groupby("query", sort=False)["value"].mean()


@shared_docs
def query_sets(
    scores: pd.DataFrame,
    expected: pd.DataFrame,
    *,
    n_queries: int,
    absolute: bool = False,
    columns: Columns = None,
) -> pd.DataFrame:
    """Uninformative and ideal query sets of Karmaker & Feng (2022, Section 4.4).

    For each query::

        real(q)       = mean of ``scores.value`` over every row of q (systems × measures,
                        e.g. nDCG@k for k in {5, 10, 15, 20, 30})
        expected(q)   = mean of ``expected.random`` (or ``expected.value``) over the rows of q
                        (e.g. E[nDCG@k] over the same cut-offs, from :func:`pdireval.bounds`)
        difference(q) = real(q) − expected(q)

    The *uninformative* set is the ``n_queries`` queries with the smallest difference (systems
    barely beat a random ranking), the *ideal* set the ``n_queries`` queries with the largest;
    ties are broken by query id ascending. Karmaker & Feng (2022) say the difference is "minimal"
    for uninformative queries, which could mean |d|; its explanation fits the signed d, the
    default, and ``absolute=True`` ranks uninformative queries by |d| instead (the ideal
    set always takes the largest signed d).

    Parameters
    ----------
    scores
        A scores frame; every row of a query counts (filter it first to choose systems or
        measures).
    expected
        Expected values per query: the frame :func:`pdireval.bounds` returns (its ``random``
        column is used), or any frame with ``query`` and ``value``.
    n_queries
        Number of queries in each set (1 <= n_queries <= number of queries with a difference).
    absolute
        Rank uninformative queries by |difference|.
    {columns}

    Returns
    -------
    DataFrame
        ``set`` (``"uninformative"`` then ``"ideal"``), ``rank`` (1 = most uninformative /
        most ideal), ``query``, ``real``, ``expected``, ``difference`` (signed); ``n_queries``
        rows per set. A query can be in both sets when ``n_queries`` exceeds half the queries.
        Filter a scores frame with it, e.g.
        ``scores[scores["query"].isin(sets.loc[sets["set"] == "ideal", "query"])]``.

    Raises
    ------
    SchemaError
        A query of ``scores`` has no expected value, or ``expected`` lacks its columns.
    OptionError
        ``n_queries`` out of range.

    Warns
    -----
    PdirevalWarning
        Queries whose real or expected value is NaN (e.g. E[AP] without relevant documents)
        are left out of both sets.

    References
    ----------
    Karmaker, S. K., Feng, D. (2022). Joint Upper & Lower Bound Normalization for IR
    Evaluation. Preprint, Section 4.4.
    """
    frame = meta_scores(scores, columns, function="query_sets")
    real = frame.groupby("query", sort=False)["value"].mean()
    exp = _expected_per_query(expected)
    absent = real.index[~real.index.isin(exp.index)]
    if len(absent):
        rows = pd.DataFrame({"query": absent})
        raise SchemaError(
            f"{len(absent)} quer{'y' if len(absent) == 1 else 'ies'} of scores ha"
            f"{'s' if len(absent) == 1 else 've'} no expected value:{show_rows(rows)}\n"
            "Compute expected values for the same queries (pdireval.bounds on the same run and "
            "qrels), or drop those queries from scores.",
            failure_cases=rows,
        )
    table = pd.DataFrame({"query": real.index.astype(str), "real": real.to_numpy(dtype=np.float64)})
    table["expected"] = exp.reindex(table["query"]).to_numpy(dtype=np.float64)
    table["difference"] = table["real"] - table["expected"]
    bad = table["difference"].isna()
    if bad.any():
        warnings.warn(
            f"{int(bad.sum())} quer{'y has' if bad.sum() == 1 else 'ies have'} a NaN real or "
            f"expected value and {'is' if bad.sum() == 1 else 'are'} left out of the query sets "
            f"(e.g. {table.loc[bad, 'query'].head(5).tolist()}).",
            PdirevalWarning,
            stacklevel=2,
        )
        table = table.loc[~bad].reset_index(drop=True)
    n = len(table)
    if (
        isinstance(n_queries, bool)
        or not isinstance(n_queries, (int, np.integer))
        or not 1 <= n_queries <= n
    ):
        from pdireval.errors import OptionError

        raise OptionError(
            f"n_queries= must be a whole number from 1 to {n} (the queries with a difference); got "
            f"{n_queries!r}. Karmaker & Feng (2022) used 1,000 of 10,000 (MSLR) and 500 of 1,000 "
            "(MQ2007) queries."
        )
    qrank = np.empty(n, dtype=np.int64)
    qrank[natural_order(table["query"])] = np.arange(n)
    d = table["difference"].to_numpy()
    low_key = np.abs(d) if absolute else d
    low = np.lexsort((qrank, low_key))[:n_queries]
    high = np.lexsort((qrank, -d))[:n_queries]
    parts = []
    for name, idx in (("uninformative", low), ("ideal", high)):
        part = table.iloc[idx].reset_index(drop=True)
        part.insert(0, "rank", np.arange(1, n_queries + 1, dtype=np.int64))
        part.insert(0, "set", pd.array([name] * n_queries, dtype=ID_DTYPE))
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    out["query"] = pd.array(out["query"], dtype=ID_DTYPE)
    return out


DENOMINATORS = ("max", "absmax")
CUTOFFS = ("average", "separate")


@shared_docs
def percentage_absolute_difference(
    scores: pd.DataFrame,
    *,
    denominator: Literal["max", "absmax"] = "max",
    cutoffs: Literal["average", "separate"] = "average",
    pairs: bool = False,
    columns: Columns = None,
) -> pd.DataFrame:
    """Percentage absolute difference between systems (Karmaker & Feng 2022, eq. 8).

    For each system M, a_M is the mean over the cut-offs of its mean over queries (NaN
    values skipped); for every unordered pair of systems::

        PAD(M1, M2) = |a_1 − a_2| / max(a_1, a_2) × 100

    and the result is the mean over the pairs. The denominator is the **signed** maximum, as
    printed (it reproduces Karmaker & Feng's (2022) Table 19 from its Tables 12 and 14); with
    negative averages (V2) that literal formula gives negative or very large per-pair values, and
    ``denominator="absmax"`` uses max(|a_1|, |a_2|) instead. A pair with a zero denominator is
    dropped. One published value does not follow from the paper's own tables: see
    docs/bounds.md.

    Parameters
    ----------
    scores
        A scores frame. With ``cutoffs="average"`` (default) measures that differ only in the
        cut-off (``nDCG@5``, ``nDCG@10``, ...) form one group and a_M averages over them, as
        Karmaker & Feng (2022) do; ``"separate"`` treats every measure string on its own. Other
        grouping columns (e.g. ``query_set``) give separate results.
    denominator
        ``"max"`` (the paper's signed maximum) or ``"absmax"``.
    pairs
        Also return the per-pair rows instead of the summary.
    {columns}

    Returns
    -------
    DataFrame
        Summary (default): ``measure`` (the measure without its cut-off under
        ``cutoffs="average"``), other grouping keys, ``cutoffs`` (the cut-offs averaged, e.g.
        ``"5,10,20"``; empty when none), ``denominator``, ``n_systems``, ``n_pairs`` (pairs
        with a non-zero denominator), ``pad`` (mean over those pairs, in percent; NaN if
        none). With ``pairs=True``: ``measure``, other keys, ``cutoffs``, ``denominator``,
        ``system_a``, ``system_b`` (sorted, system_a < system_b), ``mean_a``, ``mean_b``
        (a_M), ``pad`` (NaN for a zero denominator). Groups in order of first appearance.

    Raises
    ------
    SchemaError
        Systems do not share the same queries within a group (see the message for the fix).
    OptionError
        An invalid option.

    References
    ----------
    Karmaker, S. K., & Feng, D. (2022). Joint Upper & Lower Bound Normalization for IR Evaluation.
    Preprint.
    """
    check_option("denominator", denominator, DENOMINATORS)
    check_option("cutoffs", cutoffs, CUTOFFS)
    pairs = check_bool("pairs", pairs)
    frame = meta_scores(scores, columns, function="percentage_absolute_difference")
    measure = frame["measure"].astype(str)
    cut = measure.str.extract(_CUTOFF.pattern, expand=False)
    if cutoffs == "average":
        frame["measure"] = pd.array(
            measure.str.replace(_CUTOFF.pattern, "", regex=True), dtype=ID_DTYPE
        )
    frame["_k"] = cut.fillna("")
    keys = group_columns(frame.drop(columns="_k"))
    order = {m: i for i, m in enumerate(pd.unique(frame["measure"]))}
    summary, detail = [], []
    grouped = frame.groupby(keys, sort=False, dropna=False, observed=True)
    items = sorted(
        ((dict(zip(keys, k if isinstance(k, tuple) else (k,))), g) for k, g in grouped),
        key=lambda it: (
            order[it[0]["measure"]],
            tuple(str(it[0][c]) for c in keys if c != "measure"),
        ),
    )
    for key, group in items:
        ks = pd.unique(group["_k"])
        ks = sorted(ks, key=lambda s: int(s) if s else -1)
        by_k = dict(
            (d["_k"], matrix) for d, matrix in group_matrices(group, by=["_k"], allow_nan=True)
        )
        per_k = [by_k[k] for k in ks]  # a handful of cut-offs
        systems = per_k[0].columns
        if any(list(mx.columns) != list(systems) for mx in per_k):
            raise SchemaError(
                f"the cut-offs of {key} are evaluated for different systems; evaluate every "
                "system at every cut-off, or use cutoffs='separate'."
            )
        with (
            warnings.catch_warnings()
        ):  # a system with only NaN values: mean NaN, its pairs dropped
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.mean(
                [np.nanmean(mx.to_numpy(dtype=np.float64), axis=0) for mx in per_k], axis=0
            )
        i, j = pair_indices(len(systems))
        a1, a2 = means[i], means[j]
        den = np.maximum(a1, a2) if denominator == "max" else np.maximum(np.abs(a1), np.abs(a2))
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(den != 0, np.abs(a1 - a2) / den * 100.0, np.nan)
        label = ",".join(k for k in ks if k)
        if pairs:
            detail.append(
                pd.DataFrame(
                    {
                        **{c: [key[c]] * len(i) for c in keys},
                        "cutoffs": label,
                        "denominator": denominator,
                        "system_a": np.asarray(systems)[i],
                        "system_b": np.asarray(systems)[j],
                        "mean_a": a1,
                        "mean_b": a2,
                        "pad": values,
                    }
                )
            )
        else:
            used = values[~np.isnan(values)]
            summary.append(
                {
                    **key,
                    "cutoffs": label,
                    "denominator": denominator,
                    "n_systems": len(systems),
                    "n_pairs": len(used),
                    "pad": float(used.mean()) if len(used) else np.nan,
                }
            )
    if pairs:
        out = pd.concat(detail, ignore_index=True)
    else:
        out = pd.DataFrame(summary)
        out["n_systems"] = out["n_systems"].astype(np.int64)
        out["n_pairs"] = out["n_pairs"].astype(np.int64)
    for c in ("system_a", "system_b", "cutoffs", "denominator", "measure"):
        if c in out.columns:
            out[c] = pd.array(out[c].astype(str), dtype=ID_DTYPE)
    out["pad"] = out["pad"].astype(np.float64)
    return out
