"""Holes in the judgments: fill them from another judge, or bound a measure over them.

:func:`fill_holes` combines two judgment sets (e.g. human qrels with an LLM judge's labels
where no human judged, as in autoqrels), keeping where each label came from.
:func:`unjudged_bounds` (``evaluate(..., unjudged="bounds")``) gives, per (system, query,
measure), the value with every unjudged retrieved document non-relevant and with each at
the highest label: the range a measure can take given the holes of a run.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_qrels, canonical_run, one_judge
from pdireval.errors import PdirevalWarning, SchemaError, check_option
from pdireval.io import as_frame
from pdireval.measures.registry import build_measure

__all__ = ["fill_holes", "unjudged_bounds", "PREFER"]

PREFER = ("qrels", "other")


def fill_holes(
    qrels: pd.DataFrame,
    other: pd.DataFrame,
    *,
    prefer: str = "qrels",
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Combine two judgment sets: one's labels where it judged, the other's elsewhere.

    For every (query, doc) judged (a non-NaN label) by either frame, the label of the
    ``prefer``-red frame when it judged the pair, else the other frame's; a pair neither
    judged (NaN in one or both) stays NaN (pooled but unjudged). E.g. human qrels with an LLM
    judge's labels for the documents no assessor saw (MacAvaney & Soldaini 2023).

    Parameters
    ----------
    qrels, other
        Qrels frames (``query, doc, label``) of one judge each (or paths, as
        :func:`pdireval.evaluate` reads them).
    prefer
        ``"qrels"`` (default): ``qrels``'s label wins where both judged; ``"other"``: the
        other frame's.
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        ``query, doc`` (str), ``label`` (float64), ``source`` (str: ``"qrels"`` or
        ``"other"``, the frame the label comes from; for a NaN label, the preferred frame
        when it lists the pair), one row per (query, doc) of either frame, sorted by query
        then doc. It is a qrels frame (``evaluate`` ignores ``source``).

    Raises
    ------
    SchemaError
        Malformed qrels, or qrels of several judges (a ``judge`` column).

    References
    ----------
    MacAvaney, S., & Soldaini, L. (2023). One-Shot Labeling for Automatic Relevance
    Estimation. SIGIR 2023.
    """
    check_option("prefer", prefer, PREFER)
    a = one_judge(canonical_qrels(as_frame(qrels, "qrels"), columns), "fill_holes")
    b = one_judge(canonical_qrels(as_frame(other, "qrels"), columns), "fill_holes")
    for frame in (a, b):
        if "subtopic" in frame.columns:
            raise SchemaError(
                "fill_holes combines qrels of (query, doc) labels; these have a 'subtopic' "
                "column. Fill the holes per subtopic, or drop the column first."
            )
    first, second = (a, b) if prefer == "qrels" else (b, a)
    names = ("qrels", "other") if prefer == "qrels" else ("other", "qrels")
    merged = first.merge(second, on=["query", "doc"], how="outer", suffixes=("_1", "_2"),
                         indicator=True)
    l1 = merged["label_1"].to_numpy(dtype=np.float64)
    l2 = merged["label_2"].to_numpy(dtype=np.float64)
    in_first = merged["_merge"].to_numpy(dtype=object) != "right_only"
    take_first = ~np.isnan(l1) | (np.isnan(l2) & in_first)
    out = pd.DataFrame({
        "query": merged["query"].astype(ID_DTYPE),
        "doc": merged["doc"].astype(ID_DTYPE),
        "label": np.where(take_first, l1, l2),
        "source": pd.array(np.where(take_first, names[0], names[1]), dtype=ID_DTYPE),
    })
    return out.sort_values(["query", "doc"], kind="stable", ignore_index=True)


def _residual_of(m):
    """The RBPResidual measure matching an RBP measure's persistence, cut-off and readings."""
    params = {k: v for k, v in m.params if k != "rel"}
    return build_measure("RBPResidual", params, m.cutoff)


