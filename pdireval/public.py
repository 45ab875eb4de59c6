"""The list of pdireval's public names: where each is defined, and which become accessor methods.

``pdireval/__init__.py`` loads each name lazily from the module given here on first use, the
``DataFrame.ireval`` accessor is generated from :data:`FRAME_FUNCTIONS`, and ``docs/api.md``
is generated from both (``python -m pdireval.apidoc``). To add a public function, add one line
to :data:`EXPORTS` (and its name to :data:`FRAME_FUNCTIONS` when its first argument is a frame).
This module imports nothing, so reading it costs nothing.
"""

from __future__ import annotations

#: public name -> the module that defines it (functions, classes and submodules).
EXPORTS: dict[str, str] = {
    # errors and warnings
    "PdirevalError": "pdireval.errors",
    "SchemaError": "pdireval.errors",
    "MeasureError": "pdireval.errors",
    "OptionError": "pdireval.errors",
    "PdirevalWarning": "pdireval.errors",
    "PdirevalDeprecationWarning": "pdireval.errors",
    # measures
    "Measure": "pdireval.measures.registry",
    "parse_measure": "pdireval.measures.registry",
    "register_measure": "pdireval.measures.user",
    "unregister_measure": "pdireval.measures.user",
    "measure_spellings": "pdireval.measures.spellings",
    "canonical_measures": "pdireval.measures.spellings",
    # files
    "read_run": "pdireval.io",
    "read_qrels": "pdireval.io",
    "read_svmlight": "pdireval.io",
    "read_scores": "pdireval.io",
    "write_scores": "pdireval.io",
    "write_run": "pdireval.io",
    "write_qrels": "pdireval.io",
    "excel_safe": "pdireval.io.spreadsheets",
    "read_nuggets": "pdireval.rag.file_readers",
    "read_assignments": "pdireval.rag.file_readers",
    "read_support": "pdireval.rag.file_readers",
    "read_rag_scores": "pdireval.rag.file_scores",
    "write_nuggets": "pdireval.rag.file_writers",
    "write_assignments": "pdireval.rag.file_writers",
    "write_support": "pdireval.rag.file_writers",
    "write_rag_scores": "pdireval.rag.file_scores",
    # run (+ qrels) -> scores
    "evaluate": "pdireval.evaluation",
    "bounds": "pdireval.bounds_frame",
    # RAG answers: nuggets, assignments, citation support -> scores
    "validate_nuggets": "pdireval.rag.frames",
    "validate_assignments": "pdireval.rag.frames",
    "validate_support": "pdireval.rag.frames",
    "evaluate_nuggets": "pdireval.rag.nuggets",
    "evaluate_support": "pdireval.rag.support",
    # scores -> meta-evaluation
    "aggregate": "pdireval.meta.aggregate",
    "compare": "pdireval.meta.significance",
    "discriminative_power": "pdireval.meta.power",
    "asl_curve": "pdireval.meta.power",
    "decision_conflicts": "pdireval.meta.power",
    "correlate": "pdireval.meta.correlation",
    "reliability": "pdireval.meta.reliability",
    "d_study": "pdireval.meta.reliability",
    "swap_rate": "pdireval.meta.stability",
    "swap_difference": "pdireval.meta.stability",
    "error_rate": "pdireval.meta.stability",
    "query_sets": "pdireval.meta.querysets",
    "percentage_absolute_difference": "pdireval.meta.querysets",
    "information_tau": "pdireval.meta.information_tau",
    "completeness_correlation": "pdireval.meta.completeness",
    "leaderboard_agreement": "pdireval.meta.leaderboard",
    "rank_uncertainty": "pdireval.meta.rank_intervals",
    "query_set_size": "pdireval.meta.set_size",
    "train_by_measure": "pdireval.meta.training",
    "training_stability": "pdireval.meta.training",
    "stability_sign_test": "pdireval.meta.training",
    "ppi_means": "pdireval.meta.ppi",
    "ppi_differences": "pdireval.meta.ppi",
    "self_preference": "pdireval.meta.self_preference",
    "leaderboard_correlation": "pdireval.meta.leaderboard_correlation",
    # information theory on arrays
    "information_from_tau": "pdireval.stats.information_theory",
    "tau_from_information": "pdireval.stats.information_theory",
    # runs and qrels -> analyses
    "subsample_qrels": "pdireval.runs.subsampling",
    "evaluate_variants": "pdireval.runs.variants",
    "fuse": "pdireval.runs.fusion",
    "tune_fusion": "pdireval.runs.fusion_tuning",
    "joint_ric": "pdireval.runs.joint_ric",
    "information_difference": "pdireval.runs.joint_ric",
    "optimize": "pdireval.runs.optimize",
    "agreement": "pdireval.runs.judgment_agreement",
    "judgment_confusion": "pdireval.runs.judgment_agreement",
    "qrels_overlap": "pdireval.runs.qrels_overlap",
    "corrected_relevant_rate": "pdireval.runs.prevalence",
    "fill_holes": "pdireval.runs.holes",
    "reproducibility": "pdireval.runs.reproduction",
    # presentation
    "report": "pdireval.reporting",
    # other tools
    "as_ir_measure": "pdireval.bridge",
    "paper_table": "pdireval.reporting.paper",
}

#: Public subpackages, importable as attributes of ``pdireval`` (``pdireval.datasets.simulate``).
SUBMODULES: tuple[str, ...] = ("datasets", "measures", "plot", "pyterrier", "stats")

#: Public functions whose first argument is a frame: each becomes a ``DataFrame.ireval`` method
#: with the same signature minus that argument, and the same docstring.
FRAME_FUNCTIONS: tuple[str, ...] = (
    "evaluate",
    "bounds",
    "validate_nuggets",
    "validate_assignments",
    "validate_support",
    "evaluate_nuggets",
    "evaluate_support",
    "aggregate",
    "compare",
    "discriminative_power",
    "asl_curve",
    "decision_conflicts",
    "correlate",
    "reliability",
    "d_study",
    "swap_rate",
    "swap_difference",
    "error_rate",
    "query_sets",
    "percentage_absolute_difference",
    "information_tau",
    "completeness_correlation",
    "train_by_measure",
    "training_stability",
    "stability_sign_test",
    "subsample_qrels",
    "evaluate_variants",
    "fuse",
    "tune_fusion",
    "joint_ric",
    "information_difference",
    "optimize",
    "agreement",
    "judgment_confusion",
    "fill_holes",
    "leaderboard_agreement",
    "leaderboard_correlation",
    "ppi_means",
    "ppi_differences",
    "self_preference",
    "qrels_overlap",
    "corrected_relevant_rate",
    "rank_uncertainty",
    "reproducibility",
    "query_set_size",
    "report",
    "paper_table",
    "write_run",
    "write_qrels",
    "write_scores",
    "measure_spellings",
    "canonical_measures",
    "excel_safe",
    "write_nuggets",
    "write_assignments",
    "write_support",
    "write_rag_scores",
)

#: Public names renamed in 0.2: old name -> new name. The old names still work, at the top level
#: (``pdireval.pad``) and on the accessor (``scores.ireval.pad()``), with a
#: ``PdirevalDeprecationWarning``; they are removed in 0.3. Renamed keyword options are declared
#: on their functions (``errors.renamed_options``). The whole table: CHANGELOG.md.
DEPRECATED_NAMES: dict[str, str] = {
    "conflicts": "decision_conflicts",
    "pad": "percentage_absolute_difference",
    "topic_set_size": "query_set_size",
    "train_test": "train_by_measure",
}
