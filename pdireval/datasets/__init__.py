"""Embedded data: a seeded simulator of realistic TREC-like test collections.

The README's example, the docs and the report run on :func:`simulate` when no real data is
given. The model is deliberately simple but has everything real collections have and
naive code gets wrong: graded labels (0..``max_label``) with a few negative (spam) labels,
queries of varied difficulty and numbers of relevant documents, systems of varied quality
that are better on some queries than on others,
shallow pooling (documents below ``pool_depth`` that no system ranked higher are unjudged),
exact score ties, and doc ids shared across queries.
"""

from __future__ import annotations

from pdireval.datasets.cranfield import read_cranfield
from pdireval.datasets.intents import simulate_diversity
from pdireval.datasets.simulation import EXAMPLE, simulate

__all__ = ["simulate", "simulate_diversity", "read_cranfield", "EXAMPLE"]
