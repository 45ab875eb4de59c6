"""Rank correlation of two score vectors: Kendall's tau (a, b), Goodman-Kruskal gamma, tau_AP, any
method by name."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pdireval.errors import OptionError, check_option
from pdireval.stats import _adapters

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

__all__ = [
    "concordance_counts",
    "kendall_tau",
    "tau_ap",
    "tau_ap_b",
    "rank_correlation",
    "CORRELATION_METHODS",
]

CORRELATION_METHODS = (
    "kendall_a",
    "kendall_b",
    "gamma",
    "spearman",
    "pearson",
    "tau_ap",
    "tau_ap_sym",
    "tau_ap_b",
    "rbo",
)


#: rank_correlation's method -> kendall_tau's variant
_KENDALL_VARIANTS: dict[str, Literal["a", "b", "gamma"]] = {
    "kendall_a": "a",
    "kendall_b": "b",
    "gamma": "gamma",
}


def _vectors(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise OptionError(
            f"x and y must be 1-D of the same length, got shapes {x.shape} and {y.shape}"
        )
    if np.isnan(x).any() or np.isnan(y).any():
        raise OptionError("x and y must not hold NaN: drop the objects without a value first")
    return x, y


def concordance_counts(x, y):
    """THE concordance counter: ``(concordant, discordant, tied in x, tied in y, n0)`` over the
    n0 = n(n − 1)/2 unordered pairs of two score vectors (a pair tied in x or y is neither
    concordant nor discordant). Kendall's τ, Goodman–Kruskal γ and swap rates read it."""
    n = len(x)
    i, j = np.triu_indices(n, 1)
    sx = np.sign(x[i] - x[j])
    sy = np.sign(y[i] - y[j])
    prod = sx * sy
    return (
        int((prod > 0).sum()),
        int((prod < 0).sum()),
        int((sx == 0).sum()),
        int((sy == 0).sum()),
        len(i),
    )


def kendall_tau(x: ArrayLike, y: ArrayLike, variant: Literal["a", "b", "gamma"] = "b") -> float:
    r"""Kendall's rank correlation between two score vectors over the same objects.

    Over the n0 = n(n − 1)/2 unordered pairs: c concordant, d discordant, n1 tied in x, n2
    tied in y:

    * ``"a"``: τ_a = (c − d) / n0;
    * ``"b"`` (default, scipy's ``kendalltau``): τ_b = (c − d) / √((n0 − n1)(n0 − n2));
    * ``"gamma"``: Goodman–Kruskal γ = (c − d) / (c + d) — the statistic Golbus & Aslam (2013)
      call τ.

    Without ties the three agree. Undefined (n < 2 or a zero denominator) gives NaN.
    """
    check_option("variant", variant, ("a", "b", "gamma"))
    x, y = _vectors(x, y)
    if len(x) < 2:
        return float("nan")
    c, d, n1, n2, n0 = concordance_counts(x, y)
    if variant == "a":
        den = float(n0)
    elif variant == "b":
        den = float(np.sqrt(float(n0 - n1) * float(n0 - n2)))
    else:
        den = float(c + d)
    return float((c - d) / den) if den > 0 else float("nan")


def tau_ap(x: ArrayLike, y: ArrayLike, *, symmetric: bool = False) -> float:
    r"""AP correlation τ_AP of ranking x against the "true" ranking y (Yilmaz et al. 2008).

    Order the items by x descending; for the item at position i = 2..N, C(i) is the number of
    items above it (in x's order) that y also ranks above it. Then

    .. math:: \tau_{AP}(x \mid y) = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1 .

    Top-weighted: swapping the top two of five items gives 0.5, the bottom two 0.875 (Kendall's
    τ: 0.8 for both). ``symmetric=True`` returns (τ_AP(x|y) + τ_AP(y|x)) / 2. Ties in x or y
    make τ_AP undefined: a OptionError (ValueError). N < 2 gives NaN.
    """
    x, y = _vectors(x, y)
    n = len(x)
    if n < 2:
        return float("nan")
    if len(np.unique(x)) < n or len(np.unique(y)) < n:
        raise OptionError(
            "tau_ap is undefined with tied scores (Yilmaz et al. 2008 assume total orders); "
            "break the ties or use method='kendall_b'"
        )
    if symmetric:
        return (tau_ap(x, y) + tau_ap(y, x)) / 2.0
    yo = y[np.argsort(-x, kind="stable")]
    above = np.tril(yo[None, :] > yo[:, None], k=-1)  # [i, j]: j above i in x and in y
    c = above.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * np.sum(c / np.arange(1, n)) - 1.0)


