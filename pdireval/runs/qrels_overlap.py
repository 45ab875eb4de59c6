"""Per-query overlap of two sets of relevance judgments as sets: precision, recall and F1 of the
relevant sets, Jaccard, and the adjusted Rand index of the relevant / non-relevant split — the
per-topic table of the TREC AutoJudge organisers' ``autojudge-evaluate qrel-evaluate``, beside
the κ and α of :func:`pdireval.agreement`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_qrels, one_judge
from pdireval.core.segments import natural_order
from pdireval.errors import SchemaError, check_option, check_real

if TYPE_CHECKING:
    from pdireval.types import Columns, MissingPolicy

__all__ = ["qrels_overlap", "adjusted_rand_binary", "QRELS_MISSING"]

#: ``missing=`` values: a query only one side judged
QRELS_MISSING = ("zero", "skip", "error")


def adjusted_rand_binary(n11, n10, n01, n00) -> np.ndarray:
    r"""Adjusted Rand index (Hubert & Arabie 1985) of two binary partitions from their 2 × 2
    table (counts of items relevant to both, to the first only, to the second only, to neither),
    elementwise over arrays of tables.

    As ``sklearn.metrics.adjusted_rand_score``: from the pair confusion counts
    (tp, fp, fn, tn) of the n(n − 1) ordered item pairs,
    ARI = 2(tp·tn − fn·fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)), and 1 when fp = fn = 0
    (identical partitions, or fewer than two items).
    """
    c = np.stack([np.asarray(x, dtype=np.float64) for x in (n11, n10, n01, n00)])
    n = c.sum(axis=0)
    squares = (c**2).sum(axis=0)
    rows = (c[0] + c[1]) ** 2 + (c[2] + c[3]) ** 2  # first partition's class sizes, squared
    cols = (c[0] + c[2]) ** 2 + (c[1] + c[3]) ** 2
    tp = squares - n
    fp = cols - squares  # pairs together in the second partition only
    fn = rows - squares
    tn = n**2 - fp - fn - squares
    with np.errstate(divide="ignore", invalid="ignore"):
        ari = 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    return np.where((fp == 0) & (fn == 0), 1.0, ari)


def qrels_overlap(
    qrels: pd.DataFrame,
    other: pd.DataFrame,
    *,
    rel: float = 1,
    other_rel: float | None = None,
    missing: MissingPolicy = "zero",
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Per-query set agreement of two qrels: precision, recall, F1, Jaccard, adjusted Rand.

    ``qrels`` is the reference (e.g. human), ``other`` the judgments under test (e.g. an LLM).
    Per query, R = {documents with ``label >= rel`` in qrels}, R' = {documents with
    ``label >= other_rel`` in other}; tp = |R ∩ R'|, fp = |R' − R|, fn = |R − R'|:

    * ``precision`` = tp/(tp + fp), ``recall`` = tp/(tp + fn), ``f1`` = 2PR/(P + R), each 0
      when its denominator is 0, and NaN when both sets are empty;
    * ``jaccard`` = tp/(tp + fp + fn) (NaN when both sets are empty);
    * ``ari``: the adjusted Rand index (Hubert & Arabie 1985) of the relevant / non-relevant
      split of the documents either side judged for the query, a document one side did not
      judge counting as non-relevant there (:func:`adjusted_rand_binary`, as scikit-learn's
      ``adjusted_rand_score``).

    These are the per-topic columns of ``autojudge-evaluate qrel-evaluate`` (2026) with its
    default grade 0 for a document judged by one side only. Cohen's κ and Krippendorff's α on
    the pairs both sides judged are :func:`pdireval.agreement`'s (``per_query=True``).

    Parameters
    ----------
    qrels, other
        Qrels frames (``query, doc, label``), one judgment set each.
    rel
        Minimum label of a relevant document in ``qrels``.
    other_rel
        Minimum label of a relevant document in ``other`` (default: ``rel``).
    missing
        A query judged by one side only: ``"zero"`` (default: kept, the other side's relevant
        set empty), ``"skip"`` (left out: only the queries both judged) or ``"error"``.
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        One row per query (natural order): ``query``, ``tp``, ``fp``, ``fn``, ``precision``,
        ``recall``, ``f1``, ``jaccard``, ``ari``, ``n_docs`` (documents either side judged).

    Raises
    ------
    SchemaError
        ``missing="error"`` and some query is judged by one side only; qrels of several judges.

    References
    ----------
    Hubert, L., Arabie, P. (1985). Comparing partitions. Journal of Classification 2.
    Voorhees, E. M. (2000). Variations in relevance judgments and the measurement of retrieval
    effectiveness. Information Processing & Management.
    """
    check_option("missing", missing, QRELS_MISSING)
    rel = check_real("rel", rel)
    other_rel = rel if other_rel is None else check_real("other_rel", other_rel)
    a = one_judge(canonical_qrels(qrels, columns), "qrels_overlap")
    b = one_judge(canonical_qrels(other, columns), "qrels_overlap")
    a, b = a[a["label"].notna().to_numpy()], b[b["label"].notna().to_numpy()]
    qa, qb = set(a["query"]), set(b["query"])
    only = sorted(qa ^ qb, key=str)
    if only and missing == "error":
        raise SchemaError(
            f"{len(only)} queries are judged by one side only (e.g. {only[:5]}); pass "
            "missing='skip' to compare the queries both judged, or missing='zero' to count the "
            "absent side's relevant set as empty."
        )
    if missing == "skip":
        both = qa & qb
        a, b = a[a["query"].isin(both)], b[b["query"].isin(both)]
    merged = a[["query", "doc", "label"]].merge(
        b[["query", "doc", "label"]], on=["query", "doc"], how="outer", suffixes=("_a", "_b")
    )
    ra = merged["label_a"].to_numpy(dtype=np.float64) >= rel  # NaN (unjudged) compares False
    rb = merged["label_b"].to_numpy(dtype=np.float64) >= other_rel
    ids = pd.unique(merged["query"].to_numpy(dtype=object))
    queries = pd.Index(ids[natural_order(ids)], dtype=object)
    code = queries.get_indexer(merged["query"].to_numpy(dtype=object))
    n_q = len(queries)

    def count(mask):
        return np.bincount(code[mask], minlength=n_q).astype(np.int64)

    tp, fn, fp, tn = count(ra & rb), count(ra & ~rb), count(~ra & rb), count(~ra & ~rb)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
        union = tp + fp + fn
        jaccard = np.where(union > 0, tp / union, np.nan)
    empty = union == 0
    return pd.DataFrame(
        {
            "query": queries.to_numpy(dtype=object),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": np.where(empty, np.nan, precision),
            "recall": np.where(empty, np.nan, recall),
            "f1": np.where(empty, np.nan, f1),
            "jaccard": jaccard,
            "ari": adjusted_rand_binary(tp, fn, fp, tn),
            "n_docs": tp + fn + fp + tn,
        }
    )
