"""Array-level statistics, scipy-style: numpy arrays in, numpy arrays (or small result tuples)
out, no DataFrames. The meta-evaluation functions of `pdireval` call these; they are public
for users who hold plain arrays.

Public names are listed in `__all__` and loaded from their module on first use, so
``import pdireval.stats`` stays light. Modules whose name starts with an underscore are
helpers (scipy's convention): ``_adapters`` is the one door to scipy.stats and pingouin.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what static tools (mypy, pyright, IDEs) see of the names loaded lazily
    from pdireval.stats.corrections import CORRECTIONS as CORRECTIONS
    from pdireval.stats.corrections import RESAMPLING_CORRECTIONS as RESAMPLING_CORRECTIONS
    from pdireval.stats.corrections import adjust_pvalues as adjust_pvalues
    from pdireval.stats.gtheory import anova_table as anova_table
    from pdireval.stats.gtheory import coefficient_intervals as coefficient_intervals
    from pdireval.stats.gtheory import e_rho2 as e_rho2
    from pdireval.stats.gtheory import phi as phi
    from pdireval.stats.gtheory import queries_needed as queries_needed
    from pdireval.stats.gtheory import variance_components as variance_components
    from pdireval.stats.information_theory import information_from_tau as information_from_tau
    from pdireval.stats.information_theory import pair_information as pair_information
    from pdireval.stats.information_theory import (
        plugin_conditional_mutual_information as plugin_conditional_mutual_information,
    )
    from pdireval.stats.information_theory import (
        plugin_mutual_information as plugin_mutual_information,
    )
    from pdireval.stats.information_theory import tau_from_information as tau_from_information
    from pdireval.stats.interrater import cohen_kappa as cohen_kappa
    from pdireval.stats.interrater import krippendorff_alpha as krippendorff_alpha
    from pdireval.stats.interrater import observed_agreement as observed_agreement
    from pdireval.stats.multiplicity import resampling_adjust as resampling_adjust
    from pdireval.stats.paired_tests import SignTestResult as SignTestResult
    from pdireval.stats.paired_tests import TestResult as TestResult
    from pdireval.stats.paired_tests import bootstrap_test as bootstrap_test
    from pdireval.stats.paired_tests import paired_t as paired_t
    from pdireval.stats.paired_tests import randomization_test as randomization_test
    from pdireval.stats.paired_tests import sign_test as sign_test
    from pdireval.stats.paired_tests import tukey_hsd as tukey_hsd
    from pdireval.stats.paired_tests import wilcoxon as wilcoxon
    from pdireval.stats.prediction_powered import PPIResult as PPIResult
    from pdireval.stats.prediction_powered import RoganGladenResult as RoganGladenResult
    from pdireval.stats.prediction_powered import ppi_mean as ppi_mean
    from pdireval.stats.prediction_powered import ppi_mean_differences as ppi_mean_differences
    from pdireval.stats.prediction_powered import ppi_mean_stratified as ppi_mean_stratified
    from pdireval.stats.prediction_powered import rogan_gladen as rogan_gladen
    from pdireval.stats.rank_correlation import kendall_tau as kendall_tau
    from pdireval.stats.rank_correlation import rank_correlation as rank_correlation
    from pdireval.stats.rank_correlation import tau_ap as tau_ap
    from pdireval.stats.rank_overlap import rbo_ext as rbo_ext
    from pdireval.stats.rank_overlap import rbo_truncated as rbo_truncated
    from pdireval.stats.rank_overlap import top_k_overlap as top_k_overlap

#: public name -> the module of pdireval.stats that defines it
_PUBLIC: dict[str, str] = {
    # paired significance tests (vectorised over pairs and resamples)
    "paired_t": "paired_tests",
    "wilcoxon": "paired_tests",
    "sign_test": "paired_tests",
    "randomization_test": "paired_tests",
    "bootstrap_test": "paired_tests",
    "tukey_hsd": "paired_tests",
    "TestResult": "paired_tests",
    "SignTestResult": "paired_tests",
    # multiple comparisons
    "adjust_pvalues": "corrections",
    "CORRECTIONS": "corrections",
    "RESAMPLING_CORRECTIONS": "corrections",
    "resampling_adjust": "multiplicity",
    # generalizability theory
    "anova_table": "gtheory",
    "variance_components": "gtheory",
    "phi": "gtheory",
    "e_rho2": "gtheory",
    "queries_needed": "gtheory",
    "coefficient_intervals": "gtheory",
    # information theory
    "information_from_tau": "information_theory",
    "tau_from_information": "information_theory",
    "plugin_mutual_information": "information_theory",
    "plugin_conditional_mutual_information": "information_theory",
    "pair_information": "information_theory",
    # agreement between assessors
    "cohen_kappa": "interrater",
    "krippendorff_alpha": "interrater",
    "observed_agreement": "interrater",
    # prediction-powered inference, misclassification correction
    "ppi_mean": "prediction_powered",
    "ppi_mean_differences": "prediction_powered",
    "ppi_mean_stratified": "prediction_powered",
    "rogan_gladen": "prediction_powered",
    "PPIResult": "prediction_powered",
    "RoganGladenResult": "prediction_powered",
    # rank correlation and overlap
    "kendall_tau": "rank_correlation",
    "tau_ap": "rank_correlation",
    "rank_correlation": "rank_correlation",
    "rbo_ext": "rank_overlap",
    "rbo_truncated": "rank_overlap",
    "top_k_overlap": "rank_overlap",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    """Load a public name from its module on first use (PEP 562) and cache it."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'pdireval.stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pdireval.stats.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
