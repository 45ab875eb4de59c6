"""Type aliases of pdireval's public signatures (for annotations; nothing here runs).

``RngLike`` is what every ``rng=`` accepts (the one policy: :func:`pdireval.errors.check_rng`;
None, the default everywhere, is fresh entropy), ``Columns`` what every ``columns=`` accepts.
The ``Literal`` aliases list the option strings a function accepts; each equals the tuple its
function validates against at run time (``tests/test_annotations.py`` checks that they agree).
Modules import these names under ``typing.TYPE_CHECKING`` only, so they cost nothing at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from os import PathLike
from typing import IO, TYPE_CHECKING, Literal, TypeAlias

import numpy as np

if TYPE_CHECKING:
    from pdireval.measures.registry import Measure

__all__ = [
    "RngLike",
    "Columns",
    "PathArg",
    "PathOrBuffer",
    "Alternative",
    "TiedPairs",
    "NegativeComponents",
    "Missing",
    "Empty",
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
    "CompareMethod",
    "ResamplingCorrection",
    "JointMethod",
    "Negatives",
    "KappaWeights",
    "AlphaLevel",
    "MissingPolicy",
    "QueryPolicy",
    "FusionMethod",
    "WeightedFusionMethod",
    "FusionNorm",
    "SetSizeMethod",
    "TrecEvalVersion",
    "ScoresFormat",
    "WriteFormat",
    "MeasureLike",
    "Measures",
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
#: ``evaluate_nuggets(empty=)`` / ``evaluate_support(empty=)``: a score whose denominator is 0
#: (``rag.nuggets.EMPTY``).
Empty = Literal["zero", "nan"]
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
#: Corrections that resample the per-query differences
#: (``stats.corrections.RESAMPLING_CORRECTIONS``), then their other spellings
#: (``RESAMPLING_ALIASES``, read case-insensitively).
ResamplingCorrection = Literal[
    "maxt",
    "maxt-single",
    "closed",
    "westfall-young",
    "wy",
    "maxt-stepdown",
    "maxt-step-down",
    "maxt-singlestep",
    "maxt-single-step",
    "closed-testing",
]
#: The tests whose statistic a resampling correction resamples
#: (``stats.multiplicity.JOINT_METHODS``).
JointMethod = Literal["t", "randomization", "wilcoxon", "sign", "bootstrap"]
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
#: compare()'s methods (``meta.significance.COMPARE_METHODS``): the tests, then ``"bayes"``.
CompareMethod = Literal[TestMethod, "bayes"]
#: ``negatives=`` of the RIC functions: how negative labels are read (``runs.joint_ric``).
Negatives = Literal["unjudged", "nonrel", "keep"]
#: ``fuse(method=)`` (``runs.fusion_lists.FUSION_METHODS``), then ranx's names of the same
#: methods (``runs.fusion_lists.ALIASES``, read case-insensitively).
FusionMethod = Literal[
    "rrf",
    "isr",
    "log_isr",
    "borda",
    "rbc",
    "combsum",
    "combmnz",
    "combanz",
    "combmax",
    "combmin",
    "combmed",
    "condorcet",
    "naive",
    "pareto",
    "majoritarian",
    "sum",
    "wsum",
    "mnz",
    "wmnz",
    "anz",
    "max",
    "min",
    "med",
    "bordafuse",
    "w_bordafuse",
    "logisr",
]
#: ``tune_fusion(method=)``: the methods that take weights (``runs.fusion_lists.WEIGHTED_METHODS``)
#: and ranx's names of them.
WeightedFusionMethod = Literal[
    "rrf",
    "borda",
    "rbc",
    "combsum",
    "combmnz",
    "sum",
    "wsum",
    "mnz",
    "wmnz",
    "bordafuse",
    "w_bordafuse",
]
#: ``norm=`` of the score-based fusion methods besides None (``runs.fusion_lists.NORMS``), then
#: other spellings of them.
FusionNorm = Literal[
    "min-max",
    "zmuv",
    "sum",
    "max",
    "rank",
    "borda",
    "min_max",
    "minmax",
    "z-score",
    "zscore",
    "none",
]
#: ``query_set_size(method=)`` (``meta.set_size.SET_SIZE_METHODS``): Sakai's designs.
SetSizeMethod = Literal["ttest", "anova", "rm_anova", "ci"]
#: ``evaluate(trec_eval=)`` besides None: the trec_eval release whose numbers to reproduce
#: (``measures.trec_eval.versions.TREC_EVAL_VERSIONS``).
TrecEvalVersion = Literal["9", "9.0.8", "10", "10.0"]
#: ``read_scores(format=)`` besides None (``io.scores.SCORES_FORMATS``).
ScoresFormat = Literal[
    "trec_eval", "ir_measures", "ir_measures_jsonl", "pyterrier", "ranx", "mteb", "pdireval"
]
#: ``write_scores(format=)`` (``io.scores.WRITE_FORMATS``).
WriteFormat = Literal["trec_eval", "ir_measures", "ir_measures_jsonl", "csv"]
#: One measure: a measure string (``"nDCG@10"``, ``"P(rel=2)@5"``) or a parsed ``Measure``. (At run
#: time anything whose ``str()`` is a measure string works too, e.g. ir_measures' objects.)
MeasureLike: TypeAlias = "str | Measure"
#: The ``measures=`` of evaluate and friends: one measure or several.
Measures: TypeAlias = "str | Measure | Iterable[str | Measure]"
#: ``cohen_kappa(weights=)`` besides None (``stats.interrater.KAPPA_WEIGHTS``).
KappaWeights = Literal["linear", "quadratic"]
#: ``krippendorff_alpha(level=)``: the level of measurement (``stats.interrater.ALPHA_LEVELS``).
AlphaLevel = Literal["nominal", "ordinal", "interval"]
#: ``missing=`` of leaderboard_correlation and qrels_overlap: a system or query one side lacks
#: (``meta.leaderboard_correlation.CORRELATION_MISSING``, ``runs.qrels_overlap.QRELS_MISSING``).
MissingPolicy = Literal["error", "skip", "zero"]
#: ``leaderboard_correlation(queries=)`` (``meta.leaderboard_correlation.QUERY_POLICIES``).
QueryPolicy = Literal["shared", "all"]
