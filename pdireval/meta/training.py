"""Measure selection under training (He et al. 2008, Sections 4–5).

Systems are parameter settings of one retrieval model. A *training measure* M picks the
best setting on training queries; that setting is evaluated on test queries with each
*evaluation measure* X, giving X(M); folds are swapped. Under subsampled training
judgments (qrels variants, see :mod:`pdireval.runs.variants`) the stability over repeats
of the chosen setting (1/σ_opt) and of the test difference to training by MAP (1/σ_diff)
is compared between M and MAP with the sign test (He et al. 2008, Tables 4–5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.groups import group_columns, group_matrices
from pdireval.docstrings import shared_docs
from pdireval.errors import OptionError, SchemaError, show_rows
from pdireval.meta.inputs import meta_scores
from pdireval.stats.paired_tests import sign_test, wilcoxon
from pdireval.types import Columns

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["train_by_measure", "training_stability", "stability_sign_test"]

_RESULT_COLUMNS = (
    "train_measure",
    "eval_measure",
    "system",
    "value",
    "reference_system",
    "reference_value",
    "statistic",
    "p_value",
    "n_test_queries",
)


def _query_set(values, name: str, known: set) -> list[str]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{name}= must be a list of query ids, got {type(values).__name__}")
    out = list(dict.fromkeys(str(v) for v in values))
    if not out:
        raise OptionError(f"{name}= is empty: give the query ids of that query set.")
    unknown = [q for q in out if q not in known]
    if unknown:
        raise SchemaError(
            f"{len(unknown)} {name} quer{'y is' if len(unknown) == 1 else 'ies are'} not in the "
            f"scores (e.g. {unknown[:5]}); query ids are compared as strings."
        )
    return out


def _params_frame(params, systems) -> pd.DataFrame | None:
    """Parameter settings as a frame ``system`` + one float column per parameter."""
    if params is None:
        return None
    if isinstance(params, pd.DataFrame):
        if "system" not in params.columns:
            raise SchemaError(
                "params= as a DataFrame needs a 'system' column and one column per parameter."
            )
        frame = params.drop_duplicates().copy()
    elif isinstance(params, Mapping):
        rows = []
        for system, value in params.items():
            if isinstance(value, Mapping):
                rows.append({"system": system, **value})
            else:
                rows.append({"system": system, "param": value})
        frame = pd.DataFrame(rows)
    else:
        raise TypeError(
            "params= must be a DataFrame (system + parameter columns) or a mapping {system: value}"
        )
    frame["system"] = frame["system"].astype(str)
    dup = frame["system"].duplicated(keep=False)
    if dup.any():
        raise SchemaError(
            f"params= gives some systems more than one setting:{show_rows(frame[dup])}",
            failure_cases=frame[dup],
        )
    missing = sorted(set(systems) - set(frame["system"]))
    if missing:
        raise SchemaError(
            f"params= lacks the setting of {len(missing)} system(s), e.g. {missing[:5]}."
        )
    cols = [c for c in frame.columns if c != "system"]
    for c in cols:
        try:
            frame[c] = frame[c].astype(np.float64)
        except (TypeError, ValueError):
            raise SchemaError(
                f"parameter column {c!r} must be numeric (1/σ_opt needs numbers)."
            ) from None
    return frame.reset_index(drop=True)


@shared_docs
def train_by_measure(
    scores: pd.DataFrame,
    *,
    train: Iterable[str],
    test: Iterable[str],
    reference: str = "AP",
    params: pd.DataFrame | Mapping[str, float] | None = None,
    train_scores: pd.DataFrame | None = None,
    swap: bool = True,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""Train a parameter on one query set by each measure, test on another (He et al. 2008,
    Section 4.1).

    For a fold (training queries T, test queries T′) and each training measure M, the chosen
    setting is

    .. math:: \hat s_M = \arg\max_s \frac{1}{|T|} \sum_{q \in T} M(s, q)

    (ties: the first system in sorted order), and for each evaluation measure X,
    :math:`X(M) = \frac{1}{|T'|}\sum_{q \in T'} X(\hat s_M, q)`. X(M) is compared with
    X(``reference``) (He et al. 2008: MAP) by the two-sided Wilcoxon signed-rank test over the test
    queries (:func:`pdireval.stats.paired_tests.wilcoxon`). ``swap=True``
    adds the fold with the roles of the two query sets exchanged.

    With ``train_scores`` (e.g. :func:`pdireval.evaluate_variants` on subsampled training
    qrels), training reads those scores — once per value of their extra grouping columns
    (``level``, ``repeat``) — while the test evaluation always reads ``scores`` (the full
    judgments), as in He et al. (2008, Section 5.1).

    Parameters
    ----------
    scores
        Scores of every setting (system) on all queries under the full judgments. Extra
        grouping columns other than ``measure`` (e.g. ``model``) are separate experiments;
        systems compete only within one.
    train, test
        Query ids of the two query sets (disjoint).
    reference
        The reference training measure (canonical spelling; default ``"AP"``, i.e. MAP).
    params
        Optional parameter value of each system: a DataFrame ``system`` + one numeric column
        per parameter (e.g. ``run[["system", "b"]].drop_duplicates()`` from
        ``grid_run`` in ``examples/cranfield_grid.py``), or a mapping ``{system: value}`` (column
        ``param``). Their values for the chosen system are added to each row.
    train_scores
        Scores used for training (default ``scores``); may carry variant columns.
    swap
        Also train on ``test`` and test on ``train`` (fold 1).
    {columns}

    Returns
    -------
    DataFrame
        ``fold`` (int64: 0 trains on ``train``, 1 on ``test``), the experiment and variant
        grouping columns (e.g. ``level``, ``repeat``), ``train_measure`` (M),
        ``eval_measure`` (X), ``system`` (the setting chosen by M), the parameter columns,
        ``value`` (X(M), mean over test queries), ``reference_system``, ``reference_value``
        (X(reference)), ``statistic`` and ``p_value`` (Wilcoxon of X(M) against
        X(reference) over the test queries; 0 and 1 when both chose the same setting),
        ``n_test_queries``. Ordered by fold, grouping keys, training measure, then
        evaluation measure (measures in order of first appearance).

    Raises
    ------
    SchemaError
        Unknown or overlapping queries, a reference the training scores lack, incomplete
        test matrices, missing parameter settings.

    References
    ----------
    He, Macdonald & Ounis, "Retrieval Sensitivity Under Training Using Different Measures",
    SIGIR 2008, Sections 4.1 and 5.1; Wilcoxon (1945).
    """
    full = meta_scores(scores, columns, function=(name := "train_by_measure"))
    tr = full if train_scores is None else meta_scores(train_scores, columns, function=name)
    exp_keys, var_keys = _grouping_keys(full, tr)
    train_q, test_q = _query_sets(full, train, test)
    if reference not in set(pd.unique(tr["measure"])):
        raise SchemaError(
            f"the training scores lack the reference measure {reference!r}; they hold "
            f"{list(pd.unique(tr['measure']))}. Evaluate it too, or pass reference= one of those."
        )
    pframe = _params_frame(params, set(pd.unique(full["system"])))
    param_cols = [] if pframe is None else [c for c in pframe.columns if c != "system"]
    m_rank = {m: i for i, m in enumerate(pd.unique(tr["measure"]))}
    x_rank = {m: i for i, m in enumerate(pd.unique(full["measure"]))}

    folds = [(0, train_q, test_q)] + ([(1, test_q, train_q)] if swap else [])
    pieces = []
    for fold, t_train, t_test in folds:
        chosen = _trained_choices(
            tr[tr["query"].isin(t_train).to_numpy()], exp_keys, var_keys, reference
        )
        test_part = full[full["query"].isin(t_test).to_numpy()]
        pieces.append(_tested_choices(test_part, chosen, exp_keys, fold))
    res = pd.concat(pieces, ignore_index=True)
    if pframe is not None:
        res = res.merge(pframe, on="system", how="left")
    res["_m"] = res["train_measure"].map(m_rank)
    res["_x"] = res["eval_measure"].map(x_rank)
    res = res.sort_values(["fold", *exp_keys, *var_keys, "_m", "_x"], kind="stable").drop(
        columns=["_m", "_x"]
    )
    result_columns = [
        "fold",
        *exp_keys,
        *var_keys,
        "train_measure",
        "eval_measure",
        "system",
        *param_cols,
        "value",
        "reference_system",
        "reference_value",
        "statistic",
        "p_value",
        "n_test_queries",
    ]
    res = res[result_columns].reset_index(drop=True)
    res["fold"] = res["fold"].astype(np.int64)
    res["n_test_queries"] = res["n_test_queries"].astype(np.int64)
    for c in ("value", "reference_value", "statistic", "p_value"):
        res[c] = res[c].astype(np.float64)
    return res


