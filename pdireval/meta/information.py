"""Information τ: Kendall's τ as mutual information, and its conditional form.

Golbus & Aslam 2013 (seed 001, §3–4 and appendix); methods-spec §5.1–5.5.

Sample space: the n(n − 1) *ordered* pairs (i, j) of distinct objects (here: systems),
uniform. A ranking R defines the pair variable X_R(i, j) = +1 if R puts i above j, −1 if
below, and 0 if it ties them (library convention, methods-spec §5.2; seed 001 eq. 12
gives a tied pair −1 in both orders, which breaks the antisymmetry Theorem 1 needs).
Then τ_a = E[X_R·X_S], and information τ is τ_I(R, S) = I(X_R; X_S) in bits.

Theorem 1 (seed 001): for total orders, I(X_R; X_S) = ((1+τ)/2)·log2(1+τ) +
((1−τ)/2)·log2(1−τ) = 1 − H2((1 − τ)/2). With ``ties="drop"`` (every ordered pair tied in
any ranking involved is discarded) it holds exactly for γ = (c − d)/(c + d), the statistic
seed 001 calls τ (its footnote's "τ_A" is Goodman–Kruskal's γ; methods-spec §5.1, §10 #9).
Kendall's τ_a / τ_b / γ themselves are :func:`pdireval.meta.correlation.kendall_tau`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..errors import OptionError, SchemaError
from ..measures.information import binary_entropy
from ..schema import canonical_scores, score_matrix

__all__ = [
    "information_tau",
    "information_from_tau",
    "tau_from_information",
    "pair_signs",
    "plugin_mutual_information",
    "plugin_conditional_mutual_information",
    "pair_information",
]

TIES = ("drop", "value")


# --------------------------------------------------------------------------- Theorem 1


def information_from_tau(tau):
    """Theorem 1 of seed 001: I(τ) = ((1+τ)/2)·log2(1+τ) + ((1−τ)/2)·log2(1−τ) bits.

    Equal to 1 − H2((1 − τ)/2) (Corollary 1). Exact for total orders, and for γ when tied
    pairs are dropped (methods-spec §5.3–5.4). I(τ) = I(−τ); range [0, 1] bits.

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
    """
    t = np.asarray(tau, dtype=np.float64)
    if np.any(np.abs(t[~np.isnan(t)]) > 1.0 + 1e-12):
        raise OptionError("information_from_tau needs τ in [−1, 1]; a rank correlation outside it is not a τ.")
    t = np.clip(t, -1.0, 1.0)
    out = 1.0 - binary_entropy((1.0 - t) / 2.0)
    out = np.where(np.isnan(t), np.nan, out)
    return float(out) if out.ndim == 0 else out


def tau_from_information(bits):
    """Inverse of Theorem 1 on τ ∈ [0, 1]: τ = 1 − 2·H2⁻¹(1 − I), the root of H2 in [0, ½]
    found by bisection (methods-spec §5.3). I(τ) = I(−τ), so the sign is not recoverable.

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


# --------------------------------------------------------------------------- plug-in MI


