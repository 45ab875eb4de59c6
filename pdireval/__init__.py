"""pdireval: information-retrieval evaluation and meta-evaluation for pandas.

``import pdireval`` registers the ``DataFrame.ireval`` accessor. Public names are loaded on
first use (see :mod:`pdireval.public`), so importing the package costs little more than
importing pandas.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

from pdireval.public import DEPRECATED_NAMES, EXPORTS, SUBMODULES

if TYPE_CHECKING:  # what static tools (mypy, pyright, IDEs) see of the names loaded lazily
    from pdireval import datasets as datasets
    from pdireval import measures as measures
    from pdireval import plot as plot
    from pdireval import pyterrier as pyterrier
    from pdireval import stats as stats
    from pdireval.bounds_frame import bounds as bounds
    from pdireval.bridge import as_ir_measure as as_ir_measure
    from pdireval.errors import MeasureError as MeasureError
    from pdireval.errors import OptionError as OptionError
    from pdireval.errors import PdirevalDeprecationWarning as PdirevalDeprecationWarning
    from pdireval.errors import PdirevalError as PdirevalError
    from pdireval.errors import PdirevalWarning as PdirevalWarning
    from pdireval.errors import SchemaError as SchemaError
    from pdireval.evaluation import evaluate as evaluate
    from pdireval.io import read_qrels as read_qrels
    from pdireval.io import read_run as read_run
    from pdireval.io import read_scores as read_scores
    from pdireval.io import read_svmlight as read_svmlight
    from pdireval.io import write_qrels as write_qrels
    from pdireval.io import write_run as write_run
    from pdireval.io import write_scores as write_scores
    from pdireval.io.spreadsheets import excel_safe as excel_safe
    from pdireval.measures.registry import Measure as Measure
    from pdireval.measures.registry import parse_measure as parse_measure
    from pdireval.measures.spellings import canonical_measures as canonical_measures
    from pdireval.measures.spellings import measure_spellings as measure_spellings
    from pdireval.measures.user import register_measure as register_measure
    from pdireval.measures.user import unregister_measure as unregister_measure
    from pdireval.meta.aggregate import aggregate as aggregate
    from pdireval.meta.completeness import completeness_correlation as completeness_correlation
    from pdireval.meta.correlation import correlate as correlate
    from pdireval.meta.information_tau import information_tau as information_tau
    from pdireval.meta.leaderboard import leaderboard_agreement as leaderboard_agreement
    from pdireval.meta.leaderboard_correlation import (
        leaderboard_correlation as leaderboard_correlation,
    )
    from pdireval.meta.power import asl_curve as asl_curve
    from pdireval.meta.power import decision_conflicts as decision_conflicts
    from pdireval.meta.power import discriminative_power as discriminative_power
    from pdireval.meta.ppi import ppi_differences as ppi_differences
    from pdireval.meta.ppi import ppi_means as ppi_means
    from pdireval.meta.querysets import (
        percentage_absolute_difference as percentage_absolute_difference,
    )
    from pdireval.meta.querysets import query_sets as query_sets
    from pdireval.meta.rank_intervals import rank_uncertainty as rank_uncertainty
    from pdireval.meta.reliability import d_study as d_study
    from pdireval.meta.reliability import reliability as reliability
    from pdireval.meta.self_preference import self_preference as self_preference
    from pdireval.meta.set_size import query_set_size as query_set_size
    from pdireval.meta.significance import compare as compare
    from pdireval.meta.stability import error_rate as error_rate
    from pdireval.meta.stability import swap_difference as swap_difference
    from pdireval.meta.stability import swap_rate as swap_rate
    from pdireval.meta.training import stability_sign_test as stability_sign_test
    from pdireval.meta.training import train_by_measure as train_by_measure
    from pdireval.meta.training import training_stability as training_stability
    from pdireval.rag.file_readers import read_assignments as read_assignments
    from pdireval.rag.file_readers import read_nuggets as read_nuggets
    from pdireval.rag.file_readers import read_support as read_support
    from pdireval.rag.file_scores import read_rag_scores as read_rag_scores
    from pdireval.rag.file_scores import write_rag_scores as write_rag_scores
    from pdireval.rag.file_writers import write_assignments as write_assignments
    from pdireval.rag.file_writers import write_nuggets as write_nuggets
    from pdireval.rag.file_writers import write_support as write_support
    from pdireval.rag.frames import validate_assignments as validate_assignments
    from pdireval.rag.frames import validate_nuggets as validate_nuggets
    from pdireval.rag.frames import validate_support as validate_support
    from pdireval.rag.nuggets import evaluate_nuggets as evaluate_nuggets
    from pdireval.rag.support import evaluate_support as evaluate_support
    from pdireval.reporting import report as report
    from pdireval.reporting.paper import paper_table as paper_table
    from pdireval.runs.fusion import fuse as fuse
    from pdireval.runs.fusion_tuning import tune_fusion as tune_fusion
    from pdireval.runs.holes import fill_holes as fill_holes
    from pdireval.runs.joint_ric import information_difference as information_difference
    from pdireval.runs.joint_ric import joint_ric as joint_ric
    from pdireval.runs.judgment_agreement import agreement as agreement
    from pdireval.runs.judgment_agreement import judgment_confusion as judgment_confusion
    from pdireval.runs.optimize import optimize as optimize
    from pdireval.runs.prevalence import corrected_relevant_rate as corrected_relevant_rate
    from pdireval.runs.qrels_overlap import qrels_overlap as qrels_overlap
    from pdireval.runs.reproduction import reproducibility as reproducibility
    from pdireval.runs.subsampling import subsample_qrels as subsample_qrels
    from pdireval.runs.variants import evaluate_variants as evaluate_variants
    from pdireval.stats.information_theory import information_from_tau as information_from_tau
    from pdireval.stats.information_theory import tau_from_information as tau_from_information


def _trec_eval_command() -> bool:
    """True in a ``pdireval trec_eval ...`` process started from the command line before
    pandas is loaded: that command reads and evaluates with numpy only, so it starts as fast
    as trec_eval itself; it registers the accessor itself if it ever needs pandas."""
    argv = getattr(sys, "argv", None) or []
    script = str(argv[0]).replace("\\", "/").rsplit("/", 1)[-1] if argv else ""
    return (
        len(argv) > 1
        and argv[1] == "trec_eval"
        and script in ("pdireval", "pdireval.exe")
        and "pandas" not in sys.modules
    )


if not _trec_eval_command():
    from pdireval import accessor as _accessor  # noqa: F401  (registers DataFrame.ireval)

__version__ = "0.2.0"

if "dask.dataframe" in sys.modules:  # Dask already loaded: its DataFrames get
    importlib.import_module("pdireval.dask")  # .ireval too (pdireval never imports Dask itself)

__all__ = [*EXPORTS, *SUBMODULES]


def __getattr__(name: str):
    """Load a public name from its module on first use (PEP 562) and cache it."""
    if name in EXPORTS:
        value = getattr(importlib.import_module(EXPORTS[name]), name)
    elif name in SUBMODULES:
        value = importlib.import_module(f"pdireval.{name}")
    elif name in DEPRECATED_NAMES:  # not cached: every use warns
        from pdireval.errors import warn_renamed

        new = DEPRECATED_NAMES[name]
        warn_renamed(f"pdireval.{name}", f"pdireval.{new}")
        return __getattr__(new)
    else:
        raise AttributeError(f"module 'pdireval' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