def _grouping_keys(full: pd.DataFrame, tr: pd.DataFrame) -> tuple[list, list]:
    """The experiment keys (of ``scores``) and the variant keys (only the training scores')."""
    exp_keys = [k for k in group_columns(full) if k != "measure"]
    lacking = [k for k in exp_keys if k not in tr.columns]
    if lacking:
        raise SchemaError(
            f"train_scores lack the grouping column(s) {lacking} of scores; add them."
        )
    var_keys = [k for k in group_columns(tr) if k not in exp_keys and k != "measure"]
    return exp_keys, var_keys


def _query_sets(full: pd.DataFrame, train, test) -> tuple[list[str], list[str]]:
    """The training and test query ids, checked known and disjoint."""
    known = set(pd.unique(full["query"]))
    train_q = _query_set(train, "train", known)
    test_q = _query_set(test, "test", known)
    overlap = sorted(set(train_q) & set(test_q))
    if overlap:
        raise SchemaError(
            f"train and test share {len(overlap)} quer{'y' if len(overlap) == 1 else 'ies'} "
            f"(e.g. {overlap[:5]}); the query sets must be disjoint."
        )
    return train_q, test_q


def _trained_choices(part: pd.DataFrame, exp_keys, var_keys, reference: str) -> pd.DataFrame:
    """The best system per (experiment, variant, training measure) on the training queries,
    beside the one the reference measure chose."""
    keys = exp_keys + var_keys + ["measure"]
    means = (
        part.groupby(keys + ["system"], sort=False, observed=True, dropna=False)["value"]
        .mean()
        .reset_index()
    )
    means = means.sort_values(
        keys + ["value", "system"],
        ascending=[True] * len(keys) + [False, True],
        kind="stable",
        na_position="last",
    )
    best = means.drop_duplicates(keys).rename(columns={"measure": "train_measure"})[
        exp_keys + var_keys + ["train_measure", "system"]
    ]
    base = best[best["train_measure"] == reference][exp_keys + var_keys + ["system"]].rename(
        columns={"system": "reference_system"}
    )
    return (
        best.merge(base, on=exp_keys + var_keys, how="left")
        if exp_keys + var_keys
        else best.assign(reference_system=base["reference_system"].iloc[0])
    )