def unjudged_bounds(run, parsed, qrels, scores: pd.DataFrame, *, columns=None, order="score",
                    score_precision="float32", missing="zero") -> pd.DataFrame:
    """``scores`` (evaluate's frame of ``run`` on ``qrels``) with ``value_low`` and
    ``value_high``: see :func:`pdireval.evaluate`'s ``unjudged="bounds"``.

    Each (system, query) with unjudged retrieved documents becomes its own query whose
    judgments are the query's qrels plus that system's unjudged retrieved documents at one
    label (0, then the highest label), so one evaluation per completion covers every
    system at once; the other pairs have no hole (low = high = value).
    """
    from pdireval.evaluation import evaluate

    run = canonical_run(run, columns)
    judged = qrels["label"].notna().to_numpy()
    top = float(qrels["label"].to_numpy()[judged].max()) if judged.any() else 0.0
    # retrieved documents of judged queries without a label: absent from qrels, or NaN
    key = pd.MultiIndex.from_arrays([qrels["query"], qrels["doc"]])
    row = key.get_indexer(pd.MultiIndex.from_arrays([run["query"], run["doc"]]))
    judged_query = run["query"].isin(qrels["query"].unique()).to_numpy()
    holes = judged_query & ((row < 0) | ~judged[np.maximum(row, 0)])
    seg_code, seg_keys = pd.MultiIndex.from_arrays([run["system"], run["query"]]).factorize()
    has_hole = np.zeros(len(seg_keys), dtype=bool)
    has_hole[seg_code[holes]] = True
    low = scores["value"].to_numpy(dtype=np.float64).copy()
    high = low.copy()
    if has_hole.any():
        # pseudo-queries: one per (system, query) with a hole, named by its code
        pairs = np.flatnonzero(has_hole)
        pair_query = seg_keys.get_level_values(1)[pairs]
        pseudo = np.full(len(seg_keys), -1, dtype=np.int64)
        pseudo[pairs] = np.arange(len(pairs))
        rows = np.flatnonzero(has_hole[seg_code])
        sub_run = pd.DataFrame({
            "system": run["system"].to_numpy(dtype=object)[rows],
            "query": pseudo[seg_code[rows]].astype(str),
            "doc": run["doc"].to_numpy(dtype=object)[rows],
        })
        for c in ("score", "rank"):
            if c in run.columns:
                sub_run[c] = run[c].to_numpy()[rows]
        # every pair's query qrels (vectorised repeat of each query's row range)
        q_codes, q_ids = pd.factorize(qrels["query"])
        order_rows = np.argsort(q_codes, kind="stable")
        counts = np.bincount(q_codes, minlength=len(q_ids))
        starts = np.concatenate([[0], np.cumsum(counts)])
        pq = pd.Index(q_ids).get_indexer(pair_query)
        n_rows = counts[pq]
        offsets = np.repeat(starts[pq] - np.concatenate([[0], np.cumsum(n_rows)[:-1]]), n_rows)
        take = order_rows[np.arange(int(n_rows.sum())) + offsets]
        base = pd.DataFrame({
            "query": np.repeat(np.arange(len(pairs)), n_rows).astype(str),
            "doc": qrels["doc"].to_numpy(dtype=object)[take],
            "label": qrels["label"].to_numpy(dtype=np.float64)[take],
        })
        hole_rows = np.flatnonzero(holes & has_hole[seg_code])
        filled = pd.DataFrame({
            "query": pseudo[seg_code[hole_rows]].astype(str),
            "doc": run["doc"].to_numpy(dtype=object)[hole_rows],
        })
        # a NaN-labelled pooled row is replaced by the completion's label
        base = base[base["label"].notna().to_numpy()]
        values = {}
        for name, label in (("zero", 0.0), ("top", top)):
            completed = pd.concat([base, filled.assign(label=label)], ignore_index=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PdirevalWarning)
                values[name] = evaluate(sub_run, parsed, qrels=completed, missing="drop",
                                        order=order, score_precision=score_precision)
        # back to the (system, query) rows of scores
        target = pd.MultiIndex.from_arrays([scores["system"].to_numpy(dtype=object),
                                            scores["query"].to_numpy(dtype=object),
                                            scores["measure"].to_numpy(dtype=object)])
        for name in ("zero", "top"):
            v = values[name]
            pair = v["query"].to_numpy(dtype=object).astype(np.int64)
            where = pd.MultiIndex.from_arrays([v["system"].to_numpy(dtype=object),
                                               np.asarray(pair_query, dtype=object)[pair],
                                               v["measure"].to_numpy(dtype=object)])
            pos = where.get_indexer(target)
            found = pos >= 0
            values[name] = (found, v["value"].to_numpy(dtype=np.float64)[np.maximum(pos, 0)])
        found, zero = values["zero"]
        _, full = values["top"]
        low = np.where(found, np.minimum(zero, full), low)
        high = np.where(found, np.maximum(zero, full), high)
    out = scores.copy()
    out["value_low"] = low
    out["value_high"] = high
    # RBP: Moffat & Zobel's bounds, RBP and RBP + residual (the residual also counts the
    # ranks past the end of the list, which no completion of the retrieved labels reaches)
    rbp = [m for m in parsed if m.name == "RBP"]
    if rbp:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdirevalWarning)
            resid = evaluate(run, [_residual_of(m) for m in rbp], qrels=qrels, missing=missing,
                             columns=columns, order=order, score_precision=score_precision)
        for m, r in zip(rbp, [_residual_of(m) for m in rbp]):
            rows = (out["measure"] == str(m)).to_numpy()
            part = resid[resid["measure"] == str(r)]
            where = pd.MultiIndex.from_arrays([part["system"], part["query"]])
            pos = where.get_indexer(pd.MultiIndex.from_arrays([out["system"][rows],
                                                               out["query"][rows]]))
            value = out["value"].to_numpy()[rows]
            out.loc[rows, "value_low"] = value
            out.loc[rows, "value_high"] = value + np.where(
                pos >= 0, part["value"].to_numpy()[np.maximum(pos, 0)], 0.0)
    return out
