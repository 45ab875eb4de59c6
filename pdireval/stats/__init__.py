"""Array-level statistics, scipy-style: numpy arrays in, numpy arrays (or small result tuples)
out, no DataFrames. The meta-evaluation functions of `pdireval` call these; they are public
for users who hold plain arrays.

Public names are listed in `__all__` and loaded from their module on first use, so
``import pdireval.stats`` stays light. Modules whose name starts with an underscore are
helpers (scipy's convention): ``_adapters`` is the one door to scipy.stats and pingouin.
"""

from __future__ import annotations

import importlib

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
