"""Information τ: Kendall's τ as mutual information, and its conditional form.

Golbus & Aslam (2013, Sections 3–4 and appendix).

Sample space: the n(n − 1) *ordered* pairs (i, j) of distinct objects (here: systems),
uniform. A ranking R defines the pair variable X_R(i, j) = +1 if R puts i above j, −1 if
below, and 0 if it ties them (library convention; Golbus & Aslam 2013, eq. 12
gives a tied pair −1 in both orders, which breaks the antisymmetry Theorem 1 needs).
Then τ_a = E[X_R·X_S], and information τ is τ_I(R, S) = I(X_R; X_S) in bits.

Theorem 1 (Golbus & Aslam 2013): for total orders, I(X_R; X_S) = ((1+τ)/2)·log2(1+τ) +
((1−τ)/2)·log2(1−τ) = 1 − H2((1 − τ)/2). With ``tied_pairs="drop"`` (every ordered pair tied in
any ranking involved is discarded) it holds exactly for γ = (c − d)/(c + d), the statistic
Golbus & Aslam (2013) call τ (their footnote's "τ_A" is Goodman–Kruskal's γ).
Kendall's τ_a / τ_b / γ themselves are :func:`pdireval.meta.correlation.kendall_tau`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval.core.groups import group_matrices, scores_groups
from pdireval.docstrings import shared_docs
from pdireval.errors import OptionError, SchemaError, check_bool, renamed_options
from pdireval.meta.inputs import meta_scores
from pdireval.stats.information_theory import (
    TIES,
    pair_signs,
    pair_valid,
    plugin_conditional_mutual_information,
)
from pdireval.types import Columns, TiedPairs

__all__ = ["information_tau", "pair_signs", "plugin_conditional_mutual_information"]


# --------------------------------------------------------------------------- Theorem 1


# --------------------------------------------------------------------------- plug-in MI


# --------------------------------------------------------------------------- pairs


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
        raise TypeError(
            f"given= must be a measure name, a tuple of them, or a list of such sets; got {given!r}"
        )
    if len(given) == 0:
        return [()]
    if all(isinstance(g, str) for g in given):
        return [tuple(given)]
    sets: list[tuple[str, ...]] = []
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
    """The scores frame's name of measure ``name``: itself, or the one name of the frame
    with the same canonical spelling (``"AP"`` finds a frame's ``"map"`` and vice versa)."""
    if name in available:
        return name
    from pdireval.errors import MeasureError
    from pdireval.measures import parse_measure

    def canonical(text):
        try:
            return str(parse_measure(text))
        except (MeasureError, TypeError):
            return None

    want = canonical(name)
    same = [a for a in available if want is not None and canonical(a) == want]
    if len(same) == 1:
        return same[0]
    raise SchemaError(
        f"the scores frame has no measure {name!r} (its measures: {available}). Pass one of "
        "those names, or evaluate that measure first (pdireval.evaluate(run, [..., "
        f"{name!r}], qrels=qrels))."
    )


@renamed_options(ties="tied_pairs")
@shared_docs
def information_tau(
    scores: pd.DataFrame,
    a: str | Sequence[str],
    b: str | Sequence[str],
    *,
    given: str | Sequence[str | Sequence[str] | None] | None = (),
    per_query: bool = False,
    tied_pairs: TiedPairs = "drop",
    columns: Columns = None,
) -> pd.DataFrame:
    """Information τ between the rankings of systems by two measures, optionally given others.

    τ_I(A, B | G_1..G_m) = I(X_A; X_B | X_G1, …, X_Gm) in bits (Golbus & Aslam 2013, eqs. 14–15):
    the plug-in mutual information between the pair variables of the system rankings induced by
    measures A and B, conditioned on the joint outcome of the rankings by the ``given`` measures,
    over the ordered pairs of distinct systems. Without ``given`` and with ``tied_pairs="drop"`` it
    equals Theorem 1 applied to γ = (c − d)/(c + d) (see :func:`information_from_tau`).
    Conditioning on A itself gives 0; the chain rule I(A; B | G) = I(A; (B, G)) − I(A; G) holds
    exactly on the same pair sample.

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
        on jointly, Golbus & Aslam's (2013) Table 1 "| nDCG, ERR"), or a list of such sets — e.g.
        ``[(), "nDCG", "ERR", ("nDCG", "ERR")]`` — for one row per set.
    per_query
        ``False`` (default; Golbus & Aslam 2013, Table 1): rank systems by their mean over queries
        (NaN values skipped). ``True`` (Golbus & Aslam 2013, Figure 1): one ranking of systems per
        query.
    tied_pairs
        How the statistic treats a pair of systems tied in a ranking (``ties=`` before 0.2,
        deprecated). ``"drop"`` (default): discard every ordered pair tied (or NaN) in any ranking
        involved. ``"keep"``: keep tied pairs with value 0 (three-valued variables; no
        closed form, and the maximum is no longer 1 bit). Pairs with a NaN score are always
        discarded.
    {columns}

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
        ``tied_pairs`` not in ``("drop", "keep")``.

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
    if tied_pairs not in TIES:
        raise OptionError(f"tied_pairs= must be one of {TIES}, got {tied_pairs!r}")
    per_query = check_bool("per_query", per_query)
    frame = meta_scores(scores, columns, function="information_tau")
    a_list = _as_list(a, "a")
    b_list = _as_list(b, "b")
    sets = _given_sets(given)
    extra = [c for c in frame.columns if c not in ("system", "query", "measure", "value")]
    groups = list(scores_groups(frame, by=extra))
    rows = []
    for keys, grp in groups:
        available = list(pd.unique(grp["measure"]))
        names = {n: _resolve(n, available) for n in a_list + b_list + [g for s in sets for g in s]}
        wanted = list(dict.fromkeys(names.values()))
        # missing (system, query) cells are an error; NaN values are allowed (pairs dropped)
        by_measure = dict(
            (d["measure"], matrix)
            for d, matrix in group_matrices(
                grp[grp["measure"].isin(wanted)], by=["measure"], allow_nan=True
            )
        )
        matrices: dict[str, pd.DataFrame] = {name: by_measure[name] for name in wanted}
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
                    stack = np.stack(
                        [matrices[u].to_numpy(dtype=np.float64) for u in used]
                    )  # m × q × s
                    if not per_query:
                        with np.errstate(all="ignore"):
                            stack = (
                                np.nanmean(stack, axis=1, keepdims=True)
                                if stack.shape[1]
                                else stack
                            )
                    info, n_pairs = _info_tau_rows(stack, tied_pairs)
                    block: dict[str, object] = {k: [v] * len(info) for k, v in keys.items()}
                    block.update(measure_a=ma, measure_b=mb, given=", ".join(gset))
                    if per_query:
                        block["query"] = queries
                    block.update(information_tau=info, n_pairs=n_pairs)
                    rows.append(pd.DataFrame(block, index=pd.RangeIndex(len(info))))
    cols = (
        extra
        + ["measure_a", "measure_b", "given"]
        + (["query"] if per_query else [])
        + ["information_tau", "n_pairs"]
    )
    out = pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
    out["information_tau"] = out["information_tau"].astype(np.float64)
    out["n_pairs"] = out["n_pairs"].astype(np.int64)
    return out


def _info_tau_rows(stack: np.ndarray, tied_pairs: str):
    """stack: (m rankings, r rows, s systems) → per row (information τ, ordered pairs used)."""
    m, r, _ = stack.shape
    signs = pair_signs(stack)  # m × r × P
    keep = pair_valid(stack).all(axis=0)
    if tied_pairs == "drop":
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
