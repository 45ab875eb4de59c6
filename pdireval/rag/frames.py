"""The three RAG frame kinds: nuggets, assignments and support, validated into canonical copies.

=============  ===========================================  ==================================
kind           columns                                      key
=============  ===========================================  ==================================
nuggets        ``query, nugget, importance[, text,          (query, nugget)
               group, rule]``
assignments    ``system, query, nugget, label[, judge,      (system, query, nugget[, judge])
               importance]``
support        ``system, query, sentence, doc, label         (system, query, sentence, doc
               [, judge]``                                  [, judge])
=============  ===========================================  ==================================

Labels are read into numbers (float64): an assignment's ``'support'`` / ``'partial_support'`` /
``'not_support'`` (:data:`NUGGET_LABELS`) and a citation's ``'full_support'`` /
``'partial_support'`` / ``'no_support'`` (:data:`SUPPORT_LABELS`, also Thakur et al.'s
``FS`` / ``PS`` / ``NS``) become 1, 0.5 and 0; numbers 1, 0.5 and 0 (and booleans) are taken
as they are. The producing tools' column spellings (``qid``, ``topic_id``, ``run_id``,
``nugget_id``, ``assignment``, ``sentence_id``, ``reference``, ``support``, ...) are recognised
as for runs and qrels (:mod:`pdireval.core.recognize`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, as_ids, check_frame, rename_columns, require_columns
from pdireval.core.segments import natural_order
from pdireval.errors import SchemaError, show_rows

if TYPE_CHECKING:
    from pdireval.types import Columns

__all__ = [
    "NUGGET_LABELS",
    "SUPPORT_LABELS",
    "IMPORTANCE",
    "RULES",
    "Coded",
    "code_ids",
    "compact",
    "code_assignments",
    "code_support",
    "validate_nuggets",
    "validate_assignments",
    "validate_support",
]

#: an assignment's label -> its value (nuggetizer's spellings; 2-grade mode: no partial)
NUGGET_LABELS: dict[str, float] = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
#: a citation's support label -> its value (Thakur et al. 2025: full / partial / no support)
SUPPORT_LABELS: dict[str, float] = {
    "full_support": 1.0,
    "partial_support": 0.5,
    "no_support": 0.0,
    "fs": 1.0,
    "ps": 0.5,
    "ns": 0.0,
}
#: the importance levels of a nugget (Voorhees 2003): vital or okay
IMPORTANCE = ("vital", "okay")
#: how the sub-nuggets of a group combine: all of them (min) or any of them (max)
RULES = ("and", "or")
#: the values a numeric label may take
_LABEL_VALUES = (0.0, 0.5, 1.0)


# --------------------------------------------------------------------------- coding


def code_ids(
    series: pd.Series, name: str, kind: str, frame: pd.DataFrame, *, allow_missing: bool = False
) -> tuple[np.ndarray, pd.Index]:
    """Identifiers as integer codes and their distinct values (strings), in one pass.

    Returns ``(codes, uniques)``: ``codes`` int64 (-1 = missing, only with ``allow_missing``),
    ``uniques`` the distinct ids as text (pdireval's id type); ids read alike (``1``, ``1.0``
    and ``"1"``) share one code. Missing ids without ``allow_missing`` are a SchemaError.
    """
    try:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
    except TypeError:  # unhashable values (lists): as_ids names them
        as_ids(series, name, kind, frame)
        raise
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes < 0
    if missing.any() and not allow_missing:
        rows = frame[missing]
        raise SchemaError(
            f"the {kind} column '{name}' has {int(missing.sum())} missing value(s):"
            f"{show_rows(rows)}\nEvery row needs a {name} id: drop or fill those rows.",
            failure_cases=rows,
        )
    text = as_ids(pd.Series(uniques, dtype=object), name, kind)
    merged, final = pd.factorize(text)
    if len(final) < len(uniques):  # ids read alike ("1" and 1) share a code
        merged = np.asarray(merged, dtype=np.int64)
        codes = np.where(missing, -1, merged[np.maximum(codes, 0)]) if len(codes) else codes
    return codes, pd.Index(final, dtype=ID_DTYPE)


def _label_value(value, vocabulary: Mapping[str, float]) -> float | None:
    """The number a label stands for, or None when it is outside the vocabulary."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, str):
        key = value.strip().lower()
        if key in vocabulary:
            return vocabulary[key]
        try:
            value = float(key)
        except ValueError:
            return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number in _LABEL_VALUES else None


