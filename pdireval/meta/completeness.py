"""Robustness of system rankings to incomplete judgments: completeness curves (Buckley & Voorhees
2004; He, Macdonald & Ounis 2008)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns
from pdireval.docstrings import shared_docs
from pdireval.errors import SchemaError, check_option_list
from pdireval.meta.inputs import meta_scores
from pdireval.stats.rank_correlation import CORRELATION_METHODS, rank_correlation
from pdireval.types import Columns, CorrelationMethod

__all__ = ["completeness_correlation"]


def _levels(n: int):
    """The ``level=`` of the first ``n`` index levels: a scalar for one (pandas 2.2 warns that a
    one-element list will key groups by tuples), a list otherwise."""
    return 0 if n == 1 else list(range(n))


@shared_docs
def completeness_correlation(
    scores: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    method: CorrelationMethod | Sequence[CorrelationMethod] = ("kendall_b", "spearman"),
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Correlation of system rankings under reduced judgments with the full-judgment ranking.

    For every group of ``scores`` (each measure and each value of the variant columns, e.g.
    ``level`` and ``repeat`` of :func:`evaluate_variants`), systems are ranked by their mean
    over queries (NaN skipped), and the ranking is correlated with the ranking the same
    measure gives under ``reference`` (the scores on the full qrels). This is the curve of
    Buckley & Voorhees (2004) and of He et al. (2008, Section 5): τ (or ρ) against completeness x,
    one curve per measure; average it over repeats with a ``groupby``.

    Kendall's τ_b (default, with τ_a, γ, Spearman ρ, Pearson r, τ_AP) come from
    :func:`pdireval.meta.correlation.rank_correlation`:
    :math:`\tau_b = (c - d)/\sqrt{(n_0 - n_1)(n_0 - n_2)}` over system pairs.
    τ_AP takes the full-judgment ranking as the truth.

    Parameters
    ----------
    scores
        Scores frame with extra grouping columns (the variants), e.g. from
        :func:`evaluate_variants`.
    reference
        Scores frame on the full judgments, e.g. from :func:`pdireval.evaluate`; its grouping
        columns other than ``measure`` (if any) must also be columns of ``scores`` and are
        matched.
    method
        One correlation method or a list (see :func:`pdireval.correlate`).
    {columns}

    Returns
    -------
    DataFrame
        ``measure``, the other grouping columns of ``scores`` (e.g. ``level``, ``repeat``),
        ``method``, ``statistic`` (float64), ``p_value`` (two-sided, NaN where the method has
        none), ``n_systems`` (systems ranked under both). Ordered by measure (first
        appearance), the grouping keys, then method in the order given.

    Raises
    ------
    SchemaError
        A measure absent from ``reference``, reference grouping columns ``scores`` lacks, or
        systems missing from one of the frames.

    References
    ----------
    Buckley & Voorhees, "Retrieval evaluation with incomplete information", SIGIR 2004.
    He, Macdonald & Ounis (2008). Retrieval Sensitivity Under Training Using Different Measures.
    SIGIR 2008, Section 5 and Figure 3.
    """
    methods = check_option_list("method", method, CORRELATION_METHODS)
    frame = meta_scores(scores, columns, function="completeness_correlation")
    ref = meta_scores(reference, columns, function="completeness_correlation")
    keys = group_columns(frame)
    ref_keys = group_columns(ref)
    extra_ref = [k for k in ref_keys if k != "measure"]
    lacking = [k for k in extra_ref if k not in keys]
    if lacking:
        raise SchemaError(
            f"the reference scores have grouping column(s) {lacking} that the scores lack; "
            "the reference is matched on its grouping columns, so drop them from the reference "
            "or add them to the scores."
        )
    other = [k for k in keys if k != "measure"]
    means = frame.groupby(keys + ["system"], sort=False, observed=True, dropna=False)[
        "value"
    ].mean()
    ref_means = ref.groupby(ref_keys + ["system"], sort=False, observed=True, dropna=False)[
        "value"
    ].mean()
    missing_m = sorted(set(frame["measure"]) - set(ref["measure"]))
    if missing_m:
        raise SchemaError(
            f"the reference scores lack measure(s) {missing_m}: evaluate the full qrels with "
            "the same measures as the variants."
        )
    measure_rank = {m: i for i, m in enumerate(pd.unique(frame["measure"]))}
    ref_tables = {
        k if isinstance(k, tuple) else (k,): g.droplevel(list(range(len(ref_keys))))
        for k, g in ref_means.groupby(level=_levels(len(ref_keys)), sort=False)
    }
    rows = []
    for key, g in means.groupby(level=_levels(len(keys)), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        kd = dict(zip(keys, key))
        rkey = tuple(kd[k] for k in ref_keys)
        if rkey not in ref_tables:
            raise SchemaError(f"the reference scores have no rows for {dict(zip(ref_keys, rkey))}.")
        r = ref_tables[rkey]
        g = g.droplevel(list(range(len(keys))))
        if set(g.index) != set(r.index):
            only = sorted(set(g.index) ^ set(r.index))
            raise SchemaError(
                f"the scores and the reference rank different systems for {kd} ({len(only)} only "
                f"in one of them, e.g. {only[:3]}); evaluate the same systems in both."
            )
        g = g.sort_index()
        x = g.to_numpy(dtype=np.float64)
        y = r.loc[g.index].to_numpy(dtype=np.float64)
        for m in methods:
            stat, p = rank_correlation(x, y, m)
            rows.append(
                {
                    **kd,
                    "method": m,
                    "statistic": float(stat),
                    "p_value": float(p),
                    "n_systems": len(x),
                }
            )
    out = pd.DataFrame(
        rows, columns=["measure", *other, "method", "statistic", "p_value", "n_systems"]
    )
    out["_m"] = out["measure"].map(measure_rank)
    out["_meth"] = out["method"].map({m: i for i, m in enumerate(methods)})
    out = out.sort_values(["_m", *other, "_meth"], kind="stable").drop(columns=["_m", "_meth"])
    out["n_systems"] = out["n_systems"].astype(np.int64)
    return out.reset_index(drop=True)
