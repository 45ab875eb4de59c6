"""Stability-optimal nDCG gains and discounts (Kanoulas & Aslam 2009).

nDCG@k of a (system, query) is a ratio of sums that are linear in the gains for fixed
discounts and linear in the discounts for fixed gains:

    DCG@k = Σ_c Σ_{r≤k} g_c d_r H[c, r],        IDCG@k = Σ_c g_c Σ_{r ∈ block_c} d_r,

where ``H[c, r]`` = 1 when the document at rank r has relevance grade c, and ``block_c`` are
the ranks the ideal list gives the pool's grade-c documents (the pool's documents sorted by
gain descending: consecutive blocks whose sizes are the pool's grade counts, in the order of
the gains). So once ``H`` (per segment) and the grade counts of the pool (per query) are
precomputed, Φ of nDCG@k for a new gain or discount vector costs two small tensor
contractions and one closed-form ANOVA — the runs are never re-evaluated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.errors import (
    OptionError,
    SchemaError,
    check_bool,
    check_int,
    check_option,
    check_real,
    options_by_name,
)
from pdireval.evaluation import Prepared, prepare
from pdireval.measures.view import view_of
from pdireval.runs.optimize_weights import (
    STANDARD_DISCOUNTS,
    STANDARD_GAINS,
    standard_discount,
    standard_gain,
)
from pdireval.stats.gtheory import anova_table, e_rho2, phi, queries_needed, variance_components
from pdireval.types import NegativeComponents

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal


__all__ = ["optimize", "OptimizeResult", "standard_discount", "standard_gain"]

WHAT = ("discount", "gain", "both")
# --------------------------------------------------------------------------- precomputation


@dataclass
class _Collection:
    """One collection reduced to what nDCG@K needs for any gains and discounts."""

    name: object
    systems: pd.Index
    queries: pd.Index
    seg_system: np.ndarray
    seg_query: np.ndarray
    H: np.ndarray  # (C, n_seg, K): 1 where rank r of the segment holds a document of grade c
    counts: np.ndarray  # (n_q, C): the pool's documents of each grade

    @property
    def shape(self):
        return len(self.queries), len(self.systems)


def _reduce(prepared: Prepared, grades: np.ndarray, K: int, name) -> _Collection:
    seg = prepared.segments
    present = np.zeros((len(seg.systems), seg.judgments.n_queries), dtype=bool)
    present[seg.seg_system, seg.seg_query] = True
    if not present.all():
        s_idx, q_idx = np.nonzero(~present)
        cells = pd.DataFrame({"system": seg.systems[s_idx], "query": seg.judgments.queries[q_idx]})
        raise SchemaError(
            f"the prepared run does not give every system a ranking for every judged query: "
            f"{len(cells)} (system, query) cell(s) are missing (e.g. {cells.iloc[0].tolist()}). "
            "Prepare it with missing='zero' (unanswered queries score 0), or drop those queries "
            "from the qrels.",
            failure_cases=cells,
        )
    v = view_of(seg)  # trec_eval reading: negative labels are pooled but unjudged (gain 0)
    C = len(grades)
    H = np.zeros((C, v.n_seg, K), dtype=np.float64)
    lab = v.hit_label
    gidx = np.searchsorted(grades, lab)
    keep = (v.hit_pos < K) & (lab > 0)  # NaN -> False
    gidx = gidx[keep]
    H[gidx, v.hit_seg[keep], v.hit_pos[keep]] = 1.0
    qlab = v.q_label
    judged = qlab > 0
    counts = np.zeros((v.n_queries, C), dtype=np.float64)
    np.add.at(counts, (v.q_row_query[judged], np.searchsorted(grades, qlab[judged])), 1.0)
    return _Collection(
        name, seg.systems, seg.judgments.queries, seg.seg_system, seg.seg_query, H, counts
    )


def _grades_of(prepared_list) -> np.ndarray:
    labels = []
    for p in prepared_list:
        lab = view_of(p.segments).q_label
        labels.append(lab[lab > 0])
    grades = np.unique(np.concatenate(labels)) if labels else np.zeros(0)
    if len(grades) == 0:
        raise SchemaError(
            "the qrels hold no relevant (label > 0) document: there is no nDCG to optimise."
        )
    return grades


class _Model:
    """Φ of nDCG@k for any gains g (over grades) and discounts d (over ranks 1..K), for a
    list of objectives (collection, cut-off)."""

    def __init__(
        self,
        collections: list[_Collection],
        cutoffs: list[int],
        K: int,
        n_prime,
        negative_components: NegativeComponents = "clip",
    ):
        self.collections = collections
        self.cutoffs = cutoffs
        self.K = K
        self.objectives = [(c, k) for c in collections for k in cutoffs]
        self.n_prime = n_prime
        self.negative_components = negative_components
        self.n_evaluations = 0
        self.seconds = 0.0  # time spent evaluating Φ

    def matrices(self, g, d):
        """Per objective the query x system matrix of nDCG@k."""
        g = np.asarray(g, dtype=np.float64)
        d = np.asarray(d, dtype=np.float64)
        order = np.lexsort((-np.arange(len(g)), -g))  # gain descending (ties: higher grade first)
        out = []
        for col in self.collections:
            C, n_seg, K = col.H.shape
            A = (g @ col.H.reshape(C, n_seg * K)).reshape(n_seg, K)  # Σ_c g_c H[c]
            cnt = col.counts[:, order]
            ends = np.cumsum(cnt, axis=1)
            starts = ends - cnt
            for k in self.cutoffs:
                dk = d[:k]
                dcg = A[:, :k] @ dk
                dcum = np.concatenate([[0.0], np.cumsum(dk)])
                blocks = (
                    dcum[np.minimum(ends, k).astype(np.int64)]
                    - dcum[np.minimum(starts, k).astype(np.int64)]
                )
                idcg = blocks @ g[order]
                ideal = idcg[col.seg_query]
                val = np.zeros(len(dcg))
                ok = ideal != 0
                val[ok] = dcg[ok] / ideal[ok]
                X = np.zeros(col.shape)
                X[col.seg_query, col.seg_system] = val
                out.append(X)
        return out

    def components(self, g, d):
        rows = []
        for X in self.matrices(g, d):
            tab = anova_table(X)
            n_t, n_s = X.shape
            vs, vt, vr = variance_components(
                tab["ms_system"],
                tab["ms_query"],
                tab["ms_residual"],
                n_s,
                n_t,
                negative_components=self.negative_components,
            )
            rows.append((float(vs), float(vt), float(vr), n_s, n_t))
        return rows

    def phis(self, g, d) -> np.ndarray:
        t0 = time.perf_counter()
        pairs = zip(self.components(g, d), self._n_primes())
        values = [phi(vs, vt, vr, npr) for (vs, vt, vr, _, _), npr in pairs]
        out = np.nan_to_num(np.array(values, dtype=np.float64), nan=0.0)
        self.n_evaluations += 1
        self.seconds += time.perf_counter() - t0
        return out

    def _n_primes(self):
        return [
            float(c.shape[0]) if self.n_prime is None else float(self.n_prime)
            for c, _ in self.objectives
        ]


# --------------------------------------------------------------------------- result


@dataclass
class OptimizeResult:
    """What :func:`optimize` found. Every table is a tidy DataFrame.

    Attributes
    ----------
    what
        ``"discount"``, ``"gain"`` or ``"both"``.
    gains
        One row per relevant grade: ``grade`` (the label), ``gain`` (optimal, or the fixed
        gain when only discounts were optimised), ``gain_start``, plus the standard gains
        ``linear`` and ``exp`` — all normalised to sum 1.
    discounts
        One row per rank 1..K: ``rank``, ``discount`` (optimal, or fixed), ``discount_start``,
        and the standard discounts ``log2``, ``zipf``, ``linear`` over 1..K — all normalised
        to sum 1.
    summary
        One row per objective (``collection`` when ``by=`` was given, ``k``):
        ``n_systems``, ``n_queries_observed``, ``n_queries`` (the n′ of the objective),
        ``phi_start``, ``phi``, ``e_rho2_start``, ``e_rho2``, ``queries_needed_start``,
        ``queries_needed`` (smallest n′ with Φ ≥ target), ``gain_ratio_start``,
        ``gain_ratio`` (gain of the highest grade over the lowest relevant grade; inf
        when the latter is 0), and the solver's ``success``, ``message``, ``n_evaluations``
        (Φ evaluations, all objectives counted once), ``seconds`` (the whole optimisation)
        and ``seconds_per_evaluation`` (mean time of one Φ evaluation: the nDCG matrices
        of every objective for a new vector, and their ANOVA).
    comparison
        One row per objective and function: ``collection`` (if any), ``k``, ``gain`` and
        ``discount`` (the function names; ``optimal`` for the optimum), ``var_system``,
        ``var_query``, ``var_residual``, ``n_queries_observed``, ``phi``, ``e_rho2``,
        ``queries_needed``, ``kendall_tau`` (τ_b between the system ranking by mean
        nDCG under this function and under the optimum) and ``rmse`` (root mean squared
        difference of those system means); Kanoulas & Aslam 2009, Tables 1–4 and Figures 7–8.
    means
        Mean nDCG per system under each compared function: the comparison's keys plus
        ``system`` and ``mean``.
    """

    what: str
    gains: pd.DataFrame
    discounts: pd.DataFrame
    summary: pd.DataFrame
    comparison: pd.DataFrame
    means: pd.DataFrame
    grades: np.ndarray = field(repr=False)

    @property
    def gain(self) -> dict:
        """The optimal (or fixed) gains as a mapping {label: gain}, non-relevant grades 0."""
        return {_label(gr): float(g) for gr, g in zip(self.grades, self.gains["gain"])}

    @property
    def discount(self) -> np.ndarray:
        """The optimal (or fixed) discount factors of ranks 1..K."""
        return self.discounts["discount"].to_numpy(copy=True)

    def measure(self, k: int | None = None) -> str:
        """The measure string of nDCG@k with these gains and discounts, for
        :func:`pdireval.evaluate` (k defaults to the longest cut-off optimised)."""
        k = len(self.discounts) if k is None else int(k)
        d = ",".join(repr(float(x)) for x in self.discount[:k])
        g = ",".join(
            f"{_label(gr)!r}:{float(x)!r}" for gr, x in zip(self.grades, self.gains["gain"])
        )
        return f"nDCG(discount=[{d}],gain={{{g}}})@{k}"


def _label(x):
    x = float(x)
    return int(x) if x.is_integer() else x


# --------------------------------------------------------------------------- optimisation


def _constraints(n: int, monotone: bool, increasing: bool, offset: int, total: int):
    """Linear constraints of one block of ``n`` variables at ``offset`` in a vector of ``total``."""
    cons = []
    A = np.zeros(total)
    A[offset : offset + n] = 1.0
    cons.append({"type": "eq", "fun": lambda x, A=A: A @ x - 1.0, "jac": lambda x, A=A: A})
    if monotone and n > 1:
        M = np.zeros((n - 1, total))
        for i in range(n - 1):  # loop over vector entries (ranks / grades), not data
            if increasing:
                M[i, offset + i + 1], M[i, offset + i] = 1.0, -1.0
            else:
                M[i, offset + i], M[i, offset + i + 1] = 1.0, -1.0
        cons.append({"type": "ineq", "fun": lambda x, M=M: M @ x, "jac": lambda x, M=M: M})
    return cons


def _project(x: np.ndarray, monotone: bool, increasing: bool) -> np.ndarray:
    """Snap a solver's answer onto the feasible set exactly (nDCG is scale-free, so the
    final rescaling to sum 1 does not change any score)."""
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    if monotone:
        x = np.maximum.accumulate(x) if increasing else np.minimum.accumulate(x)
    s = x.sum()
    return x / s if s > 0 else np.full(len(x), 1.0 / len(x))


def _solve(model: _Model, what, g0, d0, monotone, maxiter, ftol):
    from scipy.optimize import minimize

    C, K = len(g0), len(d0)
    opt_g = what in ("gain", "both")
    opt_d = what in ("discount", "both")
    parts = ([("g", C, True)] if opt_g else []) + ([("d", K, False)] if opt_d else [])
    n_x = sum(n for _, n, _ in parts)
    J = len(model.objectives)
    minimax = J > 1
    total = n_x + (1 if minimax else 0)

    def unpack(x):
        pos = 0
        g, d = g0, d0
        for name, n, _ in parts:
            if name == "g":
                g = x[pos : pos + n]
            else:
                d = x[pos : pos + n]
            pos += n
        return g, d

    cache: dict = {}

    def phis(x):
        key = x[:n_x].tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = model.phis(*unpack(x[:n_x]))
        return cache[key]

    cons = []
    offset = 0
    for _, n, increasing in parts:
        cons += _constraints(n, monotone, increasing, offset, total)
        offset += n
    x0 = np.concatenate([g0] * opt_g + [d0] * opt_d)
    bounds: list[tuple[float | None, float | None]] = [(0.0, 1.0)] * n_x
    if minimax:
        phi0 = model.phis(g0, d0)
        x0 = np.append(x0, phi0.min())
        bounds.append((None, None))
        cons.append({"type": "ineq", "fun": lambda x: phis(x) - x[-1]})
        fun = lambda x: -x[-1]  # noqa: E731
        jac = lambda x: np.r_[np.zeros(n_x), -1.0]  # noqa: E731
        res = minimize(
            fun,
            x0,
            jac=jac,
            method="SLSQP",
            bounds=bounds,
            constraints=cons,
            options={"maxiter": maxiter, "ftol": ftol},
        )
    else:
        res = minimize(
            lambda x: -phis(x)[0],
            x0,
            method="SLSQP",
            bounds=bounds,
            constraints=cons,
            options={"maxiter": maxiter, "ftol": ftol},
        )
    x = res.x[:n_x]
    g, d = unpack(x)
    g = _project(g, monotone, True) if opt_g else g0
    d = _project(d, monotone, False) if opt_d else d0
    return g, d, bool(res.success), str(res.message)


def _split(frame: pd.DataFrame | None, by: str, kind: str):
    if frame is None:
        return None
    if by not in frame.columns:
        return None if kind == "qrels" else _no_by(by, frame)
    return {
        key: part.drop(columns=by).reset_index(drop=True)
        for key, part in frame.groupby(by, sort=True, observed=True)
    }


def _no_by(by, frame):
    raise SchemaError(
        f"by={by!r} names no column of the run (it has {list(frame.columns)!r}). "
        "Pass the column that tells collections apart, or by=None."
    )


@options_by_name
def optimize(
    run: pd.DataFrame | Prepared,
    *,
    qrels: pd.DataFrame | None = None,
    k: int | Sequence[int] = 20,
    what: Literal["discount", "gain", "both"] = "discount",
    gain: Literal["linear", "exp"] | Mapping[float, float] = "linear",
    discount: Literal["log2", "zipf", "linear"] | Sequence[float] | np.ndarray = "log2",
    monotone: bool = True,
    by: str | None = None,
    n_queries: float | None = None,
    target: float = 0.95,
    maxiter: int = 200,
    ftol: float = 1e-10,
) -> OptimizeResult:
    """Stability-optimal gains and/or discounts of nDCG@k: maximise Φ (Kanoulas & Aslam 2009).

    Finds the discount factors d_1..d_K over ranks and/or the gains g_1..g_C over the
    relevant grades (non-relevant = 0) that maximise the dependability Φ of nDCG@k
    (:func:`pdireval.reliability`) on a run + qrels collection, subject to

    .. math::

        \\sum_r d_r = 1,\\ d_1 \\ge d_2 \\ge \\dots \\ge d_K \\ge 0, \\qquad
        \\sum_j g_j = 1,\\ 0 \\le g_1 \\le \\dots \\le g_C

    (``monotone=False`` drops the orderings and keeps the simplex: Kanoulas & Aslam's (2009)
    "un-constrained" variant). The simplex loses nothing: nDCG is invariant to scaling the
    gains or the discounts. Solved with ``scipy.optimize.minimize(method="SLSQP")`` from the
    normalised ``gain`` / ``discount``; Φ is not concave, so the answer is a local optimum
    that depends on the start. The answer is never worse than the start: if the solver ends
    below it, the start is returned (``success`` says what the solver reported).

    Each Φ evaluation reuses precomputed per-(system, query) grade-by-rank indicators and
    the pool's grade counts (module docstring): the runs are evaluated once.

    **Several objectives (minimax).** With several cut-offs ``k=[10, 20, 100]`` and/or
    several collections (``by=``), the optimiser maximises the worst Φ_j over the
    objectives (epigraph form: maximise t subject to Φ_j ≥ t), Kanoulas & Aslam's (2009)
    ``fminimax`` "maximising the worst-case stability" with the objectives made explicit. A
    discount vector covers ranks 1..max(k); nDCG@k_j uses its first k_j entries.

    **n′ in the objective.** Φ(n′) = 1/(1 + r/n′) with r = (σ²_t + σ²_st,e)/σ²_s, so for
    one objective the maximiser does not depend on n′ (Kanoulas & Aslam (2009) set n′ = 1 and argue
    from monotonicity; this is the right reason). For minimax it does:
    ``n_queries=None`` (default) compares each objective's Φ at its observed number of
    queries; ``n_queries=1`` reproduces Kanoulas & Aslam's (2009) setting.

    Parameters
    ----------
    run
        A run frame (see :func:`pdireval.evaluate`), or a
        :class:`pdireval.evaluation.Prepared` from ``pdireval.evaluation.prepare(run,
        qrels=...)`` to reuse one preparation across calls (``qrels`` and ``by`` are then
        ignored). Queries a system did not answer score 0 (``missing="zero"``).
    qrels
        Judgments (``query, doc, label``); default the run's ``label`` column. Negative
        labels count as pooled but unjudged (trec_eval), i.e. gain 0; the relevant grades
        are the distinct labels > 0.
    k
        Cut-off, or a list of cut-offs (minimax over them).
    what
        ``"discount"`` (gains fixed to ``gain``), ``"gain"`` (discount fixed to
        ``discount``), or ``"both"`` (joint).
    gain
        Fixed gains (``what="discount"``) or the start: ``"linear"`` (the label; Kanoulas &
        Aslam's (2009) 0/1/2), ``"exp"`` (2^label − 1), or a mapping {label: gain}.
    discount
        Fixed discount (``what="gain"``) or the start: ``"log2"``, ``"zipf"``,
        ``"linear"`` ((K+1−r)/K) or a vector of K weights.
    monotone
        Enforce non-increasing discounts / non-decreasing gains (default, Kanoulas & Aslam 2009,
        Figure 1).
    by
        A column of ``run`` (and of ``qrels``, if it has it; otherwise the qrels are shared)
        naming collections: one objective per collection and cut-off (minimax).
    n_queries
        n′ of Φ in the objective and in the reported ``phi`` columns (default: each
        objective's observed number of queries).
    target
        Φ to reach for ``queries_needed`` (Kanoulas & Aslam's (2009) Tables 1 and 3 use 0.95).
    maxiter, ftol
        SLSQP options.

    Returns
    -------
    OptimizeResult
        ``.gains``, ``.discounts``, ``.summary``, ``.comparison``, ``.means`` (tidy frames
        documented in :class:`OptimizeResult`), ``.gain`` / ``.discount`` (the vectors) and
        ``.measure(k)`` (the optimal nDCG as a measure string for :func:`pdireval.evaluate`).
        The comparison puts the optimum beside the standard functions: log2, zipf and linear
        discounts (``what="discount"``), linear and exp gains (``what="gain"``), or
        linear/log2, exp/log2, linear/zipf and linear/linear (``what="both"``).

    Raises
    ------
    MeasureError
        Unknown gain/discount name, or a vector of the wrong length or with negative entries.
    SchemaError
        No relevant documents, fewer than 2 relevant grades for ``what="gain"``, fewer than
        2 systems or queries, or a bad ``by`` column.

    References
    ----------
    Kanoulas, E., & Aslam, J. A. (2009). Empirical Justification of the Gain and Discount Function
    for nDCG. CIKM 2009.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=8, n_queries=20, rng=1)
    >>> res = pdireval.optimize(run, qrels=qrels, k=10, what="discount")
    >>> bool(res.summary["phi"].iloc[0] >= res.summary["phi_start"].iloc[0])
    True
    """
    check_option("what", what, WHAT)
    cutoffs = _cutoffs(k)
    target = check_real("target", target, low=0, high=1, inclusive=False)
    if n_queries is not None:
        n_queries = check_real("n_queries", n_queries, low=0, inclusive=False)
    monotone = check_bool("monotone", monotone)
    maxiter = check_int("maxiter", maxiter, minimum=1, maximum=100_000)
    ftol = check_real("ftol", ftol, low=0, inclusive=False)
    K = max(cutoffs)

    if isinstance(run, Prepared):
        prepared = {None: run}
    elif by is None:
        prepared = {None: prepare(run, qrels=qrels)}
    else:
        if not isinstance(run, pd.DataFrame):
            raise TypeError(
                f"the run must be a pandas DataFrame or a Prepared, got {type(run).__name__}"
            )
        runs = _split(run, by, "run")
        qrels_parts = _split(qrels, by, "qrels")
        prepared = {}
        for key, part in runs.items():
            q = qrels if qrels_parts is None else qrels_parts.get(key)
            if qrels_parts is not None and q is None:
                raise SchemaError(
                    f"the qrels have no rows for {by}={key!r}, which the run has. "
                    "Give every collection its judgments."
                )
            prepared[key] = prepare(part, qrels=q)
    grades = _grades_of(list(prepared.values()))
    if what == "gain" and len(grades) < 2:
        raise SchemaError(
            "optimising gains needs at least 2 relevant grades, but the qrels have "
            f"only {grades.tolist()}: with one grade every gain gives the same nDCG."
        )
    collections = [_reduce(p, grades, K, name) for name, p in prepared.items()]
    for c in collections:
        if min(c.shape) < 2:
            raise SchemaError(
                f"collection {c.name!r} has {c.shape[1]} system(s) and {c.shape[0]} "
                "query(s): Φ needs at least 2 of each."
            )
    model = _Model(collections, cutoffs, K, n_queries)

    g0 = standard_gain(gain, grades)
    d0 = standard_discount(discount, K)
    import scipy.optimize  # noqa: F401  (imported before the clock starts)

    t0 = time.perf_counter()
    g, d, success, message = _solve(model, what, g0, d0, monotone, maxiter, ftol)
    phi_start, phi_opt = model.phis(g0, d0), model.phis(g, d)
    if phi_opt.min() < phi_start.min():  # never worse than the start
        g, d = g0, d0
        phi_opt = phi_start
        message += " (the start was better and is returned)"
    seconds = time.perf_counter() - t0
    n_eval = model.n_evaluations
    per_eval = model.seconds / max(n_eval, 1)

    names = (
        gain if isinstance(gain, str) else "custom",
        discount if isinstance(discount, str) else "custom",
    )
    return _result(
        model,
        what,
        grades,
        g0,
        d0,
        g,
        d,
        success,
        message,
        (n_eval, seconds, per_eval),
        target,
        by,
        names,
    )


#: Ceiling on the cut-off ``k`` of :func:`optimize`, checked before the model is built.
MAX_K = 10_000


def _cutoffs(k) -> list[int]:
    bad = OptionError(f"k= must be a whole-number cut-off >= 1 or a list of them, got {k!r}")
    if isinstance(k, (str, bool)):
        raise bad
    try:
        values = np.atleast_1d(np.asarray(k, dtype=np.float64))
    except (TypeError, ValueError):
        raise bad from None
    if (
        values.ndim != 1
        or len(values) == 0
        or not np.all(np.isfinite(values))
        or np.any(values < 1)
        or np.any(values != np.round(values))
    ):
        raise bad
    if values.max() > MAX_K:
        raise OptionError(
            f"k= is at most {MAX_K} (pdireval.runs.optimize.MAX_K: the model holds a grade x "
            f"segment x rank tensor); got {int(values.max())}. Optimise a shorter cut-off."
        )
    return sorted({int(x) for x in values})


def _gain_ratio(g):
    if len(g) < 2:
        return np.nan
    return np.inf if g[0] == 0 else float(g[-1] / g[0])


def _result(model: _Model, what, grades, g0, d0, g, d, success, message, timing, target, by, names):
    gains, discounts = _vector_tables(model.K, grades, g0, d0, g, d)
    n_primes = model._n_primes()
    summary = _summary(model, n_primes, g0, d0, g, d, success, message, timing, target, by)
    # comparison against the standard functions (Kanoulas & Aslam 2009, Tables 1, 3, 4)
    combos = _compared_functions(what, grades, g, d, names)
    comparison, means = _comparison(model, n_primes, combos, target, by)
    return OptimizeResult(what, gains, discounts, summary, comparison, means, grades)


def _vector_tables(K: int, grades, g0, d0, g, d) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The gains per grade and discounts per rank, beside the start and the standard ones."""
    gains = pd.DataFrame(
        {
            "grade": grades.astype(np.float64),
            "gain": g,
            "gain_start": g0,
            "linear": standard_gain("linear", grades),
            "exp": standard_gain("exp", grades),
        }
    )
    discounts = pd.DataFrame(
        {"rank": np.arange(1, K + 1, dtype=np.int64), "discount": d, "discount_start": d0}
    )
    for name in STANDARD_DISCOUNTS:
        discounts[name] = standard_discount(name, K)
    return gains, discounts


def _keys(c: _Collection, k: int, by) -> dict:
    """The key columns of an objective's rows: ``collection`` (with ``by=``) and ``k``."""
    return ({"collection": c.name} if by is not None else {}) | {"k": k}


def _summary(model: _Model, n_primes, g0, d0, g, d, success, message, timing, target, by):
    """One row per objective: Φ, E ρ² and queries needed at the start and at the optimum."""
    n_eval, seconds, per_eval = timing
    start_comp = model.components(g0, d0)
    opt_comp = model.components(g, d)
    rows = []
    for j, (c, k) in enumerate(model.objectives):
        vs0, vt0, vr0, n_s, n_t = start_comp[j]
        vs, vt, vr, _, _ = opt_comp[j]
        npr = n_primes[j]
        rows.append(
            _keys(c, k, by)
            | {
                "n_systems": n_s,
                "n_queries_observed": n_t,
                "n_queries": npr,
                "phi_start": float(phi(vs0, vt0, vr0, npr)),
                "phi": float(phi(vs, vt, vr, npr)),
                "e_rho2_start": float(e_rho2(vs0, vr0, npr)),
                "e_rho2": float(e_rho2(vs, vr, npr)),
                "queries_needed_start": float(queries_needed(vs0, vt0 + vr0, target)),
                "queries_needed": float(queries_needed(vs, vt + vr, target)),
                "gain_ratio_start": _gain_ratio(g0),
                "gain_ratio": _gain_ratio(g),
                "success": success,
                "message": message,
                "n_evaluations": n_eval,
                "seconds": seconds,
                "seconds_per_evaluation": per_eval,
            }
        )
    return pd.DataFrame(rows)


def _compared_functions(what, grades, g, d, names) -> list[tuple]:
    """(gain name, discount name, gain vector, discount: vector or a standard name), the
    optimum first."""
    gname0, dname0 = names
    if what == "discount":
        return [(gname0, "optimal", g, d)] + [(gname0, n, g, n) for n in STANDARD_DISCOUNTS]
    if what == "gain":
        return [("optimal", dname0, g, d)] + [
            (n, dname0, standard_gain(n, grades), d) for n in STANDARD_GAINS
        ]
    return [("optimal", "optimal", g, d)] + [
        (gn, dn, standard_gain(gn, grades), dn)
        for gn, dn in (
            ("linear", "log2"),
            ("exp", "log2"),
            ("linear", "zipf"),
            ("linear", "linear"),
        )
    ]


def _objective_matrices(model: _Model, gv, dv) -> list[np.ndarray]:
    """Per objective the nDCG matrix of gains ``gv`` and discounts ``dv``."""
    if not isinstance(dv, str):
        return model.matrices(gv, dv)
    # a standard discount is defined per cut-off (linear depends on k)
    per_obj = []
    for j, (_, k) in enumerate(model.objectives):
        dk = np.zeros(model.K)
        dk[:k] = standard_discount(dv, k)
        per_obj.append(model.matrices(gv, dk)[j])
    return per_obj


def _comparison(model: _Model, n_primes, combos, target, by) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The comparison table (each function against the optimum) and the system means."""
    from pdireval.stats.rank_correlation import kendall_tau

    comp_rows, mean_rows = [], []
    for gname, dname, gv, dv in combos:
        per_obj = _objective_matrices(model, gv, dv)
        for j, (c, k) in enumerate(model.objectives):
            X = per_obj[j]
            tab = anova_table(X)
            n_t, n_s = X.shape
            vs, vt, vr = (
                float(a)
                for a in variance_components(
                    tab["ms_system"], tab["ms_query"], tab["ms_residual"], n_s, n_t
                )
            )
            npr = n_primes[j]
            means = X.mean(axis=0)
            comp_rows.append(
                _keys(c, k, by)
                | {
                    "gain": gname,
                    "discount": dname,
                    "var_system": vs,
                    "var_query": vt,
                    "var_residual": vr,
                    "n_queries_observed": n_t,
                    "phi": float(phi(vs, vt, vr, npr)),
                    "e_rho2": float(e_rho2(vs, vr, npr)),
                    "queries_needed": float(queries_needed(vs, vt + vr, target)),
                    "_means": means,
                    "_obj": j,
                }
            )
            for s, m in zip(c.systems, means):
                mean_rows.append(
                    _keys(c, k, by)
                    | {"gain": gname, "discount": dname, "system": s, "mean": float(m)}
                )
    opt_means = {r["_obj"]: r["_means"] for r in comp_rows[: len(model.objectives)]}
    for r in comp_rows:
        ref = opt_means[r["_obj"]]
        r["kendall_tau"] = kendall_tau(r["_means"], ref, variant="b")
        r["rmse"] = float(np.sqrt(np.mean(np.square(r["_means"] - ref))))
        del r["_means"], r["_obj"]
    comparison = pd.DataFrame(comp_rows)
    means_frame = pd.DataFrame(mean_rows)
    means_frame["system"] = means_frame["system"].astype("string[pyarrow]")
    return comparison, means_frame