def code_labels(
    series: pd.Series,
    vocabulary: Mapping[str, float],
    kind: str,
    frame: pd.DataFrame,
    *,
    allow_missing: bool = False,
) -> np.ndarray:
    """A label column as float64 values 1 / 0.5 / 0 (NaN = missing, only with
    ``allow_missing``); a label outside the vocabulary is a SchemaError naming it."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    values = np.array([_label_value(u, vocabulary) for u in uniques], dtype=object)
    unknown = np.array([v is None for v in values], dtype=bool)
    if unknown.any():
        bad = unknown[codes] & (codes >= 0)
        rows = frame[bad]
        names = ", ".join(repr(w) for w in vocabulary if len(w) > 2)
        if "fs" in vocabulary:
            names += " (or 'FS', 'PS', 'NS')"
        found = ", ".join(repr(u) for u in list(uniques[unknown])[:5])
        hint = ""
        if any(_is_two(u) for u in uniques[unknown]):
            hint = (
                " The TREC 2024 RAG support files write 2 / 1 / 0 for full / partial / no "
                "support: map them first, e.g. df['support'].map({2: 1.0, 1: 0.5, 0: 0.0}) "
                "(or read the file with pdireval.read_support, which does)."
            )
        raise SchemaError(
            f"the {kind} column 'label' has {int(bad.sum())} label(s) outside the vocabulary "
            f"(found {found}):{show_rows(rows)}\nA label is one of {names} (any case), or the "
            f"number 1, 0.5 or 0: fix or drop those rows.{hint}",
            failure_cases=rows,
        )
    table = np.append(values.astype(np.float64), np.nan)  # code -1 -> NaN
    label = table[np.asarray(codes, dtype=np.int64)]
    if not allow_missing and (codes < 0).any():
        rows = frame[codes < 0]
        raise SchemaError(
            f"the {kind} column 'label' has {int((codes < 0).sum())} missing label(s):"
            f"{show_rows(rows)}\nEvery row needs a label: fill or drop those rows.",
            failure_cases=rows,
        )
    return label


def _is_two(value) -> bool:
    try:
        return float(value) == 2.0
    except (TypeError, ValueError):
        return False


def _key(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """One int64 per row identifying its combination of codes (all codes >= 0)."""
    key = np.zeros(len(codes[0]), dtype=np.int64)
    for c, n in zip(codes, sizes):
        key = key * max(n, 1) + c
    return key


def compact(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct keys ascending, per row the index of its key)``, as ``np.unique`` with
    ``return_inverse``, without sorting when the key space is small (a bincount)."""
    if space <= 4 * len(key) + 1_000_000:
        seen = np.bincount(key, minlength=space) > 0
        return np.flatnonzero(seen), (np.cumsum(seen) - 1)[key]
    uniq, inverse = np.unique(key, return_inverse=True)
    return uniq, inverse.reshape(-1)


def _key_space(sizes: list[int]) -> int:
    total = 1
    for n in sizes:
        total *= max(n, 1)
    return total


