"""Information theory of rankings: Theorem 1 (tau <-> information), plug-in (conditional) mutual
information, pair information."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, overload

import numpy as np

from pdireval.errors import OptionError, renamed_options
from pdireval.measures.ric import binary_entropy

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import TiedPairs

__all__ = [
    "information_from_tau",
    "tau_from_information",
    "plugin_mutual_information",
    "plugin_conditional_mutual_information",
    "pair_signs",
    "pair_valid",
    "pair_information",
    "TIES",
]


def information_from_tau(tau: ArrayLike) -> float | np.ndarray:
    """Theorem 1 of Golbus & Aslam (2013): I(τ) = ((1+τ)/2)·log2(1+τ) + ((1−τ)/2)·log2(1−τ) bits.

    Equal to 1 − H2((1 − τ)/2) (Corollary 1). Exact for total orders, and for γ when tied
    pairs are dropped. I(τ) = I(−τ); range [0, 1] bits.

    Parameters
    ----------
    tau
        A number or array in [−1, 1].

    Returns
    -------
    float or ndarray
        Information in bits (NaN stays NaN).

    Raises
    ------
    ValueError
        A value outside [−1, 1].

    References
    ----------
    Golbus, P. B., & Aslam, J. A. (2013). A Mutual Information-based Framework for the Analysis of
    Information Retrieval Systems. SIGIR 2013.
    """
    t = np.asarray(tau, dtype=np.float64)
    if np.any(np.abs(t[~np.isnan(t)]) > 1.0 + 1e-12):
        raise OptionError(
            "information_from_tau needs τ in [−1, 1]; a rank correlation outside it is not a τ."
        )
    t = np.clip(t, -1.0, 1.0)
    out = 1.0 - binary_entropy((1.0 - t) / 2.0)
    out = np.where(np.isnan(t), np.nan, out)
    return float(out) if out.ndim == 0 else out


def tau_from_information(bits: ArrayLike) -> float | np.ndarray:
    """Inverse of Theorem 1 on τ ∈ [0, 1]: τ = 1 − 2·H2⁻¹(1 − I), the root of H2 in [0, ½]
    found by bisection. I(τ) = I(−τ), so the sign is not recoverable.

    Parameters
    ----------
    bits
        Information in [0, 1] bits (number or array).

    Returns
    -------
    float or ndarray
        τ in [0, 1], accurate to about 1e−15 (NaN stays NaN).
    """
    info = np.asarray(bits, dtype=np.float64)
    if np.any((info[~np.isnan(info)] < -1e-12) | (info[~np.isnan(info)] > 1.0 + 1e-12)):
        raise OptionError("tau_from_information needs information in [0, 1] bits.")
    target = 1.0 - np.clip(info, 0.0, 1.0)  # H2(p) with p in [0, 1/2], H2 increasing there
    lo = np.zeros_like(target)
    hi = np.full_like(target, 0.5)
    for _ in range(64):  # bisection: 2^-64 < machine precision on [0, 1/2]
        mid = (lo + hi) / 2.0
        below = binary_entropy(mid) < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    out = 1.0 - (lo + hi)  # 1 − 2p
    out = np.where(np.isnan(info), np.nan, out)
    return float(out) if out.ndim == 0 else out


def _entropy_of_rows(
    group: np.ndarray, columns: list[np.ndarray], weights=None, n_groups=None
) -> np.ndarray:
    """Plug-in entropy (bits) of the joint variable ``columns`` within each group."""
    n = len(group)
    if n_groups is None:
        n_groups = int(group.max()) + 1 if n else 0
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    total = np.bincount(group, weights=w, minlength=n_groups)
    if n == 0:
        return np.zeros(n_groups)
    keys = (
        np.column_stack([group] + [np.asarray(c) for c in columns]) if columns else group[:, None]
    )
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=w, minlength=len(uniq))
    g = uniq[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(counts > 0, counts * np.log2(np.where(counts > 0, counts, 1.0)), 0.0)
        s = np.bincount(g, weights=plogp, minlength=n_groups)
        h = np.where(
            total > 0,
            np.log2(np.where(total > 0, total, 1.0)) - s / np.where(total > 0, total, 1.0),
            np.nan,
        )
    return h


@overload
def plugin_mutual_information(x: ArrayLike, y: ArrayLike, *, group: None = None) -> float: ...
@overload
def plugin_mutual_information(x: ArrayLike, y: ArrayLike, *, group: ArrayLike) -> np.ndarray: ...
def plugin_mutual_information(
    x: ArrayLike, y: ArrayLike, *, group: ArrayLike | None = None
) -> float | np.ndarray:
    """Plug-in (maximum-likelihood) mutual information I(X; Y) in bits of paired discrete
    samples, per group when ``group`` (integer codes) is given: H(X) + H(Y) − H(X, Y)."""
    if group is None:
        return plugin_conditional_mutual_information(x, y, [])
    return plugin_conditional_mutual_information(x, y, [], group=group)


@overload
def plugin_conditional_mutual_information(
    x: ArrayLike, y: ArrayLike, z: Sequence[ArrayLike] = (), *, group: None = None
) -> float: ...
@overload
def plugin_conditional_mutual_information(
    x: ArrayLike, y: ArrayLike, z: Sequence[ArrayLike] = (), *, group: ArrayLike
) -> np.ndarray: ...
def plugin_conditional_mutual_information(
    x: ArrayLike, y: ArrayLike, z: Sequence[ArrayLike] = (), *, group: ArrayLike | None = None
) -> float | np.ndarray:
    """Plug-in I(X; Y | Z) in bits, Z the joint of the arrays in ``z``:

    I(X;Y|Z) = Σ p(x,y,z)·log2[p(x,y,z)·p(z) / (p(x,z)·p(y,z))] = H(X,Z) + H(Y,Z) − H(X,Y,Z) − H(Z).

    Returns a float, or an array over groups when ``group`` is given (NaN for an empty group).
    """
    x = np.asarray(x)
    y = np.asarray(y)
    zs = [np.asarray(c) for c in z]
    single = group is None
    g = np.zeros(len(x), dtype=np.int64) if single else np.asarray(group, dtype=np.int64)
    n_groups = 1 if single else (int(g.max()) + 1 if len(g) else 0)
    hxz = _entropy_of_rows(g, [x] + zs, n_groups=n_groups)
    hyz = _entropy_of_rows(g, [y] + zs, n_groups=n_groups)
    hxyz = _entropy_of_rows(g, [x, y] + zs, n_groups=n_groups)
    hz = _entropy_of_rows(g, zs, n_groups=n_groups)
    out = np.maximum(hxz + hyz - hxyz - hz, 0.0)  # clip round-off below 0
    return float(out[0]) if single else out


def pair_signs(values) -> np.ndarray:
    """X_R over the ordered pairs of distinct objects: for ``values`` of shape (..., n),
    an int8 array (..., n(n−1)) with sign(v_i − v_j) for every i ≠ j (row-major i, then j).
    A pair involving NaN gets 0 here; :func:`pair_valid` flags such pairs for removal."""
    v = np.asarray(values, dtype=np.float64)
    n = v.shape[-1]
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    diff = v[..., i] - v[..., j]
    return np.sign(np.nan_to_num(diff, nan=0.0)).astype(np.int8)


def pair_valid(values) -> np.ndarray:
    """Boolean (..., n(n−1)): both objects of the ordered pair have a non-NaN value."""
    v = np.asarray(values, dtype=np.float64)
    n = v.shape[-1]
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    return ~(np.isnan(v[..., i]) | np.isnan(v[..., j]))


@renamed_options(ties="tied_pairs")
def pair_information(
    x: ArrayLike,
    y: ArrayLike,
    given: Sequence[ArrayLike] = (),
    *,
    tied_pairs: TiedPairs = "drop",
) -> tuple[float, int]:
    """Information τ of two score vectors over the same objects (arrays of length n), given
    zero or more others: τ_I(X, Y | Z_1..Z_m) in bits, direct plug-in over ordered pairs.

    ``tied_pairs="drop"`` (default) discards every ordered pair tied in any vector, ``"keep"``
    keeps them with value 0 (``ties=`` before 0.2, deprecated).

    Returns ``(information_tau, n_pairs)``; n_pairs = ordered pairs used; no pair → NaN.
    """
    if tied_pairs not in TIES:
        raise OptionError(f"tied_pairs= must be one of {TIES}, got {tied_pairs!r}")
    stack = np.vstack(
        [np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)]
        + [np.asarray(z, dtype=np.float64) for z in given]
    )
    signs = pair_signs(stack)
    keep = pair_valid(stack).all(axis=0)
    if tied_pairs == "drop":
        keep &= (signs != 0).all(axis=0)
    s = signs[:, keep]
    if s.shape[1] == 0:
        return np.nan, 0
    return plugin_conditional_mutual_information(s[0], s[1], list(s[2:])), int(s.shape[1])


TIES = ("drop", "keep")
