"""Holes in the judgments: fill them from another judge.

:func:`fill_holes` combines two judgment sets (e.g. human qrels with an LLM judge's labels
where no human judged, as in autoqrels), keeping where each label came from. The range a
measure can take over the holes of a run is ``evaluate(..., unjudged="bounds")``
(:func:`pdireval.evaluation.unjudged_bounds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_qrels, check_frame, one_judge
from pdireval.errors import SchemaError, check_option
from pdireval.io import as_frame

if TYPE_CHECKING:
    from typing import Literal

__all__ = ["fill_holes", "PREFER"]

PREFER = ("qrels", "other")


def fill_holes(
    qrels: pd.DataFrame,
    other: pd.DataFrame,
    *,
    prefer: Literal["qrels", "other"] = "qrels",
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
    frames = []
    for name, given in (("qrels", qrels), ("other", other)):
        frame = check_frame(as_frame(given, "qrels"), "qrels")
        if len(frame) == 0:
            raise SchemaError(
                f"fill_holes: {name} is an empty frame (no judgment), so there is nothing "
                f"to {'fill' if name == 'qrels' else 'fill the holes with'}: pass the "
                "judgments of both judges."
            )
        frames.append(one_judge(canonical_qrels(frame, columns), "fill_holes"))
    a, b = frames
    for frame in (a, b):
        if "subtopic" in frame.columns:
            raise SchemaError(
                "fill_holes combines qrels of (query, doc) labels; these have a 'subtopic' "
                "column. Fill the holes per subtopic, or drop the column first."
            )
    first, second = (a, b) if prefer == "qrels" else (b, a)
    names = ("qrels", "other") if prefer == "qrels" else ("other", "qrels")
    merged = first.merge(
        second, on=["query", "doc"], how="outer", suffixes=("_1", "_2"), indicator=True
    )
    l1 = merged["label_1"].to_numpy(dtype=np.float64)
    l2 = merged["label_2"].to_numpy(dtype=np.float64)
    in_first = merged["_merge"].to_numpy(dtype=object) != "right_only"
    take_first = ~np.isnan(l1) | (np.isnan(l2) & in_first)
    out = pd.DataFrame(
        {
            "query": merged["query"].astype(ID_DTYPE),
            "doc": merged["doc"].astype(ID_DTYPE),
            "label": np.where(take_first, l1, l2),
            "source": pd.array(np.where(take_first, names[0], names[1]), dtype=ID_DTYPE),
        }
    )
    return out.sort_values(["query", "doc"], kind="stable", ignore_index=True)
