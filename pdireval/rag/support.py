"""Citation support scores of RAG answers: weighted precision, recall and F1 (Thakur et al.)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import check_option
from pdireval.rag.frames import code_support, compact
from pdireval.rag.names import SUPPORT_MEASURES, resolve_names
from pdireval.rag.nuggets import EMPTY, MISSING
from pdireval.rag.scoring import Grid, ratios, to_scores

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pdireval.types import Columns, Empty, Missing

__all__ = ["evaluate_support"]


def evaluate_support(
    support: pd.DataFrame,
    measures: str | Iterable[str] | None = None,
    *,
    empty: Empty = "zero",
    missing: Missing = "zero",
    columns: Columns = None,
) -> pd.DataFrame:
    """Citation support scores per (system, query): weighted precision, recall and F1.

    Each (sentence, cited document) pair of an answer has a support value s = 1 (full),
    0.5 (partial) or 0 (no support), as judged in the TREC 2024 RAG track (Thakur et al.,
    2025). Over the C citations and the S sentences of an answer (uncited sentences
    included):

    - ``support_precision`` = Σ_{(i, d) cited} s_{i,d} / C: how well the citations support
      the sentences citing them;
    - ``support_recall`` = Σ_i max_d s_{i,d} / S, with max over nothing = 0: the share of
      sentences supported by their best citation, an uncited sentence supported by none
      (recall per sentence: a sentence counts once however many documents it cites);
    - ``support_f1`` = 2 P R / (P + R).

    Parameters
    ----------
    support
        One row per (system, query, sentence, cited doc) with its label, and one row with
        no doc and no label per uncited sentence, as :func:`pdireval.validate_support`
        reads it (``'full_support'`` / ``'partial_support'`` / ``'no_support'``, ``FS`` /
        ``PS`` / ``NS`` or 1 / 0.5 / 0; ``topic_id``, ``run_id``, ``sentence_id``,
        ``reference``, ``support`` recognised), optionally with a ``judge`` column.
    measures
        Score names (one or a list; ``precision``, ``weighted_recall``, ``f1``, ... are
        aliases). Default: ``support_precision, support_recall, support_f1``.
    empty
        The value of a score whose denominator is 0 (precision of an answer citing
        nothing, F1 when P + R = 0, every score of an answer missing from the frame):
        ``"zero"`` (default) or ``"nan"``.
    missing
        A (system, query) without any row when other systems have one for the query:
        ``"zero"`` (default: scored as an empty answer, so ``empty`` gives its values) or
        ``"drop"`` (no row).
    columns
        Optional mapping ``{canonical name: your column name}``.

    Returns
    -------
    DataFrame
        A scores frame like :func:`pdireval.evaluate`'s: ``[judge,] system, query, measure,
        value`` (``judge`` a grouping key, when given), sorted by judge, system, query
        (natural order), then measure in the order given.

    Raises
    ------
    SchemaError
        The frame breaks a rule of :func:`pdireval.validate_support` (a label outside the
        vocabulary, a row citing nothing, a citation with no label, conflicting labels).
    MeasureError
        An unknown score name.
    OptionError
        ``empty=`` or ``missing=`` invalid.

    References
    ----------
    Thakur, N., Pradeep, R., Upadhyay, S., Campos, D., Craswell, N., & Lin, J. (2025).
    Support evaluation for the TREC 2024 RAG track: comparing human versus LLM judges.
    SIGIR 2025.
    """
    check_option("empty", empty, EMPTY)
    check_option("missing", missing, MISSING)
    names = resolve_names(measures, SUPPORT_MEASURES, "support")
    coded = code_support(support, columns)
    grid = Grid(coded)
    cited = coded.codes["doc"] >= 0
    n_sent = max(len(coded.ids["sentence"]), 1)
    key = grid.seg * n_sent + coded.codes["sentence"]
    sentences, row_sentence = compact(key, grid.n_seg * n_sent)
    # the best label of each sentence (0 when it cites nothing): labels are 0, 0.5 or 1
    full = np.bincount(row_sentence, weights=coded.label == 1.0, minlength=len(sentences))
    partial = np.bincount(row_sentence, weights=coded.label == 0.5, minlength=len(sentences))
    best = np.where(full > 0, 1.0, np.where(partial > 0, 0.5, 0.0))
    n = grid.n_seg
    per_sentence = sentences // n_sent
    sums: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {
        "support_precision": (
            np.bincount(grid.seg[cited], weights=coded.label[cited], minlength=n),
            np.bincount(grid.seg[cited], minlength=n).astype(np.float64),
            None,
        ),
        "support_recall": (
            np.bincount(per_sentence, weights=best, minlength=n),
            np.bincount(per_sentence, minlength=n).astype(np.float64),
            None,
        ),
    }
    keys, values = ratios(grid, sums, empty=empty, missing=missing)
    p, r = values["support_precision"], values["support_recall"]
    total = p + r
    f1 = np.full(len(keys), 0.0 if empty == "zero" else np.nan)
    np.divide(2.0 * p * r, total, out=f1, where=total > 0)
    values["support_f1"] = np.where(np.isnan(total), np.nan, f1)
    return to_scores(grid, keys, {n: values[n] for n in names})
