"""Scores frames as groups: the grouping keys, the per-group query x system matrices, system
means, system pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval.errors import SchemaError, show_rows
from pdireval.stats.means import exact_group_means

__all__ = [
    "check_same_grouping",
    "check_same_systems",
    "group_columns",
    "scores_groups",
    "score_matrix",
    "group_matrices",
    "describe_group",
    "system_means",
    "check_shared_groups",
    "require_complete",
    "pair_indices",
]


def group_columns(scores: pd.DataFrame) -> list[str]:
    """Grouping keys of a scores frame: every column but system, query and value (and the
    bounds ``value_low``, ``value_high`` of ``evaluate(..., unjudged="bounds")``)."""
    return [
        c
        for c in scores.columns
        if c not in ("system", "query", "value", "value_low", "value_high")
    ]


def scores_groups(scores: pd.DataFrame, by: list[str] | None = None):
    """Iterate ``(keys: dict, group: DataFrame)`` over the groups of a canonical scores frame.

    ``by`` names the grouping columns (default :func:`group_columns`: every column but system,
    query and value); a function that compares groups with each other (e.g. measures against
    measures) passes a subset.

    Groups come in a deterministic order (sorted by the grouping keys, ``measure`` in
    order of first appearance, numeric keys such as ``k`` numerically, others as strings). This is
    the design's "groupby-style" convention: a meta-evaluation function computes one result per
    group and carries ``keys`` into its output.
    """
    keys = group_columns(scores) if by is None else list(by)
    if not keys:
        yield {}, scores
        return
    order = {m: i for i, m in enumerate(pd.unique(scores["measure"]))} if "measure" in keys else {}
    grouped = scores.groupby(keys, sort=False, dropna=False, observed=True)
    items = []
    for key, group in grouped:
        key = key if isinstance(key, tuple) else (key,)
        items.append((dict(zip(keys, key)), group))

    numeric = {k for k in keys if k != "measure" and pd.api.types.is_numeric_dtype(scores[k])}

    def sort_key(item):
        d = item[0]
        return tuple(
            (order.get(d[k], 0), 0.0, "")
            if k == "measure"
            else (0, float(d[k]) if not pd.isna(d[k]) else np.inf, "")
            if k in numeric
            else (0, 0.0, str(d[k]))
            for k in keys
        )

    items.sort(key=sort_key)
    yield from items


def score_matrix(
    group: pd.DataFrame, *, what: str = "scores", allow_nan: bool = False
) -> pd.DataFrame:
    """Pivot one group of a scores frame to a query x system matrix (float64).

    Systems are aligned on ``query`` explicitly, never by row order. Rows are sorted by
    query, columns by system (both as strings). An incomplete matrix (a (system, query)
    cell with no row, or a NaN value unless ``allow_nan``) is a SchemaError naming the
    missing cells and the two ways out: ``allow_nan=True`` accepts NaN *values* (an undefined
    per-query value the caller skips) but never an absent row, so every function refuses a
    system that lacks some queries the same way.
    """
    matrix = group.pivot(index="query", columns="system", values="value")
    matrix = matrix.sort_index(axis=0).sort_index(axis=1)
    values = matrix.to_numpy(dtype=np.float64)
    missing = np.isnan(values)
    if missing.any():
        q_idx, s_idx = np.nonzero(missing)
        cells = pd.DataFrame({"system": matrix.columns[s_idx], "query": matrix.index[q_idx]})
        present = group.loc[group["value"].isna(), ["system", "query"]]
        nan_keys = set(zip(present["system"], present["query"]))
        is_nan = np.array(
            [(s, q) in nan_keys for s, q in zip(cells["system"], cells["query"])], dtype=bool
        )
        cells["cause"] = np.where(is_nan, "value is NaN", "no row")
        if allow_nan:
            cells = cells[~is_nan].reset_index(drop=True)
            is_nan = is_nan[~is_nan]
    if missing.any() and len(cells):
        n_nan, n_absent = int(is_nan.sum()), int((~is_nan).sum())
        fixes = []
        if n_absent:
            fixes.append(
                "for absent rows, evaluate with missing='zero' so unanswered queries score 0, "
                "or drop the queries some system did not answer"
            )
        if n_nan:
            fixes.append(
                "for NaN values (the measure is undefined there, e.g. a normalisation by 0), "
                "drop those queries, e.g. scores[~scores['query'].isin(bad_queries)], or fill them"
            )
        raise SchemaError(
            f"the {what} do not form a complete system x query matrix: {len(cells)} "
            f"(system, query) cell(s) have no usable value ({n_absent} without a row, "
            f"{n_nan} NaN):{show_rows(cells)}\nFix: " + "; ".join(fixes) + ".",
            failure_cases=cells[["system", "query"]],
        )
    matrix.columns.name = "system"
    matrix.index.name = "query"
    return matrix


def describe_group(keys: dict, what: str = "scores") -> str:
    """How messages name one group: ``"scores of measure='AP', k=10"`` (``what`` alone without
    keys)."""
    if not keys:
        return what
    return f"{what} of " + ", ".join(f"{k}={v!r}" for k, v in keys.items())


def group_matrices(
    scores: pd.DataFrame,
    *,
    by: list[str] | None = None,
    what: str = "scores",
    allow_nan: bool = False,
):
    """THE per-group iterator of the meta functions: ``(keys, matrix)`` for every group.

    ``matrix`` is the group's query x system DataFrame of :func:`score_matrix` (float64, systems
    aligned on ``query``, rows sorted by query and columns by system; an incomplete matrix raises
    :func:`score_matrix`'s SchemaError naming the group and its missing cells), groups in
    :func:`scores_groups` order, grouped ``by`` the given columns (default: every grouping key).

    System and query ids are coded once for the whole frame (sorted, so codes follow
    :func:`score_matrix`'s order) and every group's matrix is scattered from the codes, which
    costs a fraction of a pivot per group on frames with many groups.
    """
    sys_labels, sys_codes = _sorted_codes(scores["system"])
    q_labels, q_codes = _sorted_codes(scores["query"])
    values = scores["value"].to_numpy(dtype=np.float64)
    positions = pd.RangeIndex(len(scores))
    framed = scores.set_axis(positions)
    for keys, group in scores_groups(framed, by):
        idx = group.index.to_numpy()
        s_used, s_i = _dense_codes(sys_codes[idx], len(sys_labels))
        q_used, q_i = _dense_codes(q_codes[idx], len(q_labels))
        v = values[idx]
        cells = np.bincount(s_i * len(q_used) + q_i, minlength=len(s_used) * len(q_used))
        if (cells > 1).any():
            dup = group[group.duplicated(["system", "query"], keep=False)][["system", "query"]]
            raise SchemaError(
                f"the {describe_group(keys, what)} hold {int((cells > 1).sum())} (system, query) "
                f"cell(s) with several rows:{show_rows(dup)}\nFix: keep one row per system and "
                "query in each group, or add the column that tells the rows apart to the "
                "grouping columns."
            )
        if (cells == 0).any() or (not allow_nan and np.isnan(v).any()):
            # the slow path raises the SchemaError that names the missing or NaN cells
            yield keys, score_matrix(group, what=describe_group(keys, what), allow_nan=allow_nan)
            continue
        m = np.empty((len(q_used), len(s_used)), dtype=np.float64)
        m[q_i, s_i] = v
        matrix = pd.DataFrame(
            m,
            index=pd.Index(q_labels[q_used], name="query"),
            columns=pd.Index(sys_labels[s_used], name="system"),
        )
        yield keys, matrix


def _dense_codes(codes: np.ndarray, n_labels: int):
    """``np.unique(codes, return_inverse=True)`` for codes in [0, n_labels), in O(n) (a
    presence table instead of a sort): the codes present, ascending, and each code's index
    among them."""
    present = np.zeros(n_labels, dtype=bool)
    present[codes] = True
    used = np.flatnonzero(present)
    position = np.cumsum(present) - 1
    return used, position[codes]


def _sorted_codes(column: pd.Series):
    """``(labels, codes)`` of a key column, labels sorted (pandas' order, as ``sort_index``)."""
    codes, labels = pd.factorize(column, sort=True)
    return labels, codes


def system_means(scores: pd.DataFrame) -> dict[tuple, pd.Series]:
    """Mean score of every system per group: ``{tuple(keys.items()): Series indexed by system}``
    (systems sorted as strings, NaN values skipped), groups in :func:`scores_groups` order.

    Means come from correctly rounded sums (:func:`pdireval.stats.means.exact_group_means`):
    systems whose values have equal exact sums get equal means, so they tie."""
    out = {}
    for keys, group in scores_groups(scores):
        codes, systems = pd.factorize(group["system"], sort=True)
        means = exact_group_means(group["value"].to_numpy(dtype=np.float64), codes, len(systems))
        out[tuple(keys.items())] = pd.Series(
            means, index=pd.Index(systems, name="system"), name="value"
        )
    return out


def check_same_grouping(keys_a: list[str], keys_b: list[str]) -> None:
    """Two scores frames compared group by group must have the same grouping columns."""
    if sorted(keys_a) != sorted(keys_b):
        raise SchemaError(
            f"scores and other have different grouping columns ({keys_a} vs {keys_b}); drop or "
            "add columns so both frames have the same ones."
        )


def check_same_systems(systems_a, systems_b, where: str = "") -> None:
    """Two experiments compared on their system rankings must hold the same systems."""
    only = sorted(set(systems_a) ^ set(systems_b))
    if only:
        raise SchemaError(
            f"scores and other hold different systems{where} ({len(only)} only in one of them, "
            f"e.g. {only[:3]}); keep the systems they share in both frames."
        )


def _describe_key(key) -> str:
    items = dict(key) if key and isinstance(key[0], tuple) else None
    if items is not None:
        return ", ".join(f"{k}={v!r}" for k, v in items.items())
    return repr(key)


def check_shared_groups(keys_a, keys_b, names=None, what=("scores", "other")) -> None:
    """Raise a SchemaError when two scores frames compared group by group share no group.

    ``keys_a``, ``keys_b``: the group keys of each frame (tuples, e.g. ``(("measure", "AP"),)``
    or tuples of values with ``names`` their column names). The message lists what each frame
    has, so a renamed measure (``AP`` vs ``map``) or collection shows at once.
    """
    keys_a, keys_b = list(keys_a), list(keys_b)
    if set(keys_a) & set(keys_b) or not keys_a or not keys_b:
        return

    def show(keys):
        shown = [
            ", ".join(f"{n}={v!r}" for n, v in zip(names, k))
            if names is not None
            else _describe_key(k)
            for k in keys[:5]
        ]
        more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
        return "; ".join(f"({x})" for x in shown) + more

    raise SchemaError(
        f"{what[0]} and {what[1]} share no group to compare: {what[0]} has {show(keys_a)}, "
        f"{what[1]} has {show(keys_b)}. Give both frames the same measure names (and values of "
        "the other grouping columns), e.g. by renaming one frame's measure."
    )


def require_complete(scores: pd.DataFrame, what: str = "scores") -> None:
    """Raise :func:`score_matrix`'s SchemaError unless every group of a canonical scores frame
    has a row for every (system, query) cell (NaN values are allowed: callers skip them).

    Used by the functions that average per system (``correlate``, ``swap_rate(other=)``,
    ``pad``): a system averaged over fewer queries than the others would be ranked on a
    different basis, silently.
    """
    for _ in group_matrices(scores, what=what, allow_nan=True):
        pass


def pair_indices(n_systems: int, baseline: int | None = None):
    """Column indices (I, J) of the system pairs: all i < j, or every system against a baseline.

    All pairs come in row-major order (0,1), (0,2), ..., (1,2), ...; with a baseline b the
    pairs are (k, b) for every k != b in column order.
    """
    if baseline is None:
        i, j = np.triu_indices(n_systems, 1)
        return i.astype(np.int64), j.astype(np.int64)
    i = np.array([k for k in range(n_systems) if k != baseline], dtype=np.int64)
    return i, np.full(len(i), baseline, dtype=np.int64)
