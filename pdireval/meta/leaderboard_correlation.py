"""The leaderboard correlations of the TREC AutoJudge organisers (``autojudge-evaluate
meta-evaluate``, 2026): Kendall's τ (and Pearson, Spearman) between the system means of a
truth leaderboard and a judge's, over all systems or the truth's top k (``kendall@k``), with an
explicit policy for systems one side lacks and a diagnosis of undefined correlations."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import check_same_grouping, describe_group, group_columns, scores_groups
from pdireval.errors import OptionError, PdirevalWarning, SchemaError, check_option
from pdireval.meta.inputs import meta_scores
from pdireval.stats import _adapters

if TYPE_CHECKING:
    from pdireval.types import Columns, MissingPolicy, QueryPolicy

__all__ = ["leaderboard_correlation", "CORRELATION_MISSING", "CORRELATION_BASES"]

#: ``missing=`` values: a system in one leaderboard only
CORRELATION_MISSING = ("error", "skip", "zero")
#: the correlations a ``methods`` entry may name (optionally ``@k``)
CORRELATION_BASES = ("kendall", "pearson", "spearman")
#: ``queries=`` values
QUERY_POLICIES = ("shared", "all")
#: fewer systems than this give no correlation (autojudge-evaluate's limit)
MIN_SYSTEMS = 3

_METHOD = re.compile(r"^(?P<base>[a-z]+)(?:@(?P<k>[1-9]\d*))?$")


def _parse_methods(methods) -> list[tuple[str, str, int | None]]:
    if isinstance(methods, str):
        methods = [methods]
    out = []
    for method in methods:
        match = _METHOD.fullmatch(str(method).strip().lower())
        if not match or match.group("base") not in CORRELATION_BASES:
            raise OptionError(
                f"methods= entry {method!r} is not one of {list(CORRELATION_BASES)}, optionally "
                "followed by @k (the truth's top k systems), e.g. 'kendall@10'."
            )
        k = match.group("k")
        out.append((str(method), match.group("base"), None if k is None else int(k)))
    if not out:
        raise OptionError("methods= is empty; e.g. methods=['kendall', 'kendall@10'].")
    return out


def _means(frame: pd.DataFrame, keep) -> pd.Series:
    """system -> mean value over the rows of ``frame`` whose query is in ``keep`` (None: all)."""
    if keep is not None:
        frame = frame[frame["query"].isin(keep)]
    return frame.groupby("system", sort=True)["value"].mean()


def _correlate(base: str, x: np.ndarray, y: np.ndarray) -> float:
    if base == "kendall":
        return _adapters.kendalltau_b(x, y)[0]
    if base == "spearman":
        return _adapters.spearman(x, y)[0]
    return _adapters.pearson(x, y)[0]


def _one(base, k, t: pd.Series, e: pd.Series, missing, where) -> tuple[float, int, str | None]:
    """One correlation: (value, number of systems correlated, issue or None)."""
    only_t, only_e = sorted(set(t.index) - set(e.index)), sorted(set(e.index) - set(t.index))
    if (only_t or only_e) and missing == "error":
        raise SchemaError(
            f"the leaderboards of the {where} hold different systems ({len(only_t)} only in "
            f"truth, e.g. {only_t[:3]}; {len(only_e)} only in other, e.g. {only_e[:3]}). Pass "
            "missing='skip' to correlate the systems both hold, or missing='zero' to score the "
            "systems other lacks 0."
        )
    if k is not None or missing == "skip":  # @k: always the shared systems (as autojudge)
        systems = sorted(set(t.index) & set(e.index))
        x, y = t.loc[systems].to_numpy(), e.loc[systems].to_numpy()
    else:  # zero: every truth system, 0 where other lacks it; systems only in other dropped
        systems = list(t.index)
        x, y = t.to_numpy(), e.reindex(t.index).fillna(0.0).to_numpy()
    if k is not None:
        order = sorted(range(len(systems)), key=lambda i: (-x[i], systems[i]))[:k]
        x, y = x[order], y[order]
    if len(x) < MIN_SYSTEMS:
        return float("nan"), len(x), "too_few"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), len(x), "all_tied"
    return _correlate(base, x, y), len(x), None


def leaderboard_correlation(
    truth: pd.DataFrame,
    other: pd.DataFrame,
    *,
    methods: str | Sequence[str] = ("kendall", "kendall@10"),
    missing: MissingPolicy = "error",
    queries: QueryPolicy = "shared",
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Correlation of a judge's leaderboard with the truth's, over all or the top-k systems.

    Each frame's systems are ranked by their mean score per measure (and other grouping keys);
    the correlation of the two vectors of means is ``kendall`` (Kendall's τ_b, scipy's
    ``kendalltau``), ``pearson`` or ``spearman``. ``method@k`` (e.g. ``kendall@10``) keeps the
    truth leaderboard's k best systems (means descending, ties by system name) among the
    systems both sides hold: agreement where it matters, at the top. This is the leaderboard
    table of the TREC AutoJudge organisers' ``autojudge-evaluate meta-evaluate`` (2026),
    including its policies; :func:`pdireval.leaderboard_agreement` gives τ_AP, RBO and the
    significance agreement of complete leaderboards.

    Parameters
    ----------
    truth
        Scores frame of the reference leaderboard (e.g. human qrels).
    other
        Scores frame of the leaderboard under test (e.g. LLM qrels); the same measures and
        grouping columns.
    methods
        Correlations to compute: ``"kendall"``, ``"pearson"``, ``"spearman"``, each optionally
        ``@k``.
    missing
        A system in one leaderboard only: ``"error"`` (default, a SchemaError naming them),
        ``"skip"`` (correlate the systems both hold) or ``"zero"`` (every truth system, scored
        0 in other where other lacks it; systems only in other are dropped). ``@k`` methods
        always use the systems both hold. Each method is computed alone: autojudge-evaluate
        restricts *every* method to the shared systems as soon as one ``@k`` method is asked
        for, pdireval only the ``@k`` ones.
    queries
        ``"shared"`` (default): recompute both leaderboards' means over the queries both frames
        judged (per group); ``"all"``: each frame's mean over its own queries.
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        One row per (group, method): the grouping keys (``measure``, ...), ``method`` (as
        given), ``value``, ``n_systems`` (systems correlated), ``n_queries`` (queries the means
        are over: the shared ones, or truth's with ``queries="all"``), ``issue``: None, or
        ``"too_few"`` (fewer than 3 systems) or ``"all_tied"`` (one side's means all equal);
        ``value`` is NaN with an issue, which a :class:`pdireval.PdirevalWarning` also reports.

    Raises
    ------
    SchemaError
        ``missing="error"`` and the leaderboards hold different systems; the frames hold
        different measures or share no query (``queries="shared"``).

    References
    ----------
    Kendall, M. G. (1938). A new measure of rank correlation. Biometrika.
    Voorhees, E. M. (2000). Variations in relevance judgments and the measurement of
    retrieval effectiveness. Information Processing & Management.
    """
    check_option("missing", missing, CORRELATION_MISSING)
    check_option("queries", queries, QUERY_POLICIES)
    parsed = _parse_methods(methods)
    a = meta_scores(truth, columns, function="leaderboard_correlation")
    b = meta_scores(other, columns, function="leaderboard_correlation")
    check_same_grouping(group_columns(a), group_columns(b))
    other_groups = {tuple(k.items()): g for k, g in scores_groups(b)}
    rows, issues = [], []
    for keys, group in scores_groups(a):
        where = describe_group(keys)
        theirs = other_groups.get(tuple(keys.items()))
        if theirs is None:
            raise SchemaError(
                f"other holds no scores of the {where}; give both frames the same measures."
            )
        keep = None
        n_queries = group["query"].nunique()
        if queries == "shared":
            keep = set(group["query"]) & set(theirs["query"])
            if not keep:
                raise SchemaError(f"truth and other share no query in the {where}.")
            n_queries = len(keep)
        t, e = _means(group, keep), _means(theirs, keep)
        for name, base, k in parsed:
            value, n_systems, issue = _one(base, k, t, e, missing, where)
            if issue is not None:
                issues.append(f"{where}, {name}: {issue}")
            rows.append(
                {
                    **keys,
                    "method": name,
                    "value": value,
                    "n_systems": n_systems,
                    "n_queries": n_queries,
                    "issue": issue,
                }
            )
    if issues:
        warnings.warn(
            f"{len(issues)} correlation(s) are undefined (value NaN): "
            + "; ".join(issues[:5])
            + (f"; ... {len(issues) - 5} more" if len(issues) > 5 else "")
            + ". too_few: fewer than 3 systems; all_tied: one leaderboard's means are all equal.",
            PdirevalWarning,
            stacklevel=2,
        )
    return pd.DataFrame(rows)
