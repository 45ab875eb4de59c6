"""The parameters measures share, declared once: a measure lists the ones it reads in its
:class:`~pdireval.measures.registry.MeasureDef` (``params=BINARY``, ``params=GRADED + (GAINS,)``).

``BOUND_PARAMS`` (the bound normalisation of :mod:`pdireval.measures.bounds`) and ``TIES``
are added to a definition's parameters by the definition itself, from ``bounded=`` and for
every measure (see :class:`~pdireval.measures.registry.MeasureDef`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pdireval.measures.view import DISCOUNTS, NEGATIVES
from pdireval.measures.view import GAINS as GAIN_NAMES

__all__ = [
    "Param",
    "persistence_check",
    "REL",
    "GAIN",
    "DISCOUNT",
    "JUDGED_ONLY",
    "NEG",
    "BINARY",
    "GRADED",
    "P_PARAM",
    "MAX_GRADE",
    "GAINS",
    "TREC_GRADED",
    "VARIANT",
    "TIES",
    "TIE_CHOICES",
    "BOUND_PARAMS",
    "BOUND_PARAM_NAMES",
    "BOUNDS",
    "LB",
    "LOWER",
    "RLB_POOLS",
    "DEGENERATE",
    "POOLS",
    "MAX_MC_SAMPLES",
]


@dataclass(frozen=True)
class Param:
    """A declared measure parameter.

    ``kind`` is one of ``int``, ``float``, ``bool``, ``choice``, ``gain`` (a choice or a
    label->gain mapping), ``discount`` (a choice or a vector of weights), ``vector``.
    """

    name: str
    kind: str
    default: Any
    description: str
    choices: tuple = ()
    check: Callable[[Any], str | None] | None = None  # returns an error text or None


# ---------------------------------------------------------------- label readings

REL = Param("rel", "float", 1.0, "Minimum label counted as relevant (trec_eval -l).")
GAIN = Param(
    "gain",
    "gain",
    "linear",
    "Gain of a label: linear (= label), exp (2^label - 1), or a mapping {label: gain}.",
    choices=GAIN_NAMES,
)
DISCOUNT = Param(
    "discount",
    "discount",
    "log2",
    "Weight of rank i: log2 = 1/log2(i+1), zipf = 1/i, linear = (k+1-i)/k, "
    "jk = 1/max(1, log2 i), or a vector of weights.",
    choices=DISCOUNTS,
)
JUDGED_ONLY = Param(
    "judged_only",
    "bool",
    False,
    "Condensed list (Sakai 2007): drop unjudged documents before computing; normalisers unchanged.",
)
NEG = Param(
    "negatives",
    "choice",
    "unjudged",
    "Reading of negative labels: unjudged (trec_eval: pooled but unjudged), nonrel (judged "
    "non-relevant, label 0), keep (a genuine negative gain).",
    choices=NEGATIVES,
)

#: the parameters of a binary measure (relevant = label >= rel)
BINARY = (REL, JUDGED_ONLY, NEG)
#: the parameters of a graded measure (gain of a label, discount of a rank)
GRADED = (GAIN, DISCOUNT, JUDGED_ONLY, NEG)


def persistence_check(p):
    """The check of a persistence parameter (RBP's p, C/W/L's and RBO's): 0 < p < 1."""
    return None if 0 < p < 1 else "a persistence 0 < p < 1"


P_PARAM = Param(
    "p",
    "float",
    0.8,
    "Persistence: probability of moving on to the next rank.",
    check=persistence_check,
)
MAX_GRADE = Param(
    "max_grade",
    "float",
    4.0,
    "g_max in R = (2^g - 1)/2^g_max: a number (default 4, gdeval and ir_measures), or qrels "
    "(the largest label in the qrels).",
    choices=("qrels",),
)
GAINS = Param(
    "gains",
    "gain",
    None,
    "trec_eval gain levels {label: gain}; labels not listed keep their label as gain "
    "(trec_eval -m G.1=3.5,2=9).",
)
#: trec_eval's graded measures: gain levels instead of gain= and discount=
TREC_GRADED = (GAINS, REL, JUDGED_ONLY, NEG)
VARIANT = Param(
    "variant",
    "choice",
    "r",
    "r: trec_eval's bpref (min(n_r, R)/min(N, R)); 10r: bpref-10 (min(n_r, 10+R)/min(N, 10+R)).",
    choices=("r", "10r"),
)

# ---------------------------------------------------------------- score ties

TIE_CHOICES = ("break", "expected")
TIES = Param(
    "ties",
    "choice",
    "break",
    "Score ties: break (trec_eval: by doc id descending) or expected (the exact expectation "
    "over all orderings of tied documents, McSherry & Najork 2008).",
    choices=TIE_CHOICES,
)

# ---------------------------------------------------------------- bound normalisation

BOUNDS = ("max", "minmax", "ul1", "ul2")
LB = ("exact", "paper", "mc")
LOWER = ("paper", "worst")
RLB_POOLS = ("qrels", "run")
DEGENERATE = ("nan", "zero", "one")
POOLS = ("qrels", "retrieved")
#: The most Monte-Carlo permutations ``mc_samples=`` may ask for (as ``compare``'s n_resamples).
MAX_MC_SAMPLES = 10**6


def _at_least(n):
    return lambda v: None if v >= n else f"a whole number >= {n}"


def _mc_samples(v):
    if 2 <= v <= MAX_MC_SAMPLES:
        return None
    return f"a whole number >= 2 and <= {MAX_MC_SAMPLES} (got {v})"


BOUND_PARAMS = (
    Param(
        "bounds",
        "choice",
        "max",
        "Bound normalisation: max (the ordinary measure), minmax ((A - WLB)/(IUB - WLB), "
        "Gienapp et al.'s (2020) NDCG_min), ul1 / ul2 (Karmaker & Feng's (2022) V1 / V2 with "
        "the random lower bound).",
        choices=BOUNDS,
    ),
    Param(
        "lb",
        "choice",
        "exact",
        "Random lower bound (RLB, expectation under a random ranking): exact closed form, "
        "paper (Karmaker & Feng's (2022) published formula), or mc (Monte-Carlo).",
        choices=LB,
    ),
    Param(
        "lower",
        "choice",
        "paper",
        "V2's branch below the random level: paper ((A - RLB)/RLB) or worst "
        "((A - RLB)/(RLB - WLB), maps the worst ranking to -1).",
        choices=LOWER,
    ),
    Param(
        "rlb_pool",
        "choice",
        "qrels",
        "What a random ranking permutes: qrels (the judged pool of the query) or run (the "
        "documents the run ranks, unjudged ones with gain 0).",
        choices=RLB_POOLS,
    ),
    Param(
        "mc_samples",
        "int",
        1000,
        "Monte-Carlo permutations per query (lb=mc).",
        check=_mc_samples,
    ),
    Param(
        "mc_seed",
        "int",
        0,
        "Seed of the Monte-Carlo permutations (lb=mc).",
        check=_at_least(0),
    ),
    Param(
        "clip",
        "bool",
        False,
        "bounds=minmax only: clip to [0, 1] (NDCG_min leaves [0, 1] when unjudged documents or "
        "a short list sit where the worst ranking puts negative ones).",
    ),
    Param(
        "pool",
        "choice",
        "qrels",
        "bounds=minmax of DCG/nDCG only: the documents IDCG and WDCG order: qrels (the judged "
        "pool of the query) or retrieved (the distinct judged documents retrieved by at least "
        "one evaluated run, to pool_depth).",
        choices=POOLS,
    ),
    Param(
        "pool_depth",
        "int",
        None,
        "pool=retrieved: only documents retrieved at ranks <= pool_depth count (default: "
        "whole lists).",
        check=_at_least(1),
    ),
    Param(
        "degenerate",
        "choice",
        "nan",
        "bounds=minmax only: the value when every ordering of the pool scores the same "
        "(IUB = WLB, e.g. one distinct label): nan, zero or one.",
        choices=DEGENERATE,
    ),
)
BOUND_PARAM_NAMES = tuple(p.name for p in BOUND_PARAMS)
