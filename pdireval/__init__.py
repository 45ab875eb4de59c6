"""pdireval: information-retrieval evaluation and meta-evaluation for pandas.

``import pdireval`` registers the ``DataFrame.ireval`` accessor.
"""

from __future__ import annotations

from . import accessor as _accessor  # noqa: F401  (registers DataFrame.ireval)
from . import datasets, retrieval
from .bounds_frame import bounds
from .errors import MeasureError, OptionError, PdirevalError, PdirevalWarning, SchemaError
from .evaluate import evaluate
from .fusion import fuse
from .information import information_difference, joint_ric
from .io import read_qrels, read_run, read_svmlight, write_qrels, write_run
from .measures import Measure, measures, parse_measure
from .meta.aggregate import aggregate
from .meta.correlation import correlate
from .meta.incomplete import completeness_correlation, evaluate_variants, subsample_qrels
from .meta.information import information_from_tau, information_tau, tau_from_information
from .meta.optimize import optimize
from .meta.power import asl_curve, conflicts, discriminative_power
from .meta.querysets import pad, query_sets
from .meta.reliability import d_study, reliability
from .meta.significance import compare
from .meta.stability import error_rate, swap_difference, swap_rate
from .meta.training import stability_sign_test, train_test, training_stability
from .reporting import report

__version__ = "0.1.0"

__all__ = [
    "PdirevalError",
    "SchemaError",
    "MeasureError",
    "OptionError",
    "PdirevalWarning",
    "Measure",
    "parse_measure",
    "measures",
    "evaluate",
    "bounds",
    "query_sets",
    "pad",
    "aggregate",
    "reliability",
    "d_study",
    "compare",
    "discriminative_power",
    "asl_curve",
    "conflicts",
    "correlate",
    "subsample_qrels",
    "evaluate_variants",
    "optimize",
    "swap_rate",
    "swap_difference",
    "error_rate",
    "completeness_correlation",
    "train_test",
    "training_stability",
    "stability_sign_test",
    "retrieval",
    "read_run",
    "read_qrels",
    "read_svmlight",
    "write_run",
    "write_qrels",
    "datasets",
    "report",
    "information_tau",
    "information_from_tau",
    "tau_from_information",
    "joint_ric",
    "information_difference",
    "fuse",
]
