"""The input of every meta-evaluation function: a valid scores frame in one vocabulary."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pdireval.core.schema import canonical_scores
from pdireval.measures.spellings import one_spelling_each

__all__ = ["meta_scores"]


def meta_scores(
    scores: pd.DataFrame, columns: Mapping[str, str] | None = None, *, function: str
) -> pd.DataFrame:
    """:func:`~pdireval.core.schema.canonical_scores`, refusing a frame that spells one
    measure two ways (``map`` and ``AP``: see :func:`pdireval.canonical_measures`);
    ``function`` names the caller in the message."""
    frame = canonical_scores(scores, columns)
    one_spelling_each(frame, function)
    return frame