def _tested_choices(test_part: pd.DataFrame, chosen: pd.DataFrame, exp_keys, fold: int):
    """The chosen systems' test values against the reference's, per (experiment, eval
    measure): a query x system matrix on the test queries each."""
    rows = []
    for gd, matrix in group_matrices(test_part, by=exp_keys + ["measure"], what="test scores"):
        sel = chosen
        for k in exp_keys:
            sel = sel[sel[k] == gd[k]]
        if len(sel) == 0:
            continue
        rows.append(_tested_group(gd, matrix, sel, fold))
    return pd.concat(rows, ignore_index=True)


def _tested_group(gd, matrix: pd.DataFrame, sel: pd.DataFrame, fold: int) -> pd.DataFrame:
    """One test group's rows: means of the chosen and reference systems, Wilcoxon between."""
    col = matrix.columns.get_indexer(sel["system"])
    bcol = matrix.columns.get_indexer(sel["reference_system"])
    if (col < 0).any() or (bcol < 0).any():
        absent = sorted(set(sel["system"][col < 0]) | set(sel["reference_system"][bcol < 0]))
        raise SchemaError(
            f"the test scores of {gd} lack system(s) {absent[:5]} chosen in training."
        )
    values = matrix.to_numpy(dtype=np.float64)
    a, b = values[:, col], values[:, bcol]
    stat = np.zeros(len(col))
    pval = np.ones(len(col))
    differ = col != bcol
    if differ.any():
        res = wilcoxon(a[:, differ], b[:, differ])
        stat[differ] = res.statistic
        pval[differ] = res.p_value
    out = sel.copy()
    out.insert(0, "fold", fold)
    out["eval_measure"] = gd["measure"]
    out["value"] = a.mean(axis=0)
    out["reference_value"] = b.mean(axis=0)
    out["statistic"] = stat
    out["p_value"] = pval
    out["n_test_queries"] = values.shape[0]
    return out