def tau_ap_b(x, y) -> float:
    r"""Urbano & Marrero's (2017) tie-aware AP correlation τ_AP,b (the "agreement" scenario).

    Symmetric: τ_AP,b = (τ(x → y) + τ(y → x)) / 2, with, for a reference ranking r and
    another o (both by score descending),

    .. math:: \tau(r \to o) = \frac{2}{|T|} \sum_{i \in T} \frac{c_i}{a_i} - 1

    where a_i = #{j : r_j > r_i} is the number of items strictly above i's tie group in r,
    T = {i : a_i > 0} the items below r's top group, and c_i = #{j : r_j > r_i, o_j > o_i}
    those of them also strictly above i in o. Without ties a_i = i − 1 and τ_AP,b is the
    symmetric τ_AP of Yilmaz et al. (2008). NaN for fewer than two items or a ranking that is
    all tied. Equals the ``tauAP_b`` of Urbano's R package ``ircor`` (checked on its test
    cases), the form TREC AutoJudge reports.

    References
    ----------
    Urbano, J., Marrero, M. (2017). The treatment of ties in AP correlation. ICTIR.
    """
    from pdireval.stats.correlation_rows import tau_ap_rows

    x, y = _vectors(x, y)
    if len(x) < 2:
        return float("nan")
    return float(tau_ap_rows(x[None, :], y[None, :], variant="b")[0])


def rank_correlation(x, y, method: str = "kendall_b", *, p: float = 0.9) -> tuple[float, float]:
    """(statistic, p_value) of one correlation method between two score vectors.

    p-values (two-sided, H0: no association) come from scipy for ``kendall_b`` (which
    equals ``kendall_a`` without ties, so τ_a gets that p-value when neither vector has
    ties, NaN otherwise), ``spearman`` and ``pearson``; γ, τ_AP and RBO have none (NaN).
    ``"tau_ap_b"`` is :func:`tau_ap_b` (tie-aware, symmetric).
    ``"rbo"`` is the extrapolated rank-biased overlap with persistence ``p`` (Webber, Moffat
    & Zobel 2010) of the two orders by score descending, tie-aware: its mean over every
    order of the tied scores (:func:`pdireval.stats.rank_overlap.rbo_ext_ties`).
    """
    check_option("method", method, CORRELATION_METHODS)
    x, y = _vectors(x, y)
    if method == "rbo":
        from pdireval.stats.rank_overlap import rbo_ext_ties

        return rbo_ext_ties(x, y, p), float("nan")
    if method in ("kendall_a", "kendall_b", "gamma"):
        stat = kendall_tau(x, y, variant=_KENDALL_VARIANTS[method])
        p = float("nan")
        untied = len(np.unique(x)) == len(x) and len(np.unique(y)) == len(y)
        if len(x) >= 2 and (method == "kendall_b" or (method == "kendall_a" and untied)):
            if not np.isnan(stat):
                p = _adapters.kendalltau_b(x, y)[1]
        return stat, p
    if method == "spearman":
        if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            return float("nan"), float("nan")
        return _adapters.spearman(x, y)
    if method == "pearson":
        return _adapters.pearson(x, y)
    if method == "tau_ap_b":
        return tau_ap_b(x, y), float("nan")
    return tau_ap(x, y, symmetric=method == "tau_ap_sym"), float("nan")