def _entropy_of_rows(group: np.ndarray, columns: list[np.ndarray], weights=None, n_groups=None) -> np.ndarray:
    """Plug-in entropy (bits) of the joint variable ``columns`` within each group."""
    n = len(group)
    if n_groups is None:
        n_groups = int(group.max()) + 1 if n else 0
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    total = np.bincount(group, weights=w, minlength=n_groups)
    if n == 0:
        return np.zeros(n_groups)
    keys = np.column_stack([group] + [np.asarray(c) for c in columns]) if columns else group[:, None]
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=w, minlength=len(uniq))
    g = uniq[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(counts > 0, counts * np.log2(np.where(counts > 0, counts, 1.0)), 0.0)
        s = np.bincount(g, weights=plogp, minlength=n_groups)
        h = np.where(total > 0, np.log2(np.where(total > 0, total, 1.0)) - s / np.where(total > 0, total, 1.0), np.nan)
    return h


def plugin_mutual_information(x, y, *, group=None):
    """Plug-in (maximum-likelihood) mutual information I(X; Y) in bits of paired discrete
    samples, per group when ``group`` (integer codes) is given: H(X) + H(Y) − H(X, Y)."""
    return plugin_conditional_mutual_information(x, y, [], group=group)


def plugin_conditional_mutual_information(x, y, z: Sequence = (), *, group=None):
    """Plug-in I(X; Y | Z) in bits, Z the joint of the arrays in ``z`` (methods-spec §5.5):

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


# --------------------------------------------------------------------------- pairs


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


def pair_information(x, y, given: Sequence = (), *, ties: str = "drop"):
    """Information τ of two score vectors over the same objects (arrays of length n), given
    zero or more others: τ_I(X, Y | Z_1..Z_m) in bits, direct plug-in over ordered pairs.

    Returns ``(information_tau, n_pairs)``; n_pairs = ordered pairs used; no pair → NaN.
    """
    if ties not in TIES:
        raise OptionError(f"ties= must be one of {TIES}, got {ties!r}")
    stack = np.vstack([np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)] + [np.asarray(z, dtype=np.float64) for z in given])
    signs = pair_signs(stack)
    keep = pair_valid(stack).all(axis=0)
    if ties == "drop":
        keep &= (signs != 0).all(axis=0)
    s = signs[:, keep]
    if s.shape[1] == 0:
        return np.nan, 0
    return plugin_conditional_mutual_information(s[0], s[1], list(s[2:])), int(s.shape[1])


# --------------------------------------------------------------------------- scores frames


def _as_list(value, what: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"{what} must be a measure name (str) or a list of them, got {value!r}")


def _given_sets(given) -> list[tuple[str, ...]]:
    """given: a str (one measure), a sequence of str (one joint set), or a list whose items
    are str / tuples / lists / () (several sets, one output row each)."""
    if given is None:
        return [()]
    if isinstance(given, str):
        return [(given,)]
    if not isinstance(given, Sequence):
        raise TypeError(f"given= must be a measure name, a tuple of them, or a list of such sets; got {given!r}")
    if len(given) == 0:
        return [()]
    if all(isinstance(g, str) for g in given):
        return [tuple(given)]
    sets = []
    for g in given:
        if g is None:
            sets.append(())
        elif isinstance(g, str):
            sets.append((g,))
        elif isinstance(g, Sequence) and all(isinstance(v, str) for v in g):
            sets.append(tuple(g))
        else:
            raise TypeError(f"given= item {g!r} is not a measure name or a tuple of measure names")
    return sets


def _resolve(name: str, available: list[str]) -> str:
    if name in available:
        return name
    from ..errors import MeasureError
    from ..measures import parse_measure

    try:
        canonical = str(parse_measure(name))
    except (MeasureError, TypeError):
        canonical = None
    if canonical is not None and canonical in available:
        return canonical
    raise SchemaError(
        f"the scores frame has no measure {name!r} (its measures: {available}). Pass one of "
        "those names, or evaluate that measure first (pdireval.evaluate(run, [..., "
        f"{name!r}], qrels=qrels))."
    )


def information_tau(
    scores: pd.DataFrame,
    a,
    b,
    *,
    given=(),
    per_query: bool = False,
    ties: str = "drop",
) -> pd.DataFrame:
    """Information τ between the rankings of systems by two measures, optionally given others.

    τ_I(A, B | G_1..G_m) = I(X_A; X_B | X_G1, …, X_Gm) in bits (seed 001 eqs. 14–15;
    methods-spec §5.4–5.5): the plug-in mutual information between the pair variables of
    the system rankings induced by measures A and B, conditioned on the joint outcome of the
    rankings by the ``given`` measures, over the ordered pairs of distinct systems. Without
    ``given`` and with ``ties="drop"`` it equals Theorem 1 applied to γ = (c − d)/(c + d)
    (see :func:`information_from_tau`). Conditioning on A itself gives 0; the chain rule
    I(A; B | G) = I(A; (B, G)) − I(A; G) holds exactly on the same pair sample.

    Parameters
    ----------
    scores
        A scores frame (``system, query, measure, value``) holding measures ``a``, ``b`` and
        every ``given`` measure. Extra columns (``collection``, ``k``, ...) are grouping keys:
        one result per group.
    a, b
        Measure name(s) as spelled in ``scores["measure"]`` (canonical spellings such as
        ``"map"`` → ``"AP"`` are also matched). A list gives every (a, b) combination.
    given
        Conditioning rankings: ``()`` (none), a measure name, a tuple of names (conditioned
        on jointly, seed 001 Table 1's "| nDCG, ERR"), or a list of such sets — e.g.
        ``[(), "nDCG", "ERR", ("nDCG", "ERR")]`` — for one row per set.
    per_query
        ``False`` (default; seed 001 Table 1): rank systems by their mean over queries (NaN
        values skipped). ``True`` (seed 001 Figure 1): one ranking of systems per query.
    ties
        ``"drop"`` (default): discard every ordered pair tied (or NaN) in any ranking
        involved. ``"value"``: keep tied pairs with value 0 (three-valued variables; no
        closed form, and the maximum is no longer 1 bit). Pairs with a NaN score are always
        discarded.

    Returns
    -------
    DataFrame
        One row per group × (a, b) × given set (× query with ``per_query``):
        the grouping columns of ``scores`` other than ``measure`` (if any), then
        ``measure_a``, ``measure_b`` (str), ``given`` (str: the conditioning measures joined
        by ``", "``; ``""`` when none), ``query`` (only with ``per_query``),
        ``information_tau`` (float64 bits; NaN when no pair is left) and ``n_pairs`` (int64:
        ordered pairs of systems in the sample, i.e. twice the unordered count). Ordered by
        group, a, b, given set as given, then query.

    Raises
    ------
    SchemaError
        A measure missing from ``scores``, an incomplete system × query matrix, or measures
        scored on different systems or queries.
    ValueError
        ``ties`` not in ``("drop", "value")``.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=6, n_queries=5, depth=30, rng=2)
    >>> scores = pdireval.evaluate(run, ["AP", "nDCG", "P@10"], qrels=qrels)
    >>> table = pdireval.information_tau(scores, "AP", "nDCG", given=[(), "P@10"])
    >>> list(table.columns)
    ['measure_a', 'measure_b', 'given', 'information_tau', 'n_pairs']

    References
    ----------
    P. B. Golbus and J. A. Aslam. A mutual information-based framework for the analysis of
    information retrieval systems. SIGIR 2013.
    """
    if ties not in TIES:
        raise OptionError(f"ties= must be one of {TIES}, got {ties!r}")
    if not isinstance(per_query, (bool, np.bool_)):
        raise TypeError("per_query= must be True or False")
    frame = canonical_scores(scores)
    a_list = _as_list(a, "a")
    b_list = _as_list(b, "b")
    sets = _given_sets(given)
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    groups = [({}, frame)] if not extra else [
        (dict(zip(extra, key if isinstance(key, tuple) else (key,))), grp)
        for key, grp in frame.groupby(extra, sort=True, dropna=False, observed=True)
    ]
    rows = []
    for keys, grp in groups:
        available = list(pd.unique(grp["measure"]))
        names = {n: _resolve(n, available) for n in a_list + b_list + [g for s in sets for g in s]}
        matrices: dict[str, pd.DataFrame] = {}
        for name in dict.fromkeys(names.values()):
            part = grp[grp["measure"] == name]
            # missing (system, query) cells are an error; NaN values are allowed (pairs dropped)
            score_matrix(part.assign(value=part["value"].fillna(0.0)), what=f"{name!r} scores")
            matrices[name] = score_matrix(part, what=f"{name!r} scores", allow_nan=True)
        ref = next(iter(matrices.values()))
        for name, mat in matrices.items():
            if not (mat.index.equals(ref.index) and mat.columns.equals(ref.columns)):
                raise SchemaError(
                    f"measure {name!r} is scored on other systems or queries than "
                    f"{next(iter(matrices))!r}: information τ compares rankings of the same "
                    "systems. Evaluate all measures on the same run and qrels."
                )
        queries = ref.index.to_numpy()
        for ma in a_list:
            for mb in b_list:
                for gset in sets:
                    used = [names[ma], names[mb]] + [names[g] for g in gset]
                    stack = np.stack([matrices[u].to_numpy(dtype=np.float64) for u in used])  # m × q × s
                    if not per_query:
                        with np.errstate(all="ignore"):
                            stack = np.nanmean(stack, axis=1, keepdims=True) if stack.shape[1] else stack
                    info, n_pairs = _info_tau_rows(stack, ties)
                    block = {**{k: [v] * len(info) for k, v in keys.items()}}
                    block.update(measure_a=ma, measure_b=mb, given=", ".join(gset))
                    if per_query:
                        block["query"] = queries
                    block.update(information_tau=info, n_pairs=n_pairs)
                    rows.append(pd.DataFrame(block, index=pd.RangeIndex(len(info))))
    cols = extra + ["measure_a", "measure_b", "given"] + (["query"] if per_query else []) + ["information_tau", "n_pairs"]
    out = pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
    out["information_tau"] = out["information_tau"].astype(np.float64)
    out["n_pairs"] = out["n_pairs"].astype(np.int64)
    return out


def _info_tau_rows(stack: np.ndarray, ties: str):
    """stack: (m rankings, r rows, s systems) → per row (information τ, ordered pairs used)."""
    m, r, _ = stack.shape
    signs = pair_signs(stack)  # m × r × P
    keep = pair_valid(stack).all(axis=0)
    if ties == "drop":
        keep &= (signs != 0).all(axis=0)
    row = np.broadcast_to(np.arange(r)[:, None], keep.shape)[keep]
    cols = [signs[k][keep] for k in range(m)]
    n_pairs = np.bincount(row, minlength=r).astype(np.int64)
    if len(row) == 0:
        return np.full(r, np.nan), n_pairs
    info = plugin_conditional_mutual_information(cols[0], cols[1], cols[2:], group=row)
    info = np.concatenate([info, np.full(r - len(info), np.nan)]) if len(info) < r else info
    info = np.where(n_pairs > 0, info, np.nan)
    return info, n_pairs
