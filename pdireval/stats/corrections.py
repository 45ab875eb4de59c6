"""Multiple-comparison adjustment of p-values (array level, vectorised)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pdireval.core.chunking import CHUNK_CELLS
from pdireval.errors import OptionError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import Correction

__all__ = [
    "adjust_pvalues",
    "canonical_correction",
    "CORRECTIONS",
    "CORRECTION_ALIASES",
    "RESAMPLING_CORRECTIONS",
    "RESAMPLING_ALIASES",
]

#: Accepted ``correction=`` values (None: no adjustment).
CORRECTIONS = (None, "bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel", "bh", "by")

#: Corrections that resample the per-query differences (Westfall-Young step-down and
#: single-step maxT, closed testing; :mod:`pdireval.stats.multiplicity`): they need the data,
#: not only the p-values, so :func:`pdireval.compare` applies them, not :func:`adjust_pvalues`.
RESAMPLING_CORRECTIONS = ("maxt", "maxt-single", "closed")

#: Other spellings of the resampling corrections.
RESAMPLING_ALIASES = {
    "westfall-young": "maxt",
    "wy": "maxt",
    "maxt-stepdown": "maxt",
    "maxt-step-down": "maxt",
    "maxt-singlestep": "maxt-single",
    "maxt-single-step": "maxt-single",
    "closed-testing": "closed",
}

#: Other tools' spellings of the same corrections: statsmodels' ``multipletests`` method names
#: and their short forms (PyTerrier's ``pt.Experiment(correction=...)`` passes its value to
#: ``multipletests``, so these are PyTerrier's names too), read case-insensitively.
CORRECTION_ALIASES = {
    "none": None,
    "b": "bonferroni",
    "bonf": "bonferroni",
    "s": "sidak",
    "h": "holm",
    "hs": "holm-sidak",
    "sh": "hochberg",
    "simes-hochberg": "hochberg",
    "ho": "hommel",
    "fdr_bh": "bh",
    "fdr_i": "bh",
    "fdr_p": "bh",
    "fdri": "bh",
    "fdrp": "bh",
    "fdr_by": "by",
    "fdr_n": "by",
    "fdr_c": "by",
    "fdrn": "by",
    "fdrcorr": "by",
}

#: statsmodels' methods that are not corrections of this module (adaptive two-stage FDR and
#: local FDR procedures): named in the error so that nobody is silently given another one.
_NOT_PROVIDED = (
    "fdr_tsbky",
    "fdr_2sbky",
    "fdr_twostage",
    "fdr_tsbh",
    "fdr_2sbh",
    "fdr_gbs",
    "lfdr",
    "lfdr_sl",
)


def canonical_correction(correction, *, resampling: bool = False):
    """pdireval's name of a ``correction=`` value given in any supported spelling.

    ``resampling=True`` (:func:`pdireval.compare`) also accepts the corrections that resample
    the data (``RESAMPLING_CORRECTIONS``: ``"maxt"``, ``"maxt-single"``, ``"closed"``);
    elsewhere they raise an OptionError that says where they are available.

    pdireval's own names (``CORRECTIONS``) are returned as they are; statsmodels'
    ``multipletests`` names and short forms (``"fdr_bh"``, ``"hs"``, ``"simes-hochberg"``,
    ...; see ``CORRECTION_ALIASES``) are read case-insensitively and mapped to the same
    procedure, so both spellings give identical results.

    Raises
    ------
    OptionError
        For any other value, listing the accepted names.
    """
    if correction is None or correction in CORRECTIONS:
        return correction
    if isinstance(correction, str):
        key = correction.strip().lower()
        key = RESAMPLING_ALIASES.get(key, key)
        if key in RESAMPLING_CORRECTIONS:
            if resampling:
                return key
            raise OptionError(
                f"correction={correction!r} resamples the per-query differences of every pair "
                "at once, so it needs the scores, not only p-values: use "
                f"pdireval.compare(scores, correction={key!r}) (or "
                "pdireval.stats.multiplicity.resampling_adjust on a queries x pairs array of "
                "differences), or a p-value correction here such as 'holm'."
            )
        if key in CORRECTIONS:
            return key
        if key in CORRECTION_ALIASES:
            return CORRECTION_ALIASES[key]
        if key in _NOT_PROVIDED:
            raise OptionError(
                f"correction={correction!r} (statsmodels' adaptive or local FDR procedure) is not "
                "provided; use 'bh' (Benjamini-Hochberg, statsmodels' 'fdr_bh') or 'by' "
                "(Benjamini-Yekutieli, 'fdr_by')."
            )
    names = CORRECTIONS + (RESAMPLING_CORRECTIONS if resampling else ())
    allowed = ", ".join(repr(c) for c in names)
    raise OptionError(
        f"correction= must be one of {allowed} (or statsmodels' multipletests names such as "
        f"'fdr_bh', 'hs', 'simes-hochberg'); got {correction!r}."
    )


def _sidak(p, m):
    """1 − (1 − p)^m, computed as −expm1(m·log1p(−p)) (exact for tiny p)."""
    with np.errstate(divide="ignore"):
        return -np.expm1(m * np.log1p(-p))


def _hommel_sorted(q):
    r"""Hommel (1988) adjusted p-values of the ascending p-values ``q`` (closed Simes tests).

    With n p-values and, for every family size m = 2..n, the Simes value of the m largest,
    c_m = m · min_{j=1..m} q_{(n−m+j)} / j, the adjusted value of the i-th smallest is

    .. math:: \tilde p_i = \max\Big(q_i,\ \max_{m \ge n-i+1} c_m,\
              \max_{2 \le m \le n-i} \min(m\,q_i, c_m)\Big)

    (1-based i) — the same numbers as statsmodels' ``multipletests(method="hommel")``, which
    updates the vector once per m; here both maxima are taken over chunks of the (i, m) grid,
    O(n²) work without a Python loop per p-value.
    """
    n = len(q)
    out = q.copy()
    if n < 2:
        return out
    ms = np.arange(2, n + 1)
    c = np.empty(n - 1)
    step = max(1, CHUNK_CELLS // n)
    j = np.arange(1, n + 1, dtype=np.float64)
    for lo in range(0, len(ms), step):  # chunks of family sizes: c_m
        m = ms[lo : lo + step, None]
        idx = (n - m) + np.arange(n)[None, :]  # position n-m+j-1 for j = 1..n
        valid = idx < n
        vals = np.where(valid, q[np.minimum(idx, n - 1)] / j[None, :], np.inf)
        c[lo : lo + step] = m[:, 0] * vals.min(axis=1)
    # suffix maximum of c over m >= n - i + 1 (1-based i): for 0-based i, m >= n - i
    suffix = np.maximum.accumulate(c[::-1])[::-1]  # suffix[k] = max(c[k:]), c[k] is m = k + 2
    i0 = np.arange(n)
    first_m = np.maximum(n - i0, 2)  # smallest m with i in the last m
    out = np.maximum(out, suffix[first_m - 2])
    for lo in range(0, n, step):  # chunks of p-values: max over m < n - i of min(m q_i, c_m)
        rows = i0[lo : lo + step]
        grid = np.minimum(ms[None, :] * q[rows, None], c[None, :])
        grid = np.where(ms[None, :] < (n - rows)[:, None], grid, -np.inf)
        out[rows] = np.maximum(out[rows], grid.max(axis=1))
    return out


def adjust_pvalues(p: ArrayLike, method: Correction | None) -> np.ndarray:
    r"""Adjust a family of p-values for multiple comparisons.

    With m p-values and p_(1) ≤ … ≤ p_(m) their ascending order, the adjusted value of
    p_(i) is (every result capped at 1):

    * ``"bonferroni"``: m·p_(i).
    * ``"sidak"`` (Šidák 1967): 1 − (1 − p_(i))^m.
    * ``"holm"`` (Holm 1979), step-down: max_{j ≤ i} (m − j + 1)·p_(j).
    * ``"holm-sidak"`` (Holm 1979 with Šidák's inequality), step-down:
      max_{j ≤ i} 1 − (1 − p_(j))^(m − j + 1).
    * ``"hochberg"`` (Hochberg 1988), step-up: min_{j ≥ i} (m − j + 1)·p_(j).
    * ``"hommel"`` (Hommel 1988): the closed testing procedure of Simes tests (see
      :func:`_hommel_sorted` for the formula).
    * ``"bh"`` (Benjamini & Hochberg 1995), false discovery rate, step-up:
      min_{j ≥ i} m·p_(j)/j.
    * ``"by"`` (Benjamini & Yekutieli 2001), false discovery rate under any dependence:
      min_{j ≥ i} m·c_m·p_(j)/j with c_m = Σ_{k=1..m} 1/k.
    * ``None``: unchanged.

    Bonferroni, Šidák, Holm and Holm–Šidák control the family-wise error rate under any
    dependence (Šidák-based ones for independent or positively dependent tests); Hochberg and
    Hommel need the Simes inequality (independence or positive dependence); BH controls the
    false discovery rate under independence / positive dependence, BY under any dependence.
    The numbers equal statsmodels' ``multipletests`` (methods ``bonferroni``, ``sidak``,
    ``holm``, ``holm-sidak``, ``simes-hochberg``, ``hommel``, ``fdr_bh``, ``fdr_by``), checked
    in the tests. NaN p-values are left out of the family and stay NaN.

    Parameters
    ----------
    p
        1-D array of p-values in [0, 1].
    method
        One of ``CORRECTIONS``, or statsmodels' name of the same procedure (see
        :func:`canonical_correction`).

    Returns
    -------
    ndarray
        float64 adjusted p-values, in the input order.

    References
    ----------
    Šidák, Z. (1967). Rectangular confidence regions for the means of multivariate normal
    distributions. JASA 62. Holm, S. (1979). A simple sequentially rejective multiple test
    procedure. Scand. J. Statist. 6. Hochberg, Y. (1988). A sharper Bonferroni procedure for
    multiple tests of significance. Biometrika 75. Hommel, G. (1988). A stagewise rejective
    multiple test procedure based on a modified Bonferroni test. Biometrika 75. Benjamini, Y.,
    Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57. Benjamini, Y.,
    Yekutieli, D. (2001). The control of the false discovery rate in multiple testing under
    dependency. Annals of Statistics 29.
    """
    method = canonical_correction(method)
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = len(q)
    if method is None or m == 0:
        return out
    if method == "bonferroni":
        adj = q * m
    elif method == "sidak":
        adj = _sidak(q, m)
    else:
        order = np.argsort(q, kind="stable")
        s = q[order]
        ranks = np.arange(1, m + 1, dtype=np.float64)
        down = m - ranks + 1  # m, m-1, ..., 1
        if method == "holm":
            adj_sorted = np.maximum.accumulate(down * s)
        elif method == "holm-sidak":
            adj_sorted = np.maximum.accumulate(_sidak(s, down))
        elif method == "hochberg":
            adj_sorted = np.minimum.accumulate((down * s)[::-1])[::-1]
        elif method == "hommel":
            adj_sorted = _hommel_sorted(s)
        else:  # bh, by
            factor = m / ranks
            if method == "by":
                factor = factor * np.sum(1.0 / ranks)
            adj_sorted = np.minimum.accumulate((factor * s)[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = adj_sorted
    out[ok] = np.minimum(adj, 1.0)
    return out
