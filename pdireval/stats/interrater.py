r"""Inter-rater agreement from contingency tables: Cohen's κ and Krippendorff's α.

Every function here takes a stack of K × K contingency tables ``tables[..., i, j]`` = number of
items the first rater put in level i and the second rater in level j (levels sorted
ascending, the same level set for every table) and returns one value per table, so the
per-query tables of a collection, their sum, and thousands of bootstrap re-weightings of
them are computed in one array operation each.

Two raters who both labelled every item are assumed (the pairs of a collection both sets of
judgments cover); an undefined value (no items, or a zero expected disagreement) is NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import AlphaLevel, KappaWeights

__all__ = [
    "cohen_kappa",
    "krippendorff_alpha",
    "observed_agreement",
    "binary_counts",
    "contingency_tables",
    "KAPPA_WEIGHTS",
    "ALPHA_LEVELS",
]

KAPPA_WEIGHTS = (None, "linear", "quadratic")
ALPHA_LEVELS = ("nominal", "ordinal", "interval")


def contingency_tables(codes_a, codes_b, group, n_groups: int, n_levels: int) -> np.ndarray:
    """Per-group K × K count tables from level codes, as float64 ``[n_groups, K, K]``.

    ``codes_a[i]``, ``codes_b[i]`` are the 0-based level codes the two raters gave item i,
    ``group[i]`` its group (e.g. query) code. One ``np.bincount`` over all items.
    """
    k2 = n_levels * n_levels
    flat = np.asarray(group, dtype=np.int64) * k2 + np.asarray(codes_a, dtype=np.int64) * n_levels
    flat += np.asarray(codes_b, dtype=np.int64)
    counts = np.bincount(flat, minlength=n_groups * k2).astype(np.float64)
    return counts.reshape(n_groups, n_levels, n_levels)


def _divide(num, den):
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def observed_agreement(tables: ArrayLike) -> np.ndarray:
    """Raw agreement: the share of items on the diagonal, Σ_i n_ii / n (NaN for no items)."""
    tables = np.asarray(tables, dtype=np.float64)
    diag = np.trace(tables, axis1=-2, axis2=-1)
    return _divide(diag, tables.sum(axis=(-2, -1)))


def _kappa_weights(n_levels: int, weights) -> np.ndarray:
    i = np.arange(n_levels, dtype=np.float64)
    diff = np.abs(i[:, None] - i[None, :])
    if weights is None:
        return (diff > 0).astype(np.float64)
    if weights == "linear":
        return diff
    return diff**2


def cohen_kappa(tables: ArrayLike, weights: KappaWeights | None = None) -> np.ndarray:
    r"""Cohen's κ of each K × K table (Cohen 1960; weighted form Cohen 1968).

    With observed proportions O = n_ij / n, the product of the marginals
    E_ij = (n_i· n_·j) / n² and disagreement weights w_ij,

    .. math:: \kappa_w = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}} ,

    w_ij = [i ≠ j] (``weights=None``), |i − j| (``"linear"``) or (i − j)² (``"quadratic"``),
    i and j being level *positions* in the sorted level set — scikit-learn's
    ``cohen_kappa_score(..., labels=levels, weights=...)``. NaN when the expected
    disagreement is 0 (both raters used one and the same level) or the table is empty.
    """
    tables = np.asarray(tables, dtype=np.float64)
    k = tables.shape[-1]
    w = _kappa_weights(k, weights)
    n = tables.sum(axis=(-2, -1))
    rows = tables.sum(axis=-1)
    cols = tables.sum(axis=-2)
    observed = (tables * w).sum(axis=(-2, -1))
    # Σ_ij w_ij r_i c_j / n, without forming the K × K expected table per item
    expected = _divide(np.einsum("...i,ij,...j->...", rows, w, cols), n)
    return 1.0 - _divide(observed, expected)


def krippendorff_alpha(
    tables: ArrayLike, level: AlphaLevel = "nominal", values: ArrayLike | None = None
) -> np.ndarray:
    r"""Krippendorff's α of two raters who both labelled every item (Krippendorff 2004).

    The coincidence matrix of two complete raters is the symmetrised table o = N + Nᵀ, with
    level totals n_c = Σ_k o_ck and n = Σ_c n_c = 2 × items. Then

    .. math:: \alpha = 1 - (n - 1)\,\frac{\sum_{c,k} o_{ck}\,\delta^2_{ck}}
                                        {\sum_{c,k} n_c\, n_k\, \delta^2_{ck}}

    with δ²_ck = [c ≠ k] (``"nominal"``), (v_c − v_k)² for level values v (``"interval"``),
    and (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)² (``"ordinal"``, computed from each table's own
    level totals). Equals the ``krippendorff`` package's ``alpha`` on the same items. NaN
    when the expected disagreement is 0 (a single level used, or no items).
    """
    tables = np.asarray(tables, dtype=np.float64)
    k = tables.shape[-1]
    o = tables + np.swapaxes(tables, -1, -2)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(k), o.shape)
    elif level == "interval":
        v = (
            np.arange(k, dtype=np.float64)
            if values is None
            else np.asarray(values, dtype=np.float64)
        )
        delta = np.broadcast_to((v[:, None] - v[None, :]) ** 2, o.shape)
    elif level == "ordinal":
        cum = np.cumsum(n_c, axis=-1)
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        # Σ_{g=lo}^{hi} n_g = cum[hi] − cum[lo] + n_lo
        between = cum[..., hi] - cum[..., lo] + n_c[..., lo]
        delta = (between - (n_c[..., :, None] + n_c[..., None, :]) / 2.0) ** 2
    else:  # pragma: no cover - callers validate
        raise ValueError(f"unknown level {level!r}")
    observed = (o * delta).sum(axis=(-2, -1))
    expected = np.einsum("...c,...ck,...k->...", n_c, delta, n_c)
    alpha = 1.0 - (n - 1.0) * _divide(observed, expected)
    return alpha


def binary_counts(tables, relevant) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tp, fp, fn, tn) of the second rater's positive set against the first rater's.

    ``relevant`` is a boolean mask over the K levels (level ≥ the relevance threshold).
    tp: both positive; fp: only the second; fn: only the first; tn: neither.
    """
    tables = np.asarray(tables, dtype=np.float64)
    r = np.asarray(relevant, dtype=bool)
    tp = tables[..., r, :][..., :, r].sum(axis=(-2, -1))
    fp = tables[..., ~r, :][..., :, r].sum(axis=(-2, -1))
    fn = tables[..., r, :][..., :, ~r].sum(axis=(-2, -1))
    tn = tables[..., ~r, :][..., :, ~r].sum(axis=(-2, -1))
    return tp, fp, fn, tn