def _inv_sd(frame: pd.DataFrame, keys: list[str], column: str, ddof: int) -> pd.Series:
    """1/sd (ddof) of ``column`` per group of ``keys``; identical values -> inf exactly (a
    floating-point sd of equal values, e.g. ten times 0.3, is ~1e-17, not 0); fewer than
    ddof + 1 values -> NaN."""
    g = frame.groupby(keys, sort=False, dropna=False)[column]
    sd = g.std(ddof=ddof)
    n = g.count()
    constant = (g.max() == g.min()) & (n > ddof)
    inv = 1.0 / sd.where(~constant, 0.0).replace(0.0, np.nan)
    inv[constant] = np.inf
    inv[n <= ddof] = np.nan
    return inv.astype(np.float64)


def training_stability(
    results: pd.DataFrame,
    params: str | Sequence[str],
    *,
    over: str = "repeat",
    reference: str = "AP",
    ddof: int = 1,
) -> pd.DataFrame:
    r"""1/σ_opt and 1/σ_diff over repeated training on subsampled judgments (He et al. 2008,
    Section 5.1).

    For each group of :func:`train_by_measure` results (fold, level, ... — every column except
    the per-row ones, the parameters and ``over``) and each training measure M other than
    the reference (MAP):

    .. math::
        1/\sigma_{opt}(X) = 1 / \mathrm{sd}_r\, \theta_X(x, r), \qquad
        1/\sigma_{diff}(M) = 1 / \mathrm{sd}_r\, |M(\mathrm{MAP}) - M(M)|, \qquad
        1/\sigma_{diff}(\mathrm{MAP}) = 1 / \mathrm{sd}_r\, |\mathrm{MAP}(\mathrm{MAP}) -
        \mathrm{MAP}(M)|

    θ_X is the parameter value chosen by training measure X, r runs over ``over``
    (repetitions), sd is the sample standard deviation (``ddof=1``; He et al. (2008) do not say
    which). Identical values over the repetitions (the same setting every
    time — common with a discrete grid) give 1/σ = ∞ exactly; fewer than ddof + 1
    repetitions give NaN.

    Caveat: 1/σ_diff measures how *stable* the difference is across
    repetitions, not how *small* it is; and 1/σ_diff(M), 1/σ_diff(MAP) are in the units of
    different measures.

    Parameters
    ----------
    results
        Output of :func:`train_by_measure` with ``train_scores`` holding variant columns.
    params
        The parameter column(s) of ``results`` (e.g. ``"b"``).
    over
        The column that indexes repetitions (default ``"repeat"``).
    reference
        The reference measure (default ``"AP"``).
    ddof
        Delta degrees of freedom of the standard deviation (default 1).

    Returns
    -------
    DataFrame
        The grouping columns (e.g. ``fold``, ``level``), ``measure`` (M), ``parameter``,
        ``inv_sigma_opt`` (1/σ_opt(M) of that parameter), ``inv_sigma_opt_reference``
        (1/σ_opt(MAP)), ``inv_sigma_diff`` (1/σ_diff(M), evaluated by M),
        ``inv_sigma_diff_reference`` (1/σ_diff(MAP), evaluated by MAP), ``n_repeats``. One
        row per group, M and parameter, in the order of ``results`` (groups, then measures
        in order of first appearance, then parameters as given).

    References
    ----------
    He, B., Macdonald, C., & Ounis, I. (2008). Retrieval Sensitivity Under Training Using
    Different Measures. SIGIR 2008.
    """
    params = [params] if isinstance(params, str) else list(params)
    needed = [over, "train_measure", "eval_measure", "value", "reference_value", *params]
    missing = [c for c in needed if c not in results.columns]
    if missing:
        raise SchemaError(
            f"results lack column(s) {missing}: pass the output of pdireval.train_by_measure with "
            "params= and train_scores carrying a repetition column (e.g. from subsample_qrels)."
        )
    if reference not in set(pd.unique(results["train_measure"])):
        raise SchemaError(f"results have no rows trained by the reference {reference!r}.")
    per_row = set(_RESULT_COLUMNS) | set(params) | {over}
    keys = [c for c in results.columns if c not in per_row]
    gk = keys + ["train_measure"]
    theta = results.drop_duplicates(keys + [over, "train_measure"])
    n_rep = theta.groupby(gk, sort=False, dropna=False)[over].count().rename("n_repeats")
    opt = pd.concat({p: _inv_sd(theta, gk, p, ddof) for p in params}, names=["parameter"])
    opt = opt.rename("inv_sigma_opt").reset_index()
    same = results[results["eval_measure"] == results["train_measure"]].assign(
        d=lambda f: (f["reference_value"] - f["value"]).abs()
    )
    by_map = results[results["eval_measure"] == reference].assign(
        d=lambda f: (f["reference_value"] - f["value"]).abs()
    )
    diff_m = _inv_sd(same, gk, "d", ddof).rename("inv_sigma_diff").reset_index()
    diff_map = _inv_sd(by_map, gk, "d", ddof).rename("inv_sigma_diff_reference").reset_index()
    base_opt = (
        opt[opt["train_measure"] == reference]
        .drop(columns="train_measure")
        .rename(columns={"inv_sigma_opt": "inv_sigma_opt_reference"})
    )
    out = opt[opt["train_measure"] != reference]
    out = out.merge(base_opt, on=["parameter", *keys], how="left")
    out = out.merge(diff_m, on=gk, how="left").merge(diff_map, on=gk, how="left")
    out = out.merge(n_rep.reset_index(), on=gk, how="left")
    # deterministic order: groups and measures as in results, parameters as given
    group_order = (
        results[keys]
        .drop_duplicates()
        .reset_index(drop=True)
        .reset_index()
        .rename(columns={"index": "_g"})
        if keys
        else None
    )
    m_order = {m: i for i, m in enumerate(pd.unique(results["train_measure"]))}
    out["_m"] = out["train_measure"].map(m_order)
    out["_p"] = out["parameter"].map({p: i for i, p in enumerate(params)})
    if group_order is not None:
        out = out.merge(group_order, on=keys, how="left")
        out = out.sort_values(["_g", "_m", "_p"], kind="stable")
    else:
        out = out.sort_values(["_m", "_p"], kind="stable")
    out = out.rename(columns={"train_measure": "measure"})
    out = out[
        [
            *keys,
            "measure",
            "parameter",
            "inv_sigma_opt",
            "inv_sigma_opt_reference",
            "inv_sigma_diff",
            "inv_sigma_diff_reference",
            "n_repeats",
        ]
    ].reset_index(drop=True)
    out["n_repeats"] = out["n_repeats"].astype(np.int64)
    for c in (
        "inv_sigma_opt",
        "inv_sigma_opt_reference",
        "inv_sigma_diff",
        "inv_sigma_diff_reference",
    ):
        out[c] = out[c].astype(np.float64)
    return out


