"""One vocabulary for scores frames: the measures of a frame in pdireval's canonical names.

Scores frames come from many places: :func:`pdireval.evaluate` names a measure as it was
asked for (``"map"`` stays ``map``, ``"official"`` gives ``AP``), :func:`pdireval.read_scores`
keeps a file's names (``ndcg_cut_10``). Frames combined from several sources then hold two
spellings of one measure. :func:`measure_spellings` shows how a frame's names map to the
canonical ones, :func:`canonical_measures` renames them, and :func:`one_spelling_each` is the
check the meta-evaluation functions run on their input.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_scores
from pdireval.errors import MeasureError, SchemaError, show_rows
from pdireval.measures.registry import parse_measure

__all__ = ["measure_spellings", "canonical_measures", "one_spelling_each"]


def _canonical(name: str) -> str | None:
    """pdireval's canonical spelling of ``name``, None when it is no measure pdireval knows."""
    try:
        return str(parse_measure(name))
    except (MeasureError, TypeError, ValueError):
        return None


def measure_spellings(
    scores: pd.DataFrame, *, columns: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """How the measure names of a scores frame map to pdireval's canonical names.

    A name is parsed as :func:`pdireval.parse_measure` parses it (trec_eval's ``map``,
    ``ndcg_cut_10``, ``P_10``, ir_measures' ``nDCG@10``, ranx's ``ndcg@10``, ...); its
    canonical spelling follows ir_measures where the measure exists there.

    Parameters
    ----------
    scores
        Scores frame: ``system, query, measure, value`` (+ grouping columns).
    columns
        Optional mapping ``{canonical name: your column name}`` for ``scores``.

    Returns
    -------
    DataFrame
        One row per distinct measure name, in order of first appearance:

        - ``measure`` (str): the name as the frame spells it;
        - ``canonical`` (str): pdireval's spelling of the same measure (the name itself when
          pdireval does not know it as a measure);
        - ``known`` (bool): whether pdireval knows the name as a measure;
        - ``n_spellings`` (int64): how many names of the frame spell the same measure.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> scores = pd.DataFrame({"system": "a", "query": ["1", "1", "1"],
    ...                        "measure": ["map", "ndcg_cut_10", "AP"], "value": [0.5, 0.6, 0.5]})
    >>> pdireval.measure_spellings(scores)
           measure canonical  known  n_spellings
    0          map        AP   True            2
    1  ndcg_cut_10   nDCG@10   True            1
    2           AP        AP   True            2
    """
    frame = canonical_scores(scores, columns)
    names = pd.unique(frame["measure"].to_numpy(dtype=object))
    canonical = [_canonical(str(n)) for n in names]
    out = pd.DataFrame(
        {
            "measure": pd.array(names, dtype=frame["measure"].dtype),
            "canonical": pd.array(
                [c if c is not None else str(n) for n, c in zip(names, canonical)],
                dtype=frame["measure"].dtype,
            ),
            "known": np.array([c is not None for c in canonical], dtype=bool),
        }
    )
    out["n_spellings"] = out.groupby("canonical", sort=False)["measure"].transform("size")
    out["n_spellings"] = out["n_spellings"].astype(np.int64)
    return out


def canonical_measures(
    scores: pd.DataFrame, *, columns: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The scores frame with every measure in pdireval's canonical name.

    Names pdireval does not know as measures stay as they are. Two spellings of one measure
    (``map`` and ``AP``) become one: rows of the same (system, query, grouping keys) must then
    hold the same value, and are kept once; different values are a
    :class:`~pdireval.SchemaError` (they are two measurements, e.g. of two tools: keep them
    apart with a column of their own, e.g. ``tool``). See :func:`measure_spellings` for the
    mapping.

    Parameters
    ----------
    scores
        Scores frame: ``system, query, measure, value`` (+ grouping columns).
    columns
        Optional mapping ``{canonical name: your column name}`` for ``scores``.

    Returns
    -------
    DataFrame
        The scores frame (canonical column names, a fresh RangeIndex), its ``measure`` column
        renamed; rows in the input's order (a merged spelling's later rows left out).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> scores = pd.DataFrame({"system": "a", "query": ["1", "2"], "measure": "map",
    ...                        "value": [0.5, 0.25]})
    >>> pdireval.canonical_measures(scores)["measure"].tolist()
    ['AP', 'AP']
    """
    frame = canonical_scores(scores, columns)
    mapping = measure_spellings(frame)
    renamed = dict(zip(mapping["measure"], mapping["canonical"]))
    out = frame.assign(measure=frame["measure"].map(renamed).astype(frame["measure"].dtype))
    keys = [c for c in out.columns if c not in ("value", "value_low", "value_high")]
    repeated = out.duplicated(keys, keep=False).to_numpy()
    if repeated.any():
        clash = out[repeated].groupby(keys, sort=False, dropna=False)["value"].nunique(dropna=False)
        if (clash > 1).any():
            rows = frame[repeated]
            raise SchemaError(
                f"canonical_measures: {int((clash > 1).sum())} (system, query, measure) cells "
                "hold different values under two spellings of one measure:"
                f"{show_rows(rows)}\nThey are two measurements (of two tools?): keep them "
                "apart with a column of their own (e.g. scores.assign(tool=...)) before "
                "combining the frames, or drop one.",
                failure_cases=rows,
            )
        out = out[~out.duplicated(keys, keep="first").to_numpy()].reset_index(drop=True)
    return out


def one_spelling_each(frame: pd.DataFrame, function: str) -> None:
    """Refuse a (canonical) scores frame that holds two spellings of one measure: a
    meta-evaluation would treat them as two measures (``function`` names the caller)."""
    names = pd.unique(frame["measure"].to_numpy(dtype=object))
    if len(names) < 2:
        return
    spelled: dict[str, list[str]] = {}
    for name in names:
        canonical = _canonical(str(name))
        if canonical is not None:
            spelled.setdefault(canonical, []).append(str(name))
    twice = {c: n for c, n in spelled.items() if len(n) > 1}
    if twice:
        listed = "; ".join(f"{' and '.join(map(repr, n))} are both {c}" for c, n in twice.items())
        raise SchemaError(
            f"{function}: the scores frame holds two spellings of one measure ({listed}), "
            "which would be analysed as two measures. Put the frame into one vocabulary with "
            "pdireval.canonical_measures(scores) (pdireval.measure_spellings(scores) shows the "
            "mapping), or keep one spelling."
        )
