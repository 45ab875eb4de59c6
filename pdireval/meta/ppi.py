r"""LLM-judged scores corrected by a human-judged sample: prediction-powered inference (PPI, PPI++,
stratified PPI) of every system's mean and of every pair's mean difference.

Two scores frames: ``llm`` holds every system's scores under LLM labels on all queries, ``human``
the same systems' scores under human labels on the queries people judged. The array-level
statistics are in :mod:`pdireval.stats.prediction_powered`.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import (
    check_same_grouping,
    describe_group,
    group_columns,
    group_matrices,
    pair_indices,
)
from pdireval.docstrings import shared_docs
from pdireval.errors import PdirevalWarning, SchemaError, check_real, show_rows
from pdireval.meta.inputs import meta_scores
from pdireval.stats import _adapters
from pdireval.stats.prediction_powered import ppi_mean, ppi_mean_differences, ppi_mean_stratified

if TYPE_CHECKING:
    from pdireval.types import Columns

__all__ = ["ppi_means", "ppi_differences", "MIN_LABELLED"]

#: fewer labelled queries than this get a warning (the normal interval is then unreliable)
MIN_LABELLED = 10


def _strata_of(frame: pd.DataFrame, strata: str) -> pd.Series:
    """query -> stratum from the ``strata`` column of the LLM frame (one value per query)."""
    if strata not in frame.columns:
        raise SchemaError(
            f"strata={strata!r} is not a column of the llm scores frame (columns: "
            f"{list(frame.columns)}); name the column that holds each query's stratum."
        )
    pairs = frame[["query", strata]].drop_duplicates()
    several = pairs[pairs["query"].duplicated(keep=False)]
    if len(several):
        raise SchemaError(
            f"the strata column {strata!r} must hold one value per query; "
            f"{several['query'].nunique()} queries have several:{show_rows(several)}\n"
            "Fix: give every row of a query the same stratum."
        )
    if pairs[strata].isna().any():
        raise SchemaError(
            f"the strata column {strata!r} is missing for "
            f"{int(pairs[strata].isna().sum())} queries; give every query a stratum."
        )
    return pairs.set_index("query")[strata]


def _prepare(llm, human, strata, columns):
    a = meta_scores(llm, columns, function="ppi")
    b = meta_scores(human, columns, function="ppi")
    query_strata = None
    if strata is not None:
        query_strata = _strata_of(a, strata)
        a = a.drop(columns=[strata])
        if strata in b.columns:
            b = b.drop(columns=[strata])
    check_same_grouping(group_columns(a), group_columns(b))
    return a, b, query_strata


def _key(keys: dict) -> tuple:
    return tuple(keys.items())


def _check_groups(llm_keys, human_keys) -> None:
    only_llm = [k for k in llm_keys if k not in human_keys]
    only_human = [k for k in human_keys if k not in llm_keys]
    if not only_llm and not only_human:
        return

    def show(keys):
        return "; ".join(", ".join(f"{n}={v!r}" for n, v in k) or "(all)" for k in keys[:5])

    parts = []
    if only_human:
        parts.append(f"{len(only_human)} group(s) only in human ({show(only_human)})")
    if only_llm:
        parts.append(f"{len(only_llm)} group(s) only in llm ({show(only_llm)})")
    raise SchemaError(
        "llm and human must hold the same measures (and values of the other grouping "
        f"columns): {' and '.join(parts)}. PPI corrects a measure's LLM scores with the same "
        "measure's human scores; give both frames the same measure names, or drop the "
        "measures one frame lacks."
    )


class _Notes:
    """Cases collected over the groups, each told once in one warning."""

    def __init__(self):
        self.extra: list[str] = []
        self.few: list[str] = []
        self.single: list[str] = []
        self.all_labelled: list[str] = []

    def emit(self):
        def say(cases, text):
            if cases:
                shown = "; ".join(cases[:5]) + (
                    f"; ... {len(cases) - 5} more" if len(cases) > 5 else ""
                )
                warnings.warn(f"{text}: {shown}", PdirevalWarning, stacklevel=4)

        say(
            self.extra,
            "human scores for queries the llm frame lacks were left out (PPI needs the LLM "
            "score of every labelled query; the labelled queries should be a random sample "
            "of the llm frame's queries)",
        )
        say(
            self.few,
            f"fewer than {MIN_LABELLED} human-labelled queries: the normal interval of PPI "
            "is unreliable with so few; label more queries",
        )
        say(
            self.single,
            "a single labelled query (in a group or a stratum) leaves the variance undefined: "
            "se, ci_low and ci_high are NaN; label at least two queries",
        )
        say(
            self.all_labelled,
            "every llm query is human-labelled, so there is nothing to predict: the estimate "
            "is the human mean (lam = 0)",
        )


def _arrays(keys, llm_m: pd.DataFrame, human_m: pd.DataFrame, query_strata, notes: _Notes):
    """Align one group: (y, yhat, u, strata of labelled, strata of unlabelled, systems)."""
    where = describe_group(keys)
    systems = llm_m.columns
    if set(human_m.columns) != set(systems):
        only = sorted(set(human_m.columns) ^ set(systems))
        raise SchemaError(
            f"llm and human hold different systems in the {where} ({len(only)} only in one, "
            f"e.g. {only[:3]}); keep the systems both frames share."
        )
    human_m = human_m[systems]
    pos = llm_m.index.get_indexer(human_m.index)
    extra = human_m.index[pos < 0]
    if len(extra):
        notes.extra.append(f"{where}: {len(extra)} queries, e.g. {list(extra[:3])}")
        human_m, pos = human_m[pos >= 0], pos[pos >= 0]
    if len(pos) == 0:
        raise SchemaError(
            f"no human-labelled query of the {where} is in the llm frame (n = 0; human queries "
            f"e.g. {list(extra[:3])}): PPI needs human scores on some of the llm frame's "
            "queries. Check the query ids of both frames."
        )
    values = llm_m.to_numpy()
    unlabelled = np.ones(len(values), dtype=bool)
    unlabelled[pos] = False
    y, yhat, u = human_m.to_numpy(), values[pos], values[unlabelled]
    if 1 < len(pos) < MIN_LABELLED:
        notes.few.append(f"{where}: n = {len(pos)}")
    if not unlabelled.any():
        notes.all_labelled.append(where)
    s_l = s_u = None
    if query_strata is not None:
        s_l = query_strata.reindex(human_m.index).to_numpy()
        s_u = query_strata.reindex(llm_m.index[unlabelled]).to_numpy()
        labelled_per = pd.Series(s_l).value_counts()
        empty = sorted(
            set(pd.unique(np.concatenate([s_l, s_u]))) - set(labelled_per.index), key=str
        )
        if empty:
            raise SchemaError(
                f"{len(empty)} strata of the {where} have no human-labelled query (e.g. "
                f"{empty[:3]}): PPI cannot correct a stratum without labels. Label a query in "
                "each stratum or merge the strata."
            )
        ones = labelled_per[labelled_per < 2]
        if len(ones):
            notes.single.append(f"{where}: strata {list(ones.index[:3])}")
    elif len(pos) == 1:
        notes.single.append(where)
    return y, yhat, u, s_l, s_u, systems


def _groups(llm, human, strata, columns):
    a, b, query_strata = _prepare(llm, human, strata, columns)
    human_ms = {_key(k): m for k, m in group_matrices(b, what="human scores")}
    seen = []
    for keys, llm_m in group_matrices(a, what="llm scores"):
        seen.append(_key(keys))
        if seen[-1] not in human_ms:  # name every group one frame lacks
            names = group_columns(a)
            distinct = a[names].drop_duplicates().to_dict("records") if names else [{}]
            _check_groups([_key(k) for k in distinct], list(human_ms))
        yield keys, llm_m, human_ms[seen[-1]], query_strata
    _check_groups(seen, list(human_ms))


def _method(lam, strata) -> str:
    name = "ppi++" if lam is None else "ppi"
    return f"stratified {name}" if strata is not None else name


def _part(
    keys: dict, names: dict, method: str, res, tests: dict, means: dict, counts
) -> pd.DataFrame:
    """One group's rows: its ``keys``, the system ``names`` columns, ``method``, the estimate
    and its interval of ``res``, the ``tests`` columns (p-values), λ, the LLM-only and
    human-only ``means`` and the (labelled, unlabelled) ``counts``."""
    interval = {
        "estimate": res.estimate,
        "se": res.se,
        "ci_low": res.ci_low,
        "ci_high": res.ci_high,
    }
    part = pd.DataFrame(
        {
            **names,
            "method": method,
            **interval,
            **tests,
            "lam": res.lam,
            **means,
            "n_labelled": counts[0],
            "n_unlabelled": counts[1],
        }
    )
    for k, (name, value) in enumerate(keys.items()):
        part.insert(k, name, value)
    return part


@shared_docs
def ppi_means(
    llm: pd.DataFrame,
    human: pd.DataFrame,
    *,
    lam: float | None = None,
    strata: str | None = None,
    confidence_level: float = 0.95,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Each system's mean score under LLM labels, corrected by a human-labelled query sample.

    Prediction-powered inference (Angelopoulos et al. 2023a) with the queries as observations:
    Ŷ is a system's score under LLM labels, Y its score under human labels. The n queries of
    ``human`` are the labelled set: their LLM scores are the predictions Ŷ paired with Y; the
    N other queries of ``llm`` are the unlabelled set. Then

    .. math::

        \hat\theta_\lambda = \lambda\,\overline{\hat Y}_N + \overline{(Y-\lambda\hat Y)}_n,\quad
        \widehat{se}^2 = \lambda^2\frac{\mathrm{Var}_N(\hat Y)}{N}
            + \frac{\mathrm{Var}_n(Y - \lambda\hat Y)}{n}

    (variances with divisor N and n), interval θ̂ ± z·se: exactly ``ppi_py.ppi_mean_ci`` and
    ``ppi_mean_pointestimate`` with ``Yhat_unlabeled`` = the LLM scores of the N unlabelled
    queries (the labelled queries are not counted twice). ``lam=None`` (default) is PPI++
    (Angelopoulos, Duchi & Zrnic 2023): λ̂ = Cov_n(Y, Ŷ) / ((1 + n/N) Var_{n+N}(Ŷ)),
    clipped to [0, 1], one λ̂ per system and measure; ``lam=1`` is PPI, ``lam=0`` the human
    mean alone. With ``strata``, stratified PPI (Fisch et al. 2024): PPI within each stratum,
    combined with weights (n_k + N_k)/(n + N).

    The estimator assumes the labelled queries are a random sample of the queries (within
    each stratum, when stratified). Human scores of queries the llm frame lacks cannot be
    used (they have no Ŷ): they are left out with a :class:`pdireval.PdirevalWarning`.
    Fewer than 10 labelled queries warn too (the interval is a large-sample one); with one
    labelled query (in a group or a stratum) se, ci_low and ci_high are NaN, with a warning;
    when every llm query is labelled, the estimate is the human mean (λ = 0), with a warning.

    Parameters
    ----------
    llm
        Scores frame under LLM labels on all queries (``system, query, measure, value`` +
        grouping columns); a complete system × query matrix per group.
    human
        Scores frame under human labels on the labelled queries: the same systems, measures
        and grouping columns; a complete matrix on its queries.
    lam
        λ: None (PPI++, power-tuned), 1 (PPI), 0 (human mean only) or any value.
    strata
        A column of ``llm`` holding each query's stratum (one value per query): stratified PPI.
        It is not a grouping key (dropped from ``human`` if present there).
    {confidence_level}
    {columns}

    Returns
    -------
    DataFrame
        One row per (group, system): the grouping keys (``measure``, ...), ``system``,
        ``method`` (``"ppi++"``, ``"ppi"``, ``"stratified ppi++"``, ``"stratified ppi"``),
        ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``lam`` (the λ used; NaN when strata
        use different ones), ``llm_mean`` (the LLM-only mean over all n + N queries),
        ``human_mean`` (the human-only mean over the n labelled queries), ``n_labelled`` (n),
        ``n_unlabelled`` (N). Rows by group, then system.

    Raises
    ------
    SchemaError
        The two frames hold different measures (or grouping values), different systems, no
        common query (n = 0), or a stratum has no labelled query.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., Zrnic, T. (2023).
    Prediction-powered inference. Science 382.
    Angelopoulos, A. N., Duchi, J. C., Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453.
    Fisch, A., Maynez, J., Hofer, R. A., Dhingra, B., Globerson, A., Cohen, W. W. (2024).
    Stratified prediction-powered inference for effective hybrid evaluation of language
    models. NeurIPS 2024.
    """
    level = check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    notes, parts = _Notes(), []
    for keys, llm_m, human_m, query_strata in _groups(llm, human, strata, columns):
        y, yhat, u, s_l, s_u, systems = _arrays(keys, llm_m, human_m, query_strata, notes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if s_l is None:
                res = ppi_mean(y, yhat, u, lam=lam, confidence_level=level)
            else:
                res = ppi_mean_stratified(y, yhat, u, s_l, s_u, lam=lam, confidence_level=level)
        llm_mean = np.concatenate([yhat, u]).mean(axis=0)
        names = {"system": systems.to_numpy(dtype=object)}
        means = {"llm_mean": llm_mean, "human_mean": y.mean(axis=0)}
        parts.append(_part(keys, names, _method(lam, strata), res, {}, means, (len(y), len(u))))
    notes.emit()
    return pd.concat(parts, ignore_index=True)


@shared_docs
def ppi_differences(
    llm: pd.DataFrame,
    human: pd.DataFrame,
    *,
    baseline: str | None = None,
    lam: float | None = None,
    strata: str | None = None,
    confidence_level: float = 0.95,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Every pair's mean difference under LLM labels, corrected by a human-labelled sample.

    PPI applied to the per-query differences (Angelopoulos et al. 2023a): for systems a and
    b, Y = Y_a − Y_b and Ŷ = Ŷ_a − Ŷ_b on each query, then :func:`ppi_means`'s estimator (the
    same treatment of the labelled queries, the same warnings); with ``lam=None`` each pair
    gets its own power-tuned λ̂ (PPI++, Angelopoulos, Duchi & Zrnic 2023). The moments of the
    differences come from the systems' covariance matrices
    (:func:`pdireval.stats.prediction_powered.ppi_mean_differences`), so all pairs cost a few
    matrix products.
    ``p_value`` is the two-sided normal test of a zero difference, 2·Φ(−|θ̂|/se).

    Parameters
    ----------
    llm, human, lam, strata
        As in :func:`ppi_means`.
    baseline
        Compare every system with this one (``system_a`` = each other system, ``system_b`` =
        the baseline); None (default): every pair, ``system_a`` < ``system_b`` as strings.
    {confidence_level}
    {columns}

    Returns
    -------
    DataFrame
        One row per (group, pair): the grouping keys, ``system_a``, ``system_b``, ``method``,
        ``estimate`` (of mean_a − mean_b), ``se``, ``ci_low``, ``ci_high``, ``p_value``,
        ``lam``, ``llm_mean`` and ``human_mean`` (of the differences), ``n_labelled``,
        ``n_unlabelled``.

    Raises
    ------
    SchemaError
        As :func:`ppi_means`; a ``baseline`` that is not a system.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., Zrnic, T. (2023).
    Prediction-powered inference. Science 382.
    Angelopoulos, A. N., Duchi, J. C., Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453.
    """
    level = check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    notes, parts = _Notes(), []
    for keys, llm_m, human_m, query_strata in _groups(llm, human, strata, columns):
        y, yhat, u, s_l, s_u, systems = _arrays(keys, llm_m, human_m, query_strata, notes)
        base = None
        if baseline is not None:
            if str(baseline) not in set(systems):
                raise SchemaError(
                    f"baseline={baseline!r} is not a system of the {describe_group(keys)} "
                    f"(systems: {list(systems[:5])}...); name one of them."
                )
            base = int(systems.get_loc(str(baseline)))
        i, j = pair_indices(len(systems), base)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if s_l is None:
                res = ppi_mean_differences(y, yhat, u, i, j, lam=lam, confidence_level=level)
            else:
                res = ppi_mean_stratified(
                    y, yhat, u, s_l, s_u, pairs=(i, j), lam=lam, confidence_level=level
                )
            z = np.abs(res.estimate) / res.se
            p_value = np.minimum(1.0, 2.0 * _adapters.norm_cdf(-z))
        all_hat = np.concatenate([yhat, u])
        llm_mean, human_mean = all_hat.mean(axis=0), y.mean(axis=0)
        names = systems.to_numpy(dtype=object)
        pair = {"system_a": names[i], "system_b": names[j]}
        means = {"llm_mean": llm_mean[i] - llm_mean[j], "human_mean": human_mean[i] - human_mean[j]}
        method = _method(lam, strata)
        counts = (len(y), len(u))
        parts.append(_part(keys, pair, method, res, {"p_value": p_value}, means, counts))
    notes.emit()
    return pd.concat(parts, ignore_index=True)