def stability_sign_test(
    stability: pd.DataFrame,
    *,
    level: str = "level",
    ranges: Iterable[tuple[float, float]] = ((0, 10), (10, 100)),
    by: str | Sequence[str] = (),
) -> pd.DataFrame:
    r"""Sign-test counts a/b of He et al.'s (2008) Tables 4 (1/σ_opt) and 5 (1/σ_diff).

    Over the cases of ``stability`` (training tasks × completeness levels), a = #cases with
    1/σ(M) > 1/σ(MAP), b = #cases with <; ties (including ∞ = ∞) and NaN are dropped; the
    two-sided exact sign test gives p = min(1, 2·P(X ≥ max(a, b))), X ~ Binomial(a + b, ½)
    (:func:`pdireval.stats.paired_tests.sign_test`). He et al. (2008) mark
    p < 0.05 with > and p < 0.01 with ≫.

    Parameters
    ----------
    stability
        Output of :func:`training_stability`.
    level
        The completeness column (default ``"level"``).
    ranges
        Level ranges (lo, hi] counted separately besides "all" (He, Macdonald & Ounis 2008: x ≤ 10
        and x > 10, see docs/incomplete.md).
    by
        Extra columns kept apart (e.g. ``"model"``); ``measure`` and ``parameter`` always are.

    Returns
    -------
    DataFrame
        ``by`` columns, ``measure``, ``parameter``, ``quantity`` (``"sigma_opt"`` or
        ``"sigma_diff"``), ``levels`` (``"all"`` or ``"lo<x<=hi"``), ``n_cases``,
        ``n_greater`` (a), ``n_less`` (b), ``p_value``.

    References
    ----------
    He, B., Macdonald, C., & Ounis, I. (2008). Retrieval Sensitivity Under Training Using
    Different Measures. SIGIR 2008.
    """
    by = [by] if isinstance(by, str) else list(by)
    needed = [
        level,
        "measure",
        "parameter",
        "inv_sigma_opt",
        "inv_sigma_opt_reference",
        "inv_sigma_diff",
        "inv_sigma_diff_reference",
        *by,
    ]
    missing = [c for c in needed if c not in stability.columns]
    if missing:
        raise SchemaError(
            f"stability lacks column(s) {missing}: pass the output of pdireval.training_stability."
        )
    windows = [("all", -np.inf, np.inf)] + [(f"{lo:g}<x<={hi:g}", lo, hi) for lo, hi in ranges]
    rows = []
    for gkey, g in stability.groupby([*by, "measure", "parameter"], sort=False, dropna=False):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        gd = dict(zip([*by, "measure", "parameter"], gkey))
        x = g[level].to_numpy(dtype=np.float64)
        for quantity, a_col, b_col in (
            ("sigma_opt", "inv_sigma_opt", "inv_sigma_opt_reference"),
            ("sigma_diff", "inv_sigma_diff", "inv_sigma_diff_reference"),
        ):
            for name, lo, hi in windows:
                sel = (x > lo) & (x <= hi)
                a = g[a_col].to_numpy(dtype=np.float64)[sel]
                b = g[b_col].to_numpy(dtype=np.float64)[sel]
                res = sign_test(a, b)
                rows.append(
                    {
                        **gd,
                        "quantity": quantity,
                        "levels": name,
                        "n_cases": int(sel.sum()),
                        "n_greater": int(res.n_greater),
                        "n_less": int(res.n_less),
                        "p_value": float(res.p_value),
                    }
                )
    out = pd.DataFrame(
        rows,
        columns=[
            *by,
            "measure",
            "parameter",
            "quantity",
            "levels",
            "n_cases",
            "n_greater",
            "n_less",
            "p_value",
        ],
    )
    for c in ("n_cases", "n_greater", "n_less"):
        out[c] = out[c].astype(np.int64)
    return out
