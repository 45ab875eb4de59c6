"""Nugget scores of RAG answers: nuggetizer's four scores and the weighted score W.

One pass over integer codes: every (judge, system, query) answer is a segment, and each score
is a ratio of two per-segment sums (``np.bincount`` with weights), so there is no Python loop
per query, system or judge.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import MeasureError, OptionError, PdirevalWarning, SchemaError, check_option
from pdireval.errors import show_rows as _show
from pdireval.rag.frames import (
    Coded,
    code_assignments,
    code_importance,
    compact,
    validate_nuggets,
)
from pdireval.rag.names import NUGGET_MEASURES, resolve_names
from pdireval.rag.scoring import Grid, ratios, to_scores

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pdireval.types import Columns, Empty, Missing

__all__ = ["EMPTY", "MISSING", "DEFAULT_WEIGHTS", "evaluate_nuggets"]

#: ``empty=``: the value of a score whose denominator is 0 (nuggetizer: 0.0)
EMPTY = ("zero", "nan")
#: ``missing=``: a (system, query) without any assignment (no answer)
MISSING = ("zero", "drop")
#: the weights of W: a vital nugget 1, an okay nugget 0.5 (Pradeep et al., 2024)
DEFAULT_WEIGHTS: dict[str, float] = {"vital": 1.0, "okay": 0.5}


@dataclass
class Units:
    """What the scores count: per assignment row its unit (a nugget, or the group it is a
    member of), per unit its query code, vital flag (1.0 / 0.0), importance value and rule
    (0 = a nugget alone, 1 = an AND group, 2 = an OR group); ``graded``: vital / okay levels
    (else numeric weights); ``per_query``: the number of nugget rows each query has (None:
    the assignments alone define the nuggets)."""

    row_unit: np.ndarray
    query: np.ndarray
    vital: np.ndarray
    importance: np.ndarray
    rule: np.ndarray
    graded: bool
    per_query: np.ndarray | None


def evaluate_nuggets(
    assignments: pd.DataFrame,
    measures: str | Iterable[str] | None = None,
    *,
    nuggets: pd.DataFrame | None = None,
    weights: Mapping[str, float] | None = None,
    empty: Empty = "zero",
    missing: Missing = "zero",
    columns: Columns = None,
) -> pd.DataFrame:
    """Nugget scores per (system, query): nuggetizer's four scores and the weighted score W.

    Each nugget of a query gets the value of its label in the system's answer, s = 1
    (support), 0.5 (partial support) or 0 (no support); in the strict forms a partial support
    counts 0. With weights w (a vital nugget 1, an okay nugget 0.5, or the nugget's numeric
    importance), the scores of an answer are

    - ``A`` (nuggetizer's ``all_score``) = Σ_n s_n / N (every nugget n of the query),
    - ``V`` (``vital_score``) = Σ_{n vital} s_n / N_vital,
    - ``W`` = Σ_n w_n s_n / Σ_n w_n,

    and ``A_strict``, ``V_strict``, ``W_strict`` the same with s = 1 for support only
    (nuggetizer's ``strict_all_score`` and ``strict_vital_score``). The numbers equal
    nuggetizer's ``calculate_nugget_scores`` (Pradeep et al., 2024) exactly, for every answer.
    Sub-nuggets sharing a group count once, with the group's label: the minimum of the
    members' labels for an ``'and'`` group, the maximum for an ``'or'`` group.

    Parameters
    ----------
    assignments
        One row per (system, query, nugget[, judge]) with its label, as
        :func:`pdireval.validate_assignments` reads it (``'support'`` / ``'partial_support'``
        / ``'not_support'`` or 1 / 0.5 / 0; ``qid``, ``run_id``, ``nugget_id``,
        ``assignment`` recognised). Without ``nuggets=`` it carries each nugget's
        ``importance`` (as nuggetizer's records do) and each answer is scored over the
        nuggets it was assigned (nuggetizer's reading).
    measures
        Score names (one or a list; aliases in :mod:`pdireval.rag.names`: ``vital_strict``,
        ``strict_vital_score``, ...). Default: ``A, A_strict, V, V_strict, W, W_strict``
        (without ``V`` and ``V_strict`` when the importances are numbers).
    nuggets
        The nuggets of each query (:func:`pdireval.validate_nuggets`: ``query, nugget,
        importance[, group, rule]``). Every answer is then scored over all nuggets of its
        query and must have a label for each; an assignment of a nugget the frame lacks is
        an error. Queries of ``nuggets`` without any assignment are left out with a warning.
    weights
        The weights of W for the importance levels, default ``{'vital': 1.0, 'okay': 0.5}``
        (the TREC 2024 RAG track's); numeric importances are their own weights.
    empty
        The value of a score whose denominator is 0 (a query without vital nuggets for V,
        or with zero total weight for W): ``"zero"`` (default: nuggetizer's 0.0) or
        ``"nan"`` (undefined; meta-evaluations then see a missing value).
    missing
        A (system, query) without any assignment (the system gave no answer, or none was
        judged) when other systems have one for the query: ``"zero"`` (default: every
        score 0, as for a query a run does not answer in :func:`pdireval.evaluate`; ``nan``
        where the denominator is 0 and ``empty="nan"``) or ``"drop"`` (no row: nuggetizer
        scores only the answers it is given). With judges, an answer that some judge
        assessed is scored for the judges who assessed it only.
    columns
        Optional mapping ``{canonical name: your column name}`` for ``assignments``
        (validate the nuggets first with :func:`pdireval.validate_nuggets` to map theirs).

    Returns
    -------
    DataFrame
        A scores frame like :func:`pdireval.evaluate`'s: ``[judge,] system, query, measure,
        value``: ``judge`` (a grouping key, present when the assignments have judges),
        ``system``, ``query``, ``measure`` (the canonical names) and ``value`` (float64).
        Sorted by judge, system, query (natural order), then measure in the order given.

    Raises
    ------
    SchemaError
        The assignments or nuggets break a rule of :func:`pdireval.validate_assignments` /
        :func:`pdireval.validate_nuggets`; an assignment of a nugget the nuggets frame
        lacks; an answer missing a label for some nugget of its query; no importance
        (neither ``nuggets=`` nor an ``importance`` column); the same nugget with different
        importances.
    MeasureError
        An unknown score name, or ``V`` / ``V_strict`` with numeric importances.
    OptionError
        ``empty=``, ``missing=`` or ``weights=`` invalid.

    References
    ----------
    Pradeep, R., Thakur, N., Upadhyay, S., Campos, D., Craswell, N., & Lin, J. (2024).
    Initial nugget evaluation results for the TREC 2024 RAG track with the AutoNuggetizer
    framework. arXiv:2411.09607.

    Voorhees, E. M. (2003). Overview of the TREC 2003 question answering track. TREC 2003.
    """
    check_option("empty", empty, EMPTY)
    check_option("missing", missing, MISSING)
    coded = code_assignments(assignments, columns)
    if nuggets is not None:
        units = _units_from_nuggets(coded, validate_nuggets(nuggets))
    else:
        units = _units_from_assignments(coded)
    default = None if units.graded else ["A", "A_strict", "W", "W_strict"]
    names = resolve_names(measures if measures is not None else default, NUGGET_MEASURES, "nugget")
    if not units.graded and {"V", "V_strict"} & set(names):
        raise MeasureError(
            "V and V_strict count the vital nuggets, but the nuggets' importances are numbers "
            "(weights), not 'vital' / 'okay'. Ask for A, A_strict, W or W_strict, or give "
            "vital / okay importances."
        )
    weight = _weights(units, weights)
    grid = Grid(coded)
    if units.per_query is not None:
        _check_complete(coded, grid, units)
    seg, unit, value = _unit_labels(grid.seg, units.row_unit, coded.label, units.rule)
    q_units = np.bincount(units.query, minlength=grid.n_query)
    q_vital = np.bincount(units.query, weights=units.vital, minlength=grid.n_query)
    q_weight = np.bincount(units.query, weights=weight, minlength=grid.n_query)
    if units.graded:
        sums = _graded_sums(grid.n_seg, seg, units.vital[unit], value, weight, units.vital)
    else:
        sums = _weighted_sums(grid.n_seg, seg, value, weight[unit])
    per_query = {"A": q_units, "V": q_vital, "W": q_weight}
    table = {name: (*sums[name], per_query[name[0]]) for name in names}
    keys, values = ratios(grid, table, empty=empty, missing=missing)
    return to_scores(grid, keys, values)


def _graded_sums(n_seg, seg, vital, value, weight, unit_vital):
    """Numerator and denominator per segment of every score, vital / okay nuggets: one
    count per (segment, level, label) gives them all (labels are 0, 0.5 or 1)."""
    level = vital.astype(np.int64)  # 1 vital, 0 okay
    grade = (value * 2.0).astype(np.int64)  # 0 not, 1 partial, 2 support
    counts = np.bincount((seg * 2 + level) * 3 + grade, minlength=n_seg * 6)
    counts = counts.reshape(n_seg, 2, 3).astype(np.float64)
    strict = counts[:, :, 2]  # per level: support counts 1, partial 0
    full = strict + 0.5 * counts[:, :, 1]  # support 1, partial 0.5
    total = counts.sum(axis=2)
    w_okay = float(weight[unit_vital == 0.0][0]) if (unit_vital == 0.0).any() else 0.0
    w_vital = float(weight[unit_vital == 1.0][0]) if (unit_vital == 1.0).any() else 0.0
    w = np.array([w_okay, w_vital])
    return {
        "A": (full.sum(axis=1), total.sum(axis=1)),
        "A_strict": (strict.sum(axis=1), total.sum(axis=1)),
        "V": (full[:, 1], total[:, 1]),
        "V_strict": (strict[:, 1], total[:, 1]),
        "W": (full @ w, total @ w),
        "W_strict": (strict @ w, total @ w),
    }


def _weighted_sums(n_seg, seg, value, w):
    """Numerator and denominator per segment of every score, numeric importances."""
    strict = (value == 1.0).astype(np.float64)
    count = np.bincount(seg, minlength=n_seg).astype(np.float64)
    weight = np.bincount(seg, weights=w, minlength=n_seg)
    return {
        "A": (np.bincount(seg, weights=value, minlength=n_seg), count),
        "A_strict": (np.bincount(seg, weights=strict, minlength=n_seg), count),
        "W": (np.bincount(seg, weights=value * w, minlength=n_seg), weight),
        "W_strict": (np.bincount(seg, weights=strict * w, minlength=n_seg), weight),
    }


def _weights(units: Units, weights: Mapping[str, float] | None) -> np.ndarray:
    """Per unit, its weight in W."""
    if not units.graded:
        if weights is not None:
            raise OptionError(
                "weights= maps the levels 'vital' / 'okay' to weights, but the nuggets' "
                "importances are already numbers (their own weights): drop weights=."
            )
        return units.importance
    table = dict(weights) if isinstance(weights, Mapping) else DEFAULT_WEIGHTS
    if not isinstance(weights, (Mapping, type(None))) or set(table) != set(DEFAULT_WEIGHTS):
        raise OptionError(
            f"weights= must be a mapping with the keys 'vital' and 'okay', got {weights!r}."
        )
    for key, w in table.items():
        try:
            ok = np.isfinite(float(w)) and float(w) >= 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise OptionError(f"weights={{{key!r}: {w!r}}}: a weight is a finite number >= 0.")
    return np.where(units.vital == 1.0, float(table["vital"]), float(table["okay"]))


def _assignment_rows(coded: Coded, rows: np.ndarray) -> pd.DataFrame:
    """The given assignment rows as a readable frame (for error messages)."""
    data: dict[str, np.ndarray] = {}
    for name in ("judge", "system", "query", "nugget"):
        if name in coded.codes:
            data[name] = coded.ids[name].take(coded.codes[name][rows]).to_numpy(dtype=object)
    data["label"] = coded.label[rows]
    return pd.DataFrame(data)


def _units_from_assignments(coded: Coded) -> Units:
    """The nuggets as the assignments give them: (query, nugget) pairs with the rows'
    importance, which must agree across the rows of a nugget."""
    if coded.importance is None:
        raise SchemaError(
            "the nugget scores need each nugget's importance ('vital' / 'okay' or a weight), "
            "and the assignments have no 'importance' column. Pass nuggets= (a frame with "
            "query, nugget, importance), or add the importance to each assignment row."
        )
    n_nug = max(len(coded.ids["nugget"]), 1)
    key = coded.codes["query"] * n_nug + coded.codes["nugget"]
    space = len(coded.ids["query"]) * n_nug
    uniq, row_unit = compact(key, space)
    imp = coded.importance
    low = np.empty(len(uniq))
    low[row_unit] = imp  # one row's importance per nugget: every row must agree with it
    bad = imp != low[row_unit]
    if bad.any():
        same_unit = np.isin(row_unit, row_unit[bad])
        rows = _assignment_rows(coded, np.flatnonzero(same_unit)).assign(importance=imp[same_unit])
        raise SchemaError(
            f"the assignments give the rows of {len(np.unique(row_unit[bad]))} (query, nugget) "
            f"different importances:{_show(rows)}\nA nugget has one importance: fix those "
            "rows, or pass nuggets= with one row per nugget.",
            failure_cases=rows,
        )
    query = (uniq // max(n_nug, 1)).astype(np.int64)
    vital = low if coded.graded else np.zeros(len(uniq))
    return Units(
        row_unit.astype(np.int64),
        query,
        vital,
        low,
        np.zeros(len(uniq), np.int8),
        coded.graded,
        None,
    )


def _units_from_nuggets(coded: Coded, nug: pd.DataFrame) -> Units:
    """The units of a canonical nuggets frame, each assignment row mapped to its nugget."""
    qids, nids = coded.ids["query"], coded.ids["nugget"]
    nq = np.asarray(qids.get_indexer(nug["query"]), dtype=np.int64)
    nn = np.asarray(nids.get_indexer(nug["nugget"]), dtype=np.int64)
    unused = nq < 0
    if unused.any():
        lost = pd.unique(nug["query"][unused].to_numpy(dtype=object))
        shown = ", ".join(repr(str(q)) for q in lost[:5]) + (", ..." if len(lost) > 5 else "")
        warnings.warn(
            f"{len(lost)} query(ies) of the nuggets frame have no assignment at all ({shown}): "
            "they are left out of the scores. Pass only the nuggets of the assessed queries, "
            "or add the missing assignments.",
            PdirevalWarning,
            stacklevel=3,
        )
    imp, graded = code_importance(nug["importance"].astype(object), "nuggets", nug)
    width = len(nids) + 1
    nug_key = nq * width + (nn + 1)  # nn = -1: a nugget no assignment names
    row_key = coded.codes["query"] * width + coded.codes["nugget"] + 1
    row_nug = pd.Index(nug_key).get_indexer(row_key)
    lacking = row_nug < 0
    if lacking.any():
        rows = _assignment_rows(coded, np.flatnonzero(lacking))
        raise SchemaError(
            f"{int(lacking.sum())} assignment(s) name a nugget that the nuggets frame does not "
            f"have for their query:{_show(rows)}\nEvery assigned nugget must be in nuggets=: "
            "add it there (with its importance), or drop those assignments.",
            failure_cases=rows,
        )
    if coded.importance is not None:
        differ = (coded.importance != imp[row_nug]) | (coded.graded != graded)
        if differ.any():
            rows = _assignment_rows(coded, np.flatnonzero(differ))
            raise SchemaError(
                f"{int(differ.sum())} assignment(s) carry an importance other than their "
                f"nugget's in nuggets=:{_show(rows)}\nDrop the assignments' 'importance' "
                "column (nuggets= gives it), or make the two agree.",
                failure_cases=rows,
            )
    kept = ~unused
    unit_of_nug = np.full(len(nug), -1, dtype=np.int64)
    rule = np.zeros(len(nug), dtype=np.int8)
    if "group" in nug.columns:
        in_group = nug["group"].notna().to_numpy()
        rule[in_group] = np.where(nug["rule"][in_group].to_numpy(dtype=object) == "and", 1, 2)
        pair = pd.MultiIndex.from_arrays(
            [nq, np.where(in_group, nug["group"].astype(object).fillna("").to_numpy(), "")]
        )
        group_code = pd.factorize(pair)[0]
        solo = np.arange(len(nug)) + group_code.max() + 1
        raw = np.where(in_group, group_code, solo)
    else:
        raw = np.arange(len(nug))
    codes, first = np.unique(raw[kept], return_index=True)
    unit_of_nug[kept] = np.searchsorted(codes, raw[kept])
    members = np.flatnonzero(kept)[first]  # one nugget row per unit
    per_query = np.bincount(nq[kept], minlength=len(qids))
    vital = imp[members] if graded else np.zeros(len(members))
    return Units(
        unit_of_nug[row_nug], nq[members], vital, imp[members], rule[members], graded, per_query
    )


def _check_complete(coded: Coded, grid: Grid, units: Units) -> None:
    """Every answer has a label for every nugget of its query (nuggets= given)."""
    assert units.per_query is not None  # nuggets= given
    have = np.bincount(grid.seg, minlength=grid.n_seg)
    expect = units.per_query[grid.seg_query]
    short = grid.present & (have != expect)
    if short.any():
        where = np.flatnonzero(short)
        table = grid.describe(grid.seg_key[where]).assign(
            assigned=have[where], nuggets=expect[where]
        )
        raise SchemaError(
            f"{len(where)} answer(s) lack a label for some nuggets of their query (the "
            f"nuggets frame has more nuggets than they were assigned):{_show(table)}\n"
            "Label every nugget of the query (e.g. 'not_support' for a nugget the answer "
            "misses), or leave nuggets= out to score each answer over the nuggets it was "
            "assigned (nuggetizer's reading).",
            failure_cases=table,
        )


def _unit_labels(seg, row_unit, label, rule):
    """(segment, unit, value) per scored unit: rows of a nugget alone as they are, the rows
    of a group combined per answer (AND: minimum, OR: maximum)."""
    grouped = rule[row_unit] > 0
    if not grouped.any():
        return seg, row_unit, label
    n_units = len(rule)
    key = seg[grouped].astype(np.int64) * n_units + row_unit[grouped]
    frame = pd.DataFrame({"key": key, "value": label[grouped]})
    by = frame.groupby("key", sort=True)["value"]
    low, high = by.min(), by.max()
    g_key = low.index.to_numpy()
    g_unit = g_key % n_units
    g_value = np.where(rule[g_unit] == 1, low.to_numpy(), high.to_numpy())
    return (
        np.concatenate([seg[~grouped], g_key // n_units]),
        np.concatenate([row_unit[~grouped], g_unit]),
        np.concatenate([label[~grouped], g_value]),
    )