def _duplicates(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """Rows whose combination of codes occurs more than once (bincount or sort, no loop)."""
    n = len(codes[0])
    if n == 0:
        return np.zeros(0, dtype=bool)
    space = _key_space(sizes)
    if space < 2**62:
        key = _key(codes, sizes)
        if space <= 4 * n + 1_000_000:
            counts = np.bincount(key, minlength=space)
            if counts.max() <= 1:
                return np.zeros(n, dtype=bool)
            return counts[key] > 1
        if pd.Index(key).is_unique:  # a hash table: no sort
            return np.zeros(n, dtype=bool)
        return pd.Series(key).duplicated(keep=False).to_numpy()
    frame = pd.DataFrame({i: c for i, c in enumerate(codes)})
    return frame.duplicated(keep=False).to_numpy()


def _merge_duplicates(
    codes: list[np.ndarray],
    sizes: list[int],
    label: np.ndarray,
    kind: str,
    key_names: list[str],
    frame: pd.DataFrame,
) -> np.ndarray | None:
    """Rows to keep (None: all): exact duplicates of a key collapse to one row; the same key
    with different labels is a SchemaError naming the rows."""
    dup = _duplicates(codes, sizes)
    if not dup.any():
        return None
    idx = np.flatnonzero(dup)
    sub = pd.DataFrame({i: c[idx] for i, c in enumerate(codes)})
    sub["label"] = np.nan_to_num(label[idx], nan=-1.0)
    conflict = idx[_varies(sub, list(range(len(codes))), ["label"])]
    if len(conflict):
        rows = frame.iloc[conflict]
        what = ", ".join(key_names)
        raise SchemaError(
            f"the {kind} frame gives {len(conflict)} rows sharing a ({what}) key different "
            f"labels:{show_rows(rows)}\nEach ({what}) has one label: decide which is right "
            "and drop the other rows (for several judges, give each its own 'judge' value).",
            failure_cases=rows,
        )
    keep = np.ones(len(label), dtype=bool)
    keep[idx[sub.duplicated(list(range(len(codes)))).to_numpy()]] = False
    return keep


# --------------------------------------------------------------------------- importance


def code_importance(series: pd.Series, kind: str, frame: pd.DataFrame) -> tuple[np.ndarray, bool]:
    """``(values, graded)``: ``graded`` True for vital / okay levels (values 1.0 = vital,
    0.0 = okay), False for numeric weights (values the weights, finite and >= 0). A missing
    importance, an unknown level or a mix of levels and numbers is a SchemaError."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    if (codes < 0).any():
        rows = frame[codes < 0]
        raise SchemaError(
            f"the {kind} frame has {int((codes < 0).sum())} nugget(s) with no importance:"
            f"{show_rows(rows)}\nEvery nugget needs an importance: 'vital' or 'okay', or a "
            "number (its weight). Fill those rows (or drop the nuggets).",
            failure_cases=rows,
        )
    levels: list[float | None] = []
    numbers: list[float | None] = []
    for u in uniques:
        if isinstance(u, str) and u.strip().lower() in IMPORTANCE:
            levels.append(1.0 if u.strip().lower() == "vital" else 0.0)
            numbers.append(None)
            continue
        levels.append(None)
        number: float | None
        try:
            number = float(u)
        except (TypeError, ValueError):
            number = None
        numbers.append(number if number is not None and np.isfinite(number) else None)
    graded = [v is not None for v in levels]
    numeric = [v is not None and v >= 0 for v in numbers]
    bad = np.array([not (g or n) for g, n in zip(graded, numeric)], dtype=bool)
    if bad.any() or (any(graded) and any(numeric)):
        rows_bad = bad[codes] if bad.any() else np.array(numeric, dtype=bool)[codes]
        rows = frame[rows_bad]
        what = (
            "an importance that is neither 'vital' / 'okay' nor a finite number >= 0"
            if bad.any()
            else "numeric importances beside 'vital' / 'okay' levels"
        )
        raise SchemaError(
            f"the {kind} frame has {int(rows_bad.sum())} nugget(s) with {what}:"
            f"{show_rows(rows)}\nAn importance is 'vital' or 'okay' (any case) on every "
            "nugget, or a weight (a number >= 0) on every nugget: fix those rows.",
            failure_cases=rows,
        )
    if all(graded):
        return np.array(levels, dtype=np.float64)[codes], True
    return np.array(numbers, dtype=np.float64)[codes], False


def importance_column(values: np.ndarray, graded: bool) -> pd.Series:
    """The canonical ``importance`` column: ``'vital'`` / ``'okay'`` or float64 weights."""
    if graded:
        return pd.Series(np.where(values == 1.0, "vital", "okay"), dtype=ID_DTYPE)
    return pd.Series(values, dtype=np.float64)


# --------------------------------------------------------------------------- nuggets


def validate_nuggets(nuggets: pd.DataFrame, *, columns: Columns = None) -> pd.DataFrame:
    """Validate a nuggets frame and return its canonical copy.

    A nugget is an atomic fact that a good answer to a query contains (Voorhees, 2003); its
    importance is ``'vital'`` (an answer must have it) or ``'okay'``, or a number used as its
    weight. Sub-nuggets that together make one nugget (NuggetBank's question-style nuggets)
    share a ``group`` with a ``rule``: ``'and'`` (the group is supported as far as its least
    supported member: the minimum of their labels) or ``'or'`` (as far as its best supported
    member: the maximum). A group counts once in the scores.

    Parameters
    ----------
    nuggets
        One row per nugget: ``query, nugget, importance``, optionally ``text`` and
        ``group`` + ``rule``. nuggetizer's and the TREC RAG files' spellings (``qid``,
        ``topic_id``, ``nugget_id``) are recognised; a ``query`` column beside ``qid`` is the
        query text and is dropped. A row with a ``group`` and no ``nugget`` declares the
        group only (it must have members).
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        ``query, nugget`` (strings), ``importance`` (``'vital'`` / ``'okay'`` as strings, or
        float64 weights), then ``text``, ``group`` and ``rule`` (``'and'`` / ``'or'``; both
        missing for a nugget outside any group) when given; one row per (query, nugget), in
        natural order of query then nugget.

    Raises
    ------
    SchemaError
        A missing column or id, a nugget with no importance, an importance outside
        ``vital`` / ``okay`` / a number >= 0, the same (query, nugget) with different
        importances or groups, a rule outside ``and`` / ``or``, a group without a rule (or
        a rule without a group), members of a group with different rules or importances, or
        a group with no members.

    References
    ----------
    Voorhees, E. M. (2003). Overview of the TREC 2003 question answering track. TREC 2003.
    """
    nuggets = check_frame(nuggets, "nuggets")
    frame = rename_columns(
        nuggets, columns, "nuggets", ("query", "nugget", "importance", "text", "group", "rule")
    )
    require_columns(frame, ("query", "nugget", "importance"), "nuggets", columns)
    frame = frame.reset_index(drop=True)
    if len(frame) == 0:
        raise SchemaError("the nuggets frame is empty: there are no nuggets to score.")
    has_group = "group" in frame.columns or "rule" in frame.columns
    if has_group and not {"group", "rule"} <= set(frame.columns):
        have, lack = ("group", "rule") if "group" in frame.columns else ("rule", "group")
        raise SchemaError(
            f"the nuggets frame has a '{have}' column but no '{lack}' column: sub-nuggets "
            "combine by a group and a rule ('and': all members, 'or': any member). Add the "
            f"'{lack}' column (or drop '{have}')."
        )
    declared = np.zeros(len(frame), dtype=bool)
    if has_group:
        declared = (frame["nugget"].isna() & frame["group"].notna()).to_numpy()
    body = frame[~declared].reset_index(drop=True)
    q_codes, queries = code_ids(body["query"], "query", "nuggets", body)
    n_codes, names = code_ids(body["nugget"], "nugget", "nuggets", body)
    importance, graded = code_importance(body["importance"], "nuggets", body)
    data = {
        "query": queries.take(q_codes),
        "nugget": names.take(n_codes),
        "importance": importance_column(importance, graded),
    }
    if "text" in body.columns:
        data["text"] = body["text"].astype(ID_DTYPE)
    if has_group:
        group, rule = _groups(frame, body, declared, q_codes, queries, importance)
        data["group"], data["rule"] = group, rule
    out = pd.DataFrame({k: pd.Series(v).reset_index(drop=True) for k, v in data.items()})
    keep = _merge_nugget_duplicates(out, body)
    out = out[keep].reset_index(drop=True) if keep is not None else out
    order = _natural_rank(out["query"]) * (len(out) + 1) + _natural_rank(out["nugget"])
    return out.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)


def _natural_rank(values: pd.Series) -> np.ndarray:
    """Per row, the rank of its value in natural order (numeric ids as numbers)."""
    codes, uniques = pd.factorize(values)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[natural_order(uniques)] = np.arange(len(uniques))
    return rank[codes]


def _varies(frame: pd.DataFrame, keys: list, columns: list) -> np.ndarray:
    """Whether each row's group (rows sharing ``keys``) holds more than one value (NaN aside)
    in one of ``columns``."""
    n_values = frame.groupby(keys, sort=False)[columns].transform("nunique")
    return (n_values > 1).any(axis=1).to_numpy()


def _merge_nugget_duplicates(out: pd.DataFrame, body: pd.DataFrame) -> np.ndarray | None:
    dup = out.duplicated(["query", "nugget"], keep=False).to_numpy()
    if not dup.any():
        return None
    described = [c for c in ("importance", "group", "rule") if c in out.columns]
    sub = out[dup].astype({c: object for c in described}).fillna({c: "" for c in described})
    conflict = _varies(sub, ["query", "nugget"], described)
    if conflict.any():
        rows = body[dup][conflict]
        raise SchemaError(
            f"the nuggets frame describes {int(conflict.sum())} rows of the same (query, "
            f"nugget) differently (importance, group or rule):{show_rows(rows)}\nEach nugget "
            "of a query appears once: keep the right row and drop the others.",
            failure_cases=rows,
        )
    return ~out.duplicated(["query", "nugget"]).to_numpy()


def _groups(frame, body, declared, q_codes, queries, importance):
    """The canonical ``group`` and ``rule`` columns of the nugget rows (checked)."""
    rule_raw = body["rule"]
    in_group = body["group"].notna().to_numpy()
    has_rule = rule_raw.notna().to_numpy()
    if (in_group != has_rule).any():
        bad = in_group != has_rule
        rows = body[bad]
        raise SchemaError(
            f"the nuggets frame has {int(bad.sum())} row(s) with a group but no rule, or a "
            f"rule but no group:{show_rows(rows)}\nA sub-nugget names its group and the "
            "group's rule ('and' or 'or'); a nugget outside any group has neither.",
            failure_cases=rows,
        )
    rule = rule_raw.astype(object).where(~has_rule, rule_raw.astype(str).str.strip().str.lower())
    bad = has_rule & ~rule.isin(RULES).to_numpy()
    if bad.any():
        rows = body[bad]
        raise SchemaError(
            f"the nuggets column 'rule' has {int(bad.sum())} value(s) other than 'and' / "
            f"'or':{show_rows(rows)}\nA group's rule is 'and' (every member: the minimum of "
            "their labels) or 'or' (any member: the maximum).",
            failure_cases=rows,
        )
    group = pd.Series(pd.NA, index=body.index, dtype=ID_DTYPE)
    if in_group.any():
        g_codes, g_names = code_ids(body["group"][in_group], "group", "nuggets", body[in_group])
        group[in_group] = g_names.take(g_codes).to_numpy()
        members = pd.DataFrame(
            {
                "q": q_codes[in_group],
                "g": g_codes,
                "rule": rule[in_group].to_numpy(),
                "importance": importance[in_group],
            }
        )
        mixed = _varies(members, ["q", "g"], ["rule", "importance"])
        if mixed.any():
            rows = body[in_group][mixed]
            raise SchemaError(
                f"the nuggets frame has {int(mixed.sum())} member(s) of groups whose members "
                f"differ in rule or importance:{show_rows(rows)}\nThe members of a group share "
                "its rule and its importance (the group counts once, with that importance).",
                failure_cases=rows,
            )
    if declared.any():
        decl = frame[declared]
        have = set(zip(body["query"].astype(str)[in_group], body["group"].astype(str)[in_group]))
        empty = np.array(
            [(str(q), str(g)) not in have for q, g in zip(decl["query"], decl["group"])],
            dtype=bool,
        )
        if empty.any():
            rows = decl[empty]
            raise SchemaError(
                f"the nuggets frame declares {int(empty.sum())} group(s) with no members "
                f"(a group and no nugget, and no nugget of the group):{show_rows(rows)}\n"
                "Give each group its sub-nuggets (rows with the group and a nugget id), or "
                "drop the empty group.",
                failure_cases=rows,
            )
    return group, pd.Series(rule.to_numpy(), dtype=ID_DTYPE)


# --------------------------------------------------------------------------- assignments


@dataclass
class Coded:
    """A validated assignments or support frame as integer codes (no strings per row).

    ``codes[name]``: int64 per row (-1: a missing ``doc``, an uncited sentence); ``ids[name]``:
    the distinct ids of each code; ``label``: float64 1 / 0.5 / 0 per row (NaN: uncited);
    ``importance`` / ``graded``: the assignments' own importance column, if any (values as
    :func:`code_importance` gives them). Rows are the caller's, exact duplicates removed.
    """

    codes: dict[str, np.ndarray]
    ids: dict[str, pd.Index]
    label: np.ndarray
    importance: np.ndarray | None = None
    graded: bool = True

    @property
    def has_judge(self) -> bool:
        return "judge" in self.codes

    def frame(self, names: tuple[str, ...]) -> pd.DataFrame:
        """The canonical frame (columns ``names`` + ``label``), sorted by its key."""
        rank = {n: _code_rank(self.ids[n], n == "query") for n in names}
        order = np.lexsort(
            [
                np.where(self.codes[n] < 0, -1, rank[n][np.maximum(self.codes[n], 0)])
                for n in reversed(names)
            ]
        )
        data = {}
        for n in names:
            c = self.codes[n][order]
            col = self.ids[n].take(np.maximum(c, 0))
            data[n] = pd.Series(col).where(c >= 0) if (c < 0).any() else col
        data["label"] = self.label[order]
        if self.importance is not None:
            data["importance"] = importance_column(self.importance[order], self.graded)
        return pd.DataFrame(
            {k: pd.Series(v).reset_index(drop=True) for k, v in data.items()}
        ).astype({n: ID_DTYPE for n in names})


def _code_rank(ids: pd.Index, natural: bool) -> np.ndarray:
    """Per code, its rank: natural order for queries, sorted text for other ids."""
    order = natural_order(ids) if natural else np.argsort(ids.to_numpy(dtype=object))
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return rank


def _code_frame(frame, kind, names, vocabulary, *, doc_optional=False):
    judge = "judge" in frame.columns
    keys = [n for n in ("judge",) if judge] + list(names)
    codes, ids = {}, {}
    for n in keys:
        optional = doc_optional and n == "doc"
        codes[n], ids[n] = code_ids(frame[n], n, kind, frame, allow_missing=optional)
    label = code_labels(frame["label"], vocabulary, kind, frame, allow_missing=doc_optional)
    return keys, codes, ids, label


def code_assignments(assignments: pd.DataFrame, columns: Columns = None) -> Coded:
    """Validate an assignments frame into integer codes (:class:`Coded`); see
    :func:`validate_assignments` for the rules."""
    assignments = check_frame(assignments, "assignments")
    frame = rename_columns(
        assignments,
        columns,
        "assignments",
        ("system", "query", "nugget", "label", "judge", "importance"),
    )
    require_columns(frame, ("system", "query", "nugget", "label"), "assignments", columns)
    frame = frame.reset_index(drop=True)
    if len(frame) == 0:
        raise SchemaError("the assignments frame is empty: there is nothing to score.")
    keys, codes, ids, label = _code_frame(
        frame, "assignments", ("system", "query", "nugget"), NUGGET_LABELS
    )
    importance, graded = None, True
    if "importance" in frame.columns:
        importance, graded = code_importance(frame["importance"], "assignments", frame)
    keep = _merge_duplicates(
        [codes[k] for k in keys], [len(ids[k]) for k in keys], label, "assignments", keys, frame
    )
    if keep is not None:
        codes = {k: v[keep] for k, v in codes.items()}
        label = label[keep]
        importance = importance[keep] if importance is not None else None
    return Coded(codes, ids, label, importance, graded)


def validate_assignments(assignments: pd.DataFrame, *, columns: Columns = None) -> pd.DataFrame:
    """Validate a nugget assignments frame and return its canonical copy.

    An assignment says how far a system's answer to a query supports a nugget: ``'support'``
    (1), ``'partial_support'`` (0.5) or ``'not_support'`` (0), the labels of nuggetizer and
    the TREC 2024 RAG track (Pradeep et al., 2024); the 2-grade mode simply has no partial
    labels.

    Parameters
    ----------
    assignments
        One row per (system, query, nugget): ``system, query, nugget, label``, optionally
        ``judge`` (several judges side by side, e.g. an LLM and NIST assessors) and
        ``importance`` (the nugget's, as nuggetizer's files carry it). Labels are
        ``'support'`` / ``'partial_support'`` / ``'not_support'`` (any case) or the numbers
        1 / 0.5 / 0. Spellings recognised: ``qid`` / ``topic_id``, ``run_id``, ``nugget_id``,
        ``assignment``, ``judge_id``. Without a system column the frame holds one system,
        ``'run'``.
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        ``[judge,] system, query, nugget`` (strings), ``label`` (float64: 1, 0.5 or 0) and
        ``importance`` when given (``'vital'`` / ``'okay'`` or float64 weights); one row per
        key (exact duplicate rows merged), sorted by judge, system, query (natural order),
        nugget.

    Raises
    ------
    SchemaError
        A missing column or id, a label outside the vocabulary, or the same (system, query,
        nugget[, judge]) with different labels.

    References
    ----------
    Pradeep, R., Thakur, N., Upadhyay, S., Campos, D., Craswell, N., & Lin, J. (2024).
    Initial nugget evaluation results for the TREC 2024 RAG track with the AutoNuggetizer
    framework. arXiv:2411.09607.
    """
    coded = code_assignments(assignments, columns)
    names = (("judge",) if coded.has_judge else ()) + ("system", "query", "nugget")
    return coded.frame(names)


# --------------------------------------------------------------------------- support


def code_support(support: pd.DataFrame, columns: Columns = None) -> Coded:
    """Validate a support frame into integer codes (:class:`Coded`); see
    :func:`validate_support` for the rules."""
    support = check_frame(support, "support")
    frame = rename_columns(
        support, columns, "support", ("system", "query", "sentence", "doc", "label", "judge")
    )
    require_columns(frame, ("system", "query", "sentence", "doc", "label"), "support", columns)
    frame = frame.reset_index(drop=True)
    if len(frame) == 0:
        raise SchemaError("the support frame is empty: there is nothing to score.")
    keys, codes, ids, label = _code_frame(
        frame, "support", ("system", "query", "sentence", "doc"), SUPPORT_LABELS, doc_optional=True
    )
    uncited = codes["doc"] < 0
    labelled = ~np.isnan(label)
    bad = uncited & labelled
    if bad.any():
        rows = frame[bad]
        raise SchemaError(
            f"the support frame has {int(bad.sum())} row(s) citing nothing: a label but no "
            f"doc:{show_rows(rows)}\nA label judges a cited document; a sentence that cites "
            "nothing has neither doc nor label. Fill the doc, or clear the label.",
            failure_cases=rows,
        )
    bad = ~uncited & ~labelled
    if bad.any():
        rows = frame[bad]
        raise SchemaError(
            f"the support frame has {int(bad.sum())} citation(s) with no label:"
            f"{show_rows(rows)}\nEvery cited document needs a label (full / partial / no "
            "support, or 1 / 0.5 / 0): judge those citations or drop them.",
            failure_cases=rows,
        )
    sentence_keys = [k for k in keys if k != "doc"]
    sizes = [len(ids[k]) for k in sentence_keys]
    sentence = (
        _key([codes[k] for k in sentence_keys], sizes)
        if _key_space(sizes) < 2**62
        else pd.DataFrame({k: codes[k] for k in sentence_keys})
        .groupby(sentence_keys, sort=False)
        .ngroup()
        .to_numpy()
    )
    if uncited.any():
        _, s_codes = np.unique(sentence, return_inverse=True)
        s_codes = s_codes.reshape(-1)
        cited_any = np.bincount(s_codes, weights=~uncited, minlength=s_codes.max() + 1) > 0
        both = uncited & cited_any[s_codes]
        if both.any():
            rows = frame[both]
            raise SchemaError(
                f"the support frame marks {int(both.sum())} sentence(s) as citing nothing "
                f"(no doc) that also cite documents on other rows:{show_rows(rows)}\nA "
                "sentence either cites documents (one row per citation) or cites nothing "
                "(one row, no doc, no label): drop the uncited rows of cited sentences.",
                failure_cases=rows,
            )
    shifted = [codes[k] + 1 if k == "doc" else codes[k] for k in keys]
    sizes = [len(ids[k]) + (k == "doc") for k in keys]
    keep = _merge_duplicates(shifted, sizes, label, "support", keys, frame)
    if keep is not None:
        codes = {k: v[keep] for k, v in codes.items()}
        label = label[keep]
    return Coded(codes, ids, label)


def validate_support(support: pd.DataFrame, *, columns: Columns = None) -> pd.DataFrame:
    """Validate a citation support frame and return its canonical copy.

    Support says whether the document an answer sentence cites supports that sentence:
    full (1), partial (0.5) or no support (0), as judged in the TREC 2024 RAG track (Thakur
    et al., 2025). An uncited sentence is one row with no ``doc`` and no ``label``: it counts
    in the recall of :func:`pdireval.evaluate_support`.

    Parameters
    ----------
    support
        One row per (system, query, sentence, cited doc): ``system, query, sentence, doc,
        label``, optionally ``judge``. Labels are ``'full_support'`` / ``'partial_support'``
        / ``'no_support'`` or ``'FS'`` / ``'PS'`` / ``'NS'`` (any case), or the numbers
        1 / 0.5 / 0 (the TREC files' 2 / 1 / 0 must be mapped first: the error says how).
        Spellings recognised: ``topic_id``, ``run_id``, ``sentence_id`` / ``sentence_index``,
        ``reference`` (the cited document), ``support`` (the label).
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        ``[judge,] system, query, sentence, doc`` (strings; ``doc`` missing for an uncited
        sentence) and ``label`` (float64: 1, 0.5, 0; NaN for an uncited sentence), one row
        per key (exact duplicates merged), sorted by judge, system, query (natural order),
        sentence, doc (an uncited sentence's row first).

    Raises
    ------
    SchemaError
        A missing column or id (doc aside), a label outside the vocabulary, a row citing
        nothing (a label but no doc), a citation with no label, a sentence both uncited and
        cited, or the same (system, query, sentence, doc[, judge]) with different labels.

    References
    ----------
    Thakur, N., Pradeep, R., Upadhyay, S., Campos, D., Craswell, N., & Lin, J. (2025).
    Support evaluation for the TREC 2024 RAG track: comparing human versus LLM judges.
    SIGIR 2025.
    """
    coded = code_support(support, columns)
    names = (("judge",) if coded.has_judge else ()) + ("system", "query", "sentence", "doc")
    return coded.frame(names)
