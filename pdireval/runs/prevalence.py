"""The share of relevant documents in a pool judged by an LLM, corrected for the judge's errors
measured on a human-judged sample (Rogan & Gladen 1978); the statistics are in
:mod:`pdireval.stats.prediction_powered`."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_qrels, one_judge
from pdireval.errors import PdirevalWarning, SchemaError, check_real
from pdireval.stats.prediction_powered import rogan_gladen

if TYPE_CHECKING:
    from pdireval.types import Columns

__all__ = ["corrected_relevant_rate"]


def corrected_relevant_rate(
    qrels: pd.DataFrame,
    other: pd.DataFrame,
    *,
    rel: float = 1,
    other_rel: float | None = None,
    confidence_level: float = 0.95,
    columns: Columns = None,
) -> pd.DataFrame:
    r"""The relevant share of a pool judged by a binary judge, corrected by a human sample.

    ``other`` (e.g. an LLM's labels) judges N (query, doc) pairs; ``qrels`` (human labels)
    judges a sample of them. The judge's apparent rate is p = share of its N pairs with
    ``label >= other_rel``; on the pairs both judged, its sensitivity Se (share called
    relevant among the n₊ human-relevant pairs, ``label >= rel``) and specificity Sp (share
    called non-relevant among the n₋ others). The Rogan–Gladen (1978) estimate of the true
    rate and its delta-method interval (:func:`pdireval.stats.prediction_powered.rogan_gladen`) are

    .. math:: \hat\pi = \frac{p + Sp - 1}{Se + Sp - 1}, \qquad
        \mathrm{Var}(\hat\pi) \approx \frac{p(1-p)/N + \hat\pi^2 Se(1-Se)/n_+
        + (1-\hat\pi)^2 Sp(1-Sp)/n_-}{(Se + Sp - 1)^2}.

    The estimator assumes the human sample is a random sample of the judged pairs and that p,
    Se and Sp are independent (the sample's pairs are counted in p too; with a sample much
    smaller than N the dependence is negligible). Human pairs the judge did not label are left
    out with a :class:`pdireval.PdirevalWarning`.

    Parameters
    ----------
    qrels
        Human qrels (``query, doc, label``) on the sample.
    other
        The judge's qrels on all pairs.
    rel, other_rel
        Relevance thresholds of ``qrels`` and ``other`` (``other_rel`` defaults to ``rel``).
    confidence_level
        Level of the normal interval (0.95).
    columns
        ``{canonical name: your column name}``, applied to both frames.

    Returns
    -------
    DataFrame
        One row: ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``apparent_rate`` (p),
        ``human_rate`` (the relevant share of the human sample), ``sensitivity``,
        ``specificity``, ``n_pairs`` (N), ``n_positive`` (n₊), ``n_negative`` (n₋). The
        estimate is NaN when Se + Sp ≤ 1 (a judge no better than chance).

    Raises
    ------
    SchemaError
        No pair judged by both, or the sample holds no relevant or no non-relevant pair (Se or
        Sp cannot be measured).

    References
    ----------
    Rogan, W. J., Gladen, B. (1978). Estimating prevalence from the results of a screening
    test. American Journal of Epidemiology 107.
    Greenland, S. (1996). Basic methods for sensitivity analysis of biases. International
    Journal of Epidemiology 25.
    """
    level = check_real("confidence_level", confidence_level, low=0.0, high=1.0, inclusive=False)
    rel = check_real("rel", rel)
    other_rel = rel if other_rel is None else check_real("other_rel", other_rel)
    human = one_judge(canonical_qrels(qrels, columns), "corrected_relevant_rate")
    judge = one_judge(canonical_qrels(other, columns), "corrected_relevant_rate")
    human = human[human["label"].notna().to_numpy()]
    judge = judge[judge["label"].notna().to_numpy()]
    both = human.merge(judge, on=["query", "doc"], how="left", suffixes=("_h", "_j"))
    unlabelled = both["label_j"].isna().to_numpy()
    if unlabelled.any():
        warnings.warn(
            f"{int(unlabelled.sum())} human-judged pairs have no label in other and are left "
            "out (the sample should be drawn from the judge's pairs).",
            PdirevalWarning,
            stacklevel=2,
        )
        both = both[~unlabelled]
    if len(both) == 0:
        raise SchemaError(
            "qrels and other share no judged (query, doc) pair: the judge's sensitivity and "
            "specificity are measured on the pairs both judged."
        )
    truth = both["label_h"].to_numpy(np.float64) >= rel
    called = both["label_j"].to_numpy(np.float64) >= other_rel
    n_pos, n_neg = int(truth.sum()), int((~truth).sum())
    if n_pos == 0 or n_neg == 0:
        raise SchemaError(
            f"the human sample holds {n_pos} relevant and {n_neg} non-relevant pairs (label >= "
            f"{rel:g}); both are needed to measure the judge's sensitivity and specificity."
        )
    sensitivity = float(called[truth].mean())
    specificity = float((~called[~truth]).mean())
    apparent = float((judge["label"].to_numpy(np.float64) >= other_rel).mean())
    res = rogan_gladen(
        apparent, len(judge), sensitivity, n_pos, specificity, n_neg, confidence_level=level
    )
    return pd.DataFrame(
        {
            "estimate": [float(res.estimate)],
            "se": [float(res.se)],
            "ci_low": [float(res.ci_low)],
            "ci_high": [float(res.ci_high)],
            "apparent_rate": [apparent],
            "human_rate": [float(truth.mean())],
            "sensitivity": [sensitivity],
            "specificity": [specificity],
            "n_pairs": [len(judge)],
            "n_positive": [n_pos],
            "n_negative": [n_neg],
        }
    ).astype({"n_pairs": np.int64})
