"""Type aliases of pdireval's public signatures (for annotations; nothing here runs).

``RngLike`` is what every ``rng=`` accepts (the one policy: :func:`pdireval.errors.check_rng`;
None, the default everywhere, is fresh entropy), ``Columns`` what every ``columns=`` accepts.
The ``Literal`` aliases list the option strings a function accepts; each equals the tuple its
function validates against at run time (``tests/test_annotations.py`` checks that they agree).
Modules import these names under ``typing.TYPE_CHECKING`` only, so they cost nothing at run time.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import IO, Literal

import numpy as np

__all__ = [
    "RngLike",
    "Columns",
    "PathArg",
    "PathOrBuffer",
    "Alternative",
    "TiedPairs",
    "NegativeComponents",
    "Missing",
    "Order",
    "ScorePrecision",
    "Judges",
    "Unjudged",
    "PartitionedBy",
    "SystemFrom",
    "Seeds",
    "IntervalMethod",
    "BootstrapInterval",
    "CorrelationMethod",
    "Correction",
    "TestMethod",
    "Negatives",
    "KappaWeights",
    "AlphaLevel",
]

#: None (fresh entropy), a non-negative int seed, a SeedSequence or a Generator.
RngLike = int | np.random.SeedSequence | np.random.Generator | None
#: ``{canonical column name: your column name}``, or None.
Columns = Mapping[str, str] | None
#: A file path (a string or any ``os.PathLike``).
PathArg = str | PathLike[str]
#: A file path or an open file.
PathOrBuffer = str | PathLike[str] | IO[str] | IO[bytes]

#: scipy's ``alternative=`` (``pdireval.stats.paired_tests.ALTERNATIVES``).
Alternative = Literal["two-sided", "greater", "less"]
#: How a statistic treats pairs tied in a ranking.
TiedPairs = Literal["keep", "drop"]
#: What to do with negative variance-component estimates (``stats.gtheory.NEGATIVE``).
NegativeComponents = Literal["clip", "keep"]
#: ``evaluate(missing=)``: a (system, query) pair the run lacks (``evaluation.MISSING``).
Missing = Literal["zero", "drop"]
#: ``evaluate(order=)``: how a run's documents are ordered (``evaluation.ORDERS``).
Order = Literal["score", "rank"]
#: ``evaluate(score_precision=)`` (``evaluation.SCORE_PRECISIONS``).
ScorePrecision = Literal["float32", "float64"]
#: ``evaluate(judges=)`` (``evaluation.JUDGES``).
Judges = Literal["each", "mean"]
#: ``evaluate(unjudged=)`` besides None (``evaluation.UNJUDGED``).
Unjudged = Literal["bounds"]
#: ``pdireval.dask.evaluate(partitioned_by=)`` besides None.
PartitionedBy = Literal["query", "system"]
#: ``read_run(system=)``: a run's system name from its tag column or its file name.
SystemFrom = Literal["tag", "filename"]
#: ``seeds=`` of aggregate and compare (``meta.seeds.SEEDS``), besides None.
Seeds = Literal["mean", "nested"]
#: ``aggregate(method=)``: confidence intervals of means (``meta.mean_intervals.METHODS``).
IntervalMethod = Literal["t", "bootstrap", "anova"]
#: ``bootstrap_interval=`` (``stats.intervals.BOOTSTRAP_INTERVALS``).
BootstrapInterval = Literal["percentile", "bca"]
#: Rank correlations (``stats.rank_correlation.CORRELATION_METHODS``).
CorrelationMethod = Literal[
    "kendall_a",
    "kendall_b",
    "gamma",
    "spearman",
    "pearson",
    "tau_ap",
    "tau_ap_sym",
    "tau_ap_b",
    "rbo",
]
#: Multiple-comparison corrections besides None (``stats.corrections.CORRECTIONS``), then
#: statsmodels' names of the same procedures (``CORRECTION_ALIASES``, read case-insensitively).
Correction = Literal[
    "bonferroni",
    "sidak",
    "holm",
    "holm-sidak",
    "hochberg",
    "hommel",
    "bh",
    "by",
    "none",
    "b",
    "bonf",
    "s",
    "h",
    "hs",
    "sh",
    "simes-hochberg",
    "ho",
    "fdr_bh",
    "fdr_i",
    "fdr_p",
    "fdri",
    "fdrp",
    "fdr_by",
    "fdr_n",
    "fdr_c",
    "fdrn",
    "fdrcorr",
]
#: Paired tests of ``compare(method=)`` (``meta.significance.METHODS``), then other tools'
#: names of the same tests (``METHOD_ALIASES``, read case-insensitively).
TestMethod = Literal[
    "bootstrap",
    "t",
    "wilcoxon",
    "sign",
    "randomization",
    "tukey",
    "student",
    "ttest",
    "t-test",
    "ttest_rel",
    "fisher",
    "permutation",
    "randomisation",
]
#: ``negatives=`` of the RIC functions: how negative labels are read (``runs.joint_ric``).
Negatives = Literal["unjudged", "nonrel", "keep"]
#: ``cohen_kappa(weights=)`` besides None (``stats.interrater.KAPPA_WEIGHTS``).
KappaWeights = Literal["linear", "quadratic"]
#: ``krippendorff_alpha(level=)``: the level of measurement (``stats.interrater.ALPHA_LEVELS``).
AlphaLevel = Literal["nominal", "ordinal", "interval"]
