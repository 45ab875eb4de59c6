"""How far two sets of relevance judgments agree (human vs LLM, assessor A vs assessor B).

:func:`agreement` gives chance-corrected agreement statistics on the (query, doc) pairs both
sets judged, per collection (with query-level bootstrap intervals) or per query;
:func:`judgment_confusion` gives the label confusion table behind them, with the pairs only
one side judged.

Both work from one K × K contingency table per query (one ``np.bincount``); a collection
statistic is the same formula on the sum of the tables, and a bootstrap replicate is the sum
re-weighted by how often each query was drawn — one matrix product for all replicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_qrels
from pdireval.core.segments import natural_order
from pdireval.errors import (
    SchemaError,
    check_bool,
    check_int,
    check_real,
    check_rng,
    group_generator,
)
from pdireval.stats import interrater

if TYPE_CHECKING:
    from pdireval.types import RngLike

__all__ = ["agreement", "judgment_confusion", "AGREEMENT_STATISTICS"]

#: the ``statistic`` values of :func:`agreement`, in output order
AGREEMENT_STATISTICS = (
    "cohen_kappa",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
    "agreement",
    "cohen_kappa_binary",
    "agreement_binary",
    "precision",
    "recall",
    "f1",
)

_CANONICAL = ("query", "doc", "label")


def _key_columns(qrels: pd.DataFrame, other: pd.DataFrame, columns) -> list[str]:
    """Extra grouping columns: present in both frames, other than query/doc/label."""
    mapped = set((columns or {}).values()) | set(_CANONICAL)
    return [c for c in qrels.columns if c in other.columns and c not in mapped]


def _judge_pairs(qrels, columns):
    """Every pair of judges of one qrels frame with a ``judge`` column: ``(keys, groups)``
    with keys ``judge_a, judge_b`` (judges sorted, judge_a < judge_b)."""
    canonical = canonical_qrels(qrels, columns)
    if "judge" not in canonical.columns or canonical["judge"].nunique() < 2:
        raise SchemaError(
            "agreement needs other= (the judgments to compare with qrels), or qrels of "
            "several judges (a 'judge' column with at least two judges, e.g. read_qrels of "
            "several files) to compare every pair of judges."
        )
    judge = canonical["judge"].to_numpy(dtype=object)
    names = sorted(pd.unique(judge), key=str)
    parts = {j: canonical[judge == j].drop(columns="judge").reset_index(drop=True) for j in names}
    groups = [
        ({"judge_a": a, "judge_b": b}, parts[a], parts[b])
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
    return ["judge_a", "judge_b"], groups


def _groups(qrels, other, columns):
    """[(key dict, canonical qrels, canonical other)] over the shared extra key columns."""
    if other is None:
        if not isinstance(qrels, pd.DataFrame):
            raise TypeError(f"qrels must be a pandas DataFrame, got {type(qrels).__name__}")
        return _judge_pairs(qrels, columns)
    for name, frame in (("qrels", qrels), ("other", other)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    keys = _key_columns(qrels, other, columns)
    if not keys:
        a, b = canonical_qrels(qrels, columns), canonical_qrels(other, columns)
        for name, frame in (("qrels", a), ("other", b)):
            if "judge" in frame.columns and frame["judge"].nunique() > 1:
                raise SchemaError(
                    f"{name} holds {frame['judge'].nunique()} judges (a 'judge' column) and the "
                    "other frame none: their labels cannot be paired one to one.\nCompare every "
                    "pair of judges with agreement(qrels) (no other=), give both frames a "
                    "'judge' column (one result per judge), or select one judge."
                )
        return keys, [({}, a, b)]
    out = []
    left = {
        k if isinstance(k, tuple) else (k,): g
        for k, g in qrels.groupby(keys, sort=True, dropna=False)
    }
    right = {
        k if isinstance(k, tuple) else (k,): g
        for k, g in other.groupby(keys, sort=True, dropna=False)
    }
    only = sorted(set(left) ^ set(right), key=str)
    if only:
        raise SchemaError(
            f"qrels and other share the grouping column(s) {keys} but not their values: "
            f"{len(only)} group(s) are in only one frame, e.g. {only[:3]}.\nCompare the same "
            "groups in both frames, or drop the column from one of them."
        )
    for key in sorted(left, key=lambda k: tuple(str(v) for v in k)):
        out.append(
            (
                dict(zip(keys, key)),
                canonical_qrels(left[key], columns),
                canonical_qrels(right[key], columns),
            )
        )
    return keys, out


class _Pairs:
    """The judged (query, doc) pairs of two canonical qrels, coded for table building."""

    def __init__(self, a: pd.DataFrame, b: pd.DataFrame):
        a = a[a["label"].notna().to_numpy()]
        b = b[b["label"].notna().to_numpy()]
        merged = a.merge(b, on=["query", "doc"], how="outer", suffixes=("_a", "_b"), indicator=True)
        queries = pd.unique(merged["query"].to_numpy(dtype=object))
        self.queries = pd.Index(queries[natural_order(queries)], dtype=object)
        qcode = self.queries.get_indexer(merged["query"].to_numpy(dtype=object))
        side = merged["_merge"].to_numpy(dtype=object)
        both = side == "both"
        n_q = len(self.queries)
        self.only_a = np.bincount(qcode[side == "left_only"], minlength=n_q)
        self.only_b = np.bincount(qcode[side == "right_only"], minlength=n_q)
        la = merged["label_a"].to_numpy(dtype=np.float64)[both]
        lb = merged["label_b"].to_numpy(dtype=np.float64)[both]
        self.levels = np.unique(
            np.concatenate([a["label"].to_numpy(np.float64), b["label"].to_numpy(np.float64)])
        )
        self.qcode = qcode[both]
        self.code_a = np.searchsorted(self.levels, la)
        self.code_b = np.searchsorted(self.levels, lb)
        self.n_pairs = np.bincount(self.qcode, minlength=n_q)

    def tables(self) -> np.ndarray:
        return interrater.contingency_tables(
            self.code_a, self.code_b, self.qcode, len(self.queries), len(self.levels)
        )


def _relevance_threshold(rel, levels) -> float:
    if rel is not None:
        return float(check_real("rel", rel))
    positive = levels[levels > 0]
    return float(positive[0]) if len(positive) else 1.0


def _statistics(tables: np.ndarray, levels: np.ndarray, rel: float) -> np.ndarray:
    """[len(AGREEMENT_STATISTICS), ...] statistics of a stack of tables [..., K, K]."""
    relevant = levels >= rel
    tp, fp, fn, tn = interrater.binary_counts(tables, relevant)
    binary = np.stack([np.stack([tn, fp], axis=-1), np.stack([fn, tp], axis=-1)], axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), np.nan)
        recall = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1.0), np.nan)
        f1_den = 2 * tp + fp + fn
        f1 = np.where(f1_den > 0, 2 * tp / np.where(f1_den > 0, f1_den, 1.0), np.nan)
    return np.stack(
        [
            interrater.cohen_kappa(tables),
            interrater.cohen_kappa(tables, "linear"),
            interrater.cohen_kappa(tables, "quadratic"),
            interrater.krippendorff_alpha(tables, "nominal"),
            interrater.krippendorff_alpha(tables, "ordinal"),
            interrater.krippendorff_alpha(tables, "interval", values=levels),
            interrater.observed_agreement(tables),
            interrater.cohen_kappa(binary),
            interrater.observed_agreement(binary),
            precision,
            recall,
            f1,
        ]
    )


def _bootstrap(tables, levels, rel, n_resamples, confidence_level, gen):
    """Percentile interval of each statistic over query-level bootstrap replicates."""
    units = np.flatnonzero(tables.sum(axis=(1, 2)) > 0)  # queries with at least one pair
    n_stat = len(AGREEMENT_STATISTICS)
    if len(units) < 2 or n_resamples == 0:
        return np.full(n_stat, np.nan), np.full(n_stat, np.nan)
    u = len(units)
    draws = gen.integers(0, u, size=(n_resamples, u))
    weights = (
        np.bincount(
            (np.arange(n_resamples)[:, None] * u + draws).ravel(), minlength=n_resamples * u
        )
        .reshape(n_resamples, u)
        .astype(np.float64)
    )
    k = tables.shape[-1]
    replicates = (weights @ tables[units].reshape(u, k * k)).reshape(n_resamples, k, k)
    values = _statistics(replicates, levels, rel)  # [n_stat, n_resamples]
    tail = (1.0 - confidence_level) / 2.0
    low = np.full(n_stat, np.nan)
    high = np.full(n_stat, np.nan)
    finite = np.isfinite(values)
    for s in np.flatnonzero(finite.any(axis=1)):  # a loop over the statistics, not resamples
        v = values[s, finite[s]]
        low[s], high[s] = np.quantile(v, [tail, 1.0 - tail])
    return low, high


def agreement(
    qrels: pd.DataFrame,
    other: pd.DataFrame | None = None,
    *,
    rel: float | None = None,
    per_query: bool = False,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: RngLike = None,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    r"""Agreement between two sets of relevance judgments on the pairs both judged.

    ``qrels`` is the reference (e.g. the human assessors), ``other`` the judgments under
    test (e.g. an LLM judge). Only (query, doc) pairs with a non-NaN label in both frames
    count; a negative label is a label like any other (its own level). The levels are the
    sorted labels used in either frame. From the K × K table n_ij (qrels level i, other
    level j):

    * ``cohen_kappa`` — Cohen's κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij with w_ij = [i ≠ j],
      O the observed and E the chance proportions (product of the marginals) (Cohen 1960);
      ``cohen_kappa_linear`` / ``cohen_kappa_quadratic``: w_ij = |i − j| / (i − j)² over
      level positions (Cohen 1968; scikit-learn's ``cohen_kappa_score`` with ``labels=``).
    * ``krippendorff_alpha_nominal`` / ``_ordinal`` / ``_interval`` — Krippendorff's α =
      1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck on the coincidence matrix o = N + Nᵀ, with the
      nominal, ordinal (rank-sum) and interval ((v_c − v_k)², label values) distances
      (Krippendorff 2004; the ``krippendorff`` package).
    * ``agreement`` — raw agreement Σ_i n_ii / n.
    * binarised at ``rel`` (relevant = label ≥ rel; default the lowest positive label of
      either frame): ``cohen_kappa_binary``, ``agreement_binary``, and ``precision``,
      ``recall``, ``f1`` of ``other``'s relevant set against ``qrels``'s
      (tp / (tp + fp), tp / (tp + fn), 2tp / (2tp + fp + fn)).

    Collection rows pool every pair (the κ LLM-judging papers report, e.g. Thomas et al.
    2024); their interval is a percentile bootstrap over queries: ``n_resamples``
    replicates, each drawing the queries that have a shared pair with replacement and
    pooling their tables (replicates with an undefined statistic are left out).

    Parameters
    ----------
    qrels, other
        Qrels frames (``query, doc, label``). Columns other than those, present in both
        frames, are grouping keys: one result per group (e.g. ``collection``). Without
        ``other``, ``qrels`` holds several judges (a ``judge`` column, e.g.
        ``read_qrels([path_a, path_b, path_c])``) and every pair of judges is compared in
        one call: rows carry ``judge_a`` (the reference) and ``judge_b`` (judges sorted,
        ``judge_a < judge_b``), pivot them for a judge × judge matrix of κ or α.
    rel
        Relevance threshold of the binarised statistics.
    per_query
        One block of rows per query (queries judged by either frame, natural order), with
        NaN intervals, instead of the collection rows.
    n_resamples, confidence_level, rng
        Bootstrap replicates (0 = no interval), interval level, and the seed (None, int,
        SeedSequence or Generator; each group draws from its own stream, keyed by its key
        values).
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        ``[keys...]`` (``judge_a, judge_b`` without ``other``), ``[query]``
        (``per_query=True``), ``statistic`` (the names above, in
        that order), ``value``, ``ci_low``, ``ci_high`` (float64; NaN where undefined, e.g.
        κ when both sides used one level only, precision without a relevant label in
        ``other``), ``n_pairs`` (pairs both judged), ``n_only_qrels``, ``n_only_other``
        (pairs judged by one side only).

    Raises
    ------
    SchemaError
        No (query, doc) pair judged by both; every label of a frame NaN; groups in only one
        frame.

    Warns
    -----
    PdirevalWarning
        When the two frames label on visibly different scales: the larger of their largest
        labels L exceeds 2 × (the smaller, l, + 1) − 1 and L − l > 1 (0–3 against 0–99; not
        0–1 against 0–2). Map one scale onto the other first.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement. Cohen, J. (1968). Weighted kappa. Psychological Bulletin.
    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology.
    Thomas, P., Spielman, S., Craswell, N., Mitra, B. (2024). Large language models can
    accurately predict searcher preferences. SIGIR.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> a = pd.DataFrame({"query": ["1"] * 4, "doc": list("wxyz"), "label": [0, 1, 2, 1]})
    >>> pdireval.agreement(a, a, n_resamples=0).set_index("statistic").loc["cohen_kappa", "value"]
    np.float64(1.0)
    """
    per_query = check_bool("per_query", per_query)
    n_resamples = check_int("n_resamples", n_resamples, minimum=0)
    confidence_level = check_real(
        "confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False
    )
    seed = check_rng(rng)
    keys, groups = _groups(qrels, other, columns)
    blocks = []
    for key, a, b in groups:
        _check_labels(a, b, key)
        pairs = _Pairs(a, b)
        if len(pairs.code_a) == 0:
            raise SchemaError(
                f"qrels and other judge no (query, doc) pair in common{_where(key)}: "
                f"{len(a)} judged row(s) in qrels, {len(b)} in other.\nAgreement is measured "
                "on the pairs both judged: check that query and doc ids are spelled alike "
                "(e.g. '301' vs '301.0') and that the two frames cover the same queries."
            )
        rel_ = _relevance_threshold(rel, pairs.levels)
        tables = pairs.tables()
        n_stat = len(AGREEMENT_STATISTICS)
        if per_query:
            values = _statistics(tables, pairs.levels, rel_)  # [n_stat, n_q]
            n_q = len(pairs.queries)
            block = pd.DataFrame(
                {
                    "query": np.repeat(pairs.queries.to_numpy(dtype=object), n_stat),
                    "statistic": np.tile(np.array(AGREEMENT_STATISTICS, dtype=object), n_q),
                    "value": values.T.ravel(),
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                    "n_pairs": np.repeat(pairs.n_pairs, n_stat),
                    "n_only_qrels": np.repeat(pairs.only_a, n_stat),
                    "n_only_other": np.repeat(pairs.only_b, n_stat),
                }
            )
        else:
            values = _statistics(tables.sum(axis=0), pairs.levels, rel_)
            gen = group_generator(seed, *(str(key[k]) for k in keys))
            low, high = _bootstrap(tables, pairs.levels, rel_, n_resamples, confidence_level, gen)
            block = pd.DataFrame(
                {
                    "statistic": list(AGREEMENT_STATISTICS),
                    "value": values,
                    "ci_low": low,
                    "ci_high": high,
                    "n_pairs": int(pairs.n_pairs.sum()),
                    "n_only_qrels": int(pairs.only_a.sum()),
                    "n_only_other": int(pairs.only_b.sum()),
                }
            )
        for k in reversed(keys):
            block.insert(0, k, key[k])
        blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    for c in ("value", "ci_low", "ci_high"):
        out[c] = out[c].astype(np.float64)
    for c in ("n_pairs", "n_only_qrels", "n_only_other"):
        out[c] = out[c].astype(np.int64)
    return out


#: Largest labels that differ more than this factor (after + 1) are "different scales".
SCALE_RATIO = 2.0


def _check_labels(a: pd.DataFrame, b: pd.DataFrame, key: dict) -> None:
    """A frame whose every label is NaN is an error; labels on visibly different scales
    (largest labels 3 and 99) get a PdirevalWarning."""
    labels = {}
    for name, frame in (("qrels", a), ("other", b)):
        values = frame["label"].to_numpy(dtype=np.float64)
        judged = values[~np.isnan(values)]
        if len(values) and not len(judged):
            raise SchemaError(
                f"every label of {name} is NaN ({len(values)} row(s){_where(key)}), so it judges "
                "nothing to agree on. Check its label column (a failed conversion, or the wrong "
                "column mapped with columns=)."
            )
        labels[name] = judged
    if not (len(labels["qrels"]) and len(labels["other"])):
        return
    top = {n: float(v.max()) for n, v in labels.items()}
    low, high = sorted(top.values())
    if low >= 0 and high + 1.0 > SCALE_RATIO * (low + 1.0) and high - low > 1.0:
        import warnings

        from pdireval.errors import PdirevalWarning

        spans = "; ".join(
            f"{n}: {v.min():g} to {v.max():g} ({len(np.unique(v))} distinct labels)"
            for n, v in labels.items()
        )
        warnings.warn(
            f"qrels and other label on different scales{_where(key)} ({spans}). κ, α and raw "
            "agreement compare label values, so two judges on different scales agree only where "
            "their numbers happen to coincide. Map one scale onto the other first (e.g. "
            "other.assign(label=pd.cut(other['label'], bins=[...], labels=False))), or compare the "
            "binarised statistics (rel=).",
            PdirevalWarning,
            stacklevel=3,
        )


def _where(key: dict) -> str:
    return "" if not key else " (" + ", ".join(f"{k}={v!r}" for k, v in key.items()) + ")"


def judgment_confusion(
    qrels: pd.DataFrame,
    other: pd.DataFrame,
    *,
    per_query: bool = False,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The label confusion table of two sets of judgments, with what only one side judged.

    Parameters
    ----------
    qrels, other
        Qrels frames (``query, doc, label``); shared extra columns are grouping keys, as in
        :func:`agreement`.
    per_query
        One table per query (queries in natural order) instead of one per collection.
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        ``[keys...]``, ``[query]``, ``label`` (the ``qrels`` label; NaN = the pair is judged
        by ``other`` only), ``other_label`` (NaN = judged by ``qrels`` only), ``count``
        (int64). Every combination of the levels used by either frame appears, zeros
        included (so the frame pivots to a square table), plus the one-side rows; ordered by
        label then other_label, NaN last.
    """
    per_query = check_bool("per_query", per_query)
    keys, groups = _groups(qrels, other, columns)
    blocks = []
    for key, a, b in groups:
        pairs = _Pairs(a, b)
        tables = pairs.tables().astype(np.int64)
        if not per_query:
            tables = tables.sum(axis=0, keepdims=True)
        k = len(pairs.levels)
        n_t = tables.shape[0]
        # cells (i, j) over the levels plus a last "not judged by that side" level; the
        # (not judged, not judged) cell does not exist
        labels = np.append(pairs.levels, np.nan)
        li, lj = np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij")
        cell = ~((li == k) & (lj == k))
        li, lj = li[cell], lj[cell]
        counts = np.zeros((n_t, len(li)), dtype=np.int64)
        inner = (li < k) & (lj < k)
        counts[:, inner] = tables[:, li[inner], lj[inner]]
        counts[:, lj == k] = _one_side_by_label(a, b, pairs, per_query)  # qrels only
        counts[:, li == k] = _one_side_by_label(b, a, pairs, per_query)  # other only
        block = pd.DataFrame(
            {
                "label": np.tile(labels[li], n_t),
                "other_label": np.tile(labels[lj], n_t),
                "count": counts.ravel(),
            }
        )
        if per_query:
            block.insert(0, "query", np.repeat(pairs.queries.to_numpy(dtype=object), len(li)))
        for c in reversed(keys):
            block.insert(0, c, key[c])
        blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    out["label"] = out["label"].astype(np.float64)
    out["other_label"] = out["other_label"].astype(np.float64)
    out["count"] = out["count"].astype(np.int64)
    return out


def _one_side_by_label(x: pd.DataFrame, y: pd.DataFrame, pairs: _Pairs, per_query: bool):
    """Counts [n_tables, K] of x's judged pairs that y did not judge, by x's label level."""
    x = x[x["label"].notna().to_numpy()]
    y = y[y["label"].notna().to_numpy()]
    only = x.merge(y[["query", "doc"]], on=["query", "doc"], how="left", indicator=True)
    only = only[(only["_merge"] == "left_only").to_numpy()]
    k = len(pairs.levels)
    level = np.searchsorted(pairs.levels, only["label"].to_numpy(np.float64))
    if not per_query:
        return np.bincount(level, minlength=k)[None, :]
    q = pairs.queries.get_indexer(only["query"].to_numpy(dtype=object))
    n_q = len(pairs.queries)
    return np.bincount(q * k + level, minlength=n_q * k).reshape(n_q, k)
