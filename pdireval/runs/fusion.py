"""Rank fusion (metasearch): ranx's fusion methods and Montague's upper bounds, one run frame out.

Every method works per query on U, the union of the documents the fused systems retrieved.
Each system's list is read in trec_eval order (score descending, ties by doc id descending;
or by ``rank``), giving every retrieved document a 0-based position ``i`` (rank ``i + 1``).

Rank-based methods (their input is the positions only; scores and ``norm`` are not used):

* ``"rrf"`` (Cormack, Clarke & Büttcher 2009): Σ_s w_s / (k + i_s(d) + 1).
* ``"isr"`` (Mourão, Martins & Magalhães 2015): Σ_s 1/(i_s(d) + 1)² × n(d), n(d) = number of
  systems that retrieved d.
* ``"log_isr"`` (same paper): Σ_s 1/(i_s(d) + 1)² × ln n(d) (natural log, as ranx: a document
  one system retrieved scores 0).
* ``"borda"`` (BordaFuse; Aslam & Montague 2001): a system gives |U| − i points to the document
  at position i and (|U| − len + 1)/2 to each document of U it did not retrieve (len = its list
  length for the query; a system without a list for the query gives everyone (|U| + 1)/2);
  fused = Σ_s w_s × points (weighted BordaFuse with ``weights``).
* ``"rbc"`` (rank-biased centroid; Bailey, Moffat, Scholer & Thomas 2017): Σ_s w_s (1 − φ) φ^i.
* ``"condorcet"`` (CondorcetFuse; Montague & Aslam 2002): see below.

Score-based methods (Shaw & Fox 1994) work on the scores after ``norm`` (per (system, query)):

* ``"combsum"``: Σ_s w_s ŝ_s(d), 0 for a system that did not retrieve d (ranx ``wsum``).
* ``"combmnz"``: Σ_s ŝ_s(d) × n(d) — with ``weights``, ranx's weighted form
  Σ_{s ∋ d} ŝ_s(d) × Σ_{s ∋ d} w_s (ranx ``wmnz``).
* ``"combanz"``: Σ_s ŝ_s(d) / n(d).
* ``"combmax"`` / ``"combmin"`` / ``"combmed"``: maximum / minimum / median of ŝ_s(d) over the
  systems that retrieved d.

(Shaw & Fox count "non-zero scores"; after min-max normalisation the last document of every
list scores 0, so pdireval, like ranx, counts retrieving systems instead.)

Normalisations ``norm`` (ranx's definitions; n = list length, ŝ the normalised score):
``"min-max"`` (s − min)/(max − min) — **1.0 for every document when max = min** (ranx gives 0
there; a list of one document still counts fully); ``"zmuv"`` (z-score; alias ``"z-score"``)
(s − mean)/max(std, 1e-9), std with ddof = 0; ``"sum"`` (s − min)/max(Σs − n·min, 1e-9);
``"max"`` s/max(max, 1e-9); ``"rank"`` 1 − i/n; ``"borda"`` 1 − i/|U| for a retrieved
document and 0.5 − (n − 1)/(2|U|) for every other document of U (so after it every system has
a score for every document of U, and n(d) is the number of systems); ``None``: raw scores.

Comparator-based orders (Montague 2002) — ``sorted(U in doc-id ascending order,
key=cmp_to_key(cmp))``, deterministic, and part of the definition because the comparators need
not be transitive. v12 = number of systems ranking d1 above d2 (a system ranks every retrieved
document above every one it did not retrieve, and abstains on a pair it retrieved neither of).

* ``"condorcet"``: d1 first if v12 > v21, d2 first if v21 > v12, else equal.
* ``"naive"`` (upper bound): relevance comparison only — higher qrels label first; unjudged
  (and, as in trec_eval, negatively labelled) documents compare like label 0.
* ``"pareto"`` (upper bound): d1 first if *every* system ranks it above d2, symmetric for d2,
  otherwise relevance comparison.
* ``"majoritarian"`` (upper bound): d1 first if v12 ≥ n/2 and v12 > v21 (the strict second
  condition resolves "at least half", which with an even n can hold both ways), symmetric for
  d2, otherwise relevance comparison.

Ranking: each query's documents are ranked by fused score, descending, equal scores by doc
id descending (trec_eval's tie-break). Scores equal in exact arithmetic can differ in their
last bits after summing (``norm="rank"``: (1 − 0/5) + (1 − 4/5) and (1 − 2/5) + (1 − 2/5)),
so a score within 2^-44 relative of the next higher one of its query
(:data:`~pdireval.runs.fusion_lists.FUSED_TIE_RTOL`) is made equal to it: one tie, with the
group's largest score, whatever rounding boundary the two fall on either side of (rounding
each score to 44 bits, as before, split such ties). Order-preserving; only gaps below 2^-44
relative (far below the gaps between distinct rank- and Borda-based sums) are merged. The
weighted sums add the systems in sorted order, in :func:`fuse` and :func:`pdireval.tune_fusion`
alike. RBC documents whose double underflows (φ^i below 1e-308: only for small φ and deep
lists) are ranked by ln RBC, computed by log-sum-exp.

The ranks are *not* trec_eval's order of the scores: trec_eval (and ``evaluate`` by default)
reads scores as C floats, where fused scores closer than 2^-24 relative tie and go by doc id
(RBC with φ = 0.8 is below float32's smallest number from position ~460; raw CombSUM over the
Robust 2003 runs has such ties from rank 6). ``evaluate`` warns when such a tie holds a judged
document; ``evaluate(fused, ..., order="rank")`` reads the fused ranking exactly, as does
``score_precision="float64"`` (except for the underflowed RBC documents).

The comparator sort is inherently sequential (a Python sort per query); every other method is
vectorised over all rows at once (per-segment reductions and ``np.bincount`` per document).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import canonical_run_keys
from pdireval.errors import SchemaError, options_by_name
from pdireval.io import as_frame
from pdireval.runs.fusion_comparators import fuse_comparator
from pdireval.runs.fusion_lists import (
    COMPARATOR_METHODS,
    FUSION_METHODS,
    MAX_FUSION_SCORE,
    NORMS,
    RANK_METHODS,
    SCORE_METHODS,
    FusionLists,
    aggregate,
    fusion_contributions,
    rbc_log_score,
    run_frame,
)
from pdireval.runs.fusion_options import (
    check_k,
    check_phi,
    check_weights,
    resolve_method,
    resolve_norm,
    select_systems,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pdireval.types import Columns, FusionMethod, FusionNorm

__all__ = ["fuse", "FUSION_METHODS", "NORMS", "fusion_contributions", "MAX_FUSION_SCORE"]


@options_by_name
def fuse(
    runs: pd.DataFrame,
    method: FusionMethod = "rrf",
    *,
    k: float = 60,
    phi: float = 0.8,
    norm: FusionNorm | None = "min-max",
    weights: Mapping[str, float] | Sequence[float] | None = None,
    qrels: pd.DataFrame | None = None,
    systems: Sequence[str] | None = None,
    name: str | None = None,
    columns: Columns = None,
) -> pd.DataFrame:
    """Fuse the systems of a run frame into one ranked list per query (metasearch).

    The methods of ranx's ``fuse`` — reciprocal rank fusion, ISR, log_ISR, BordaFuse and
    weighted BordaFuse, (weighted) CombSUM / CombMNZ, CombANZ, CombMAX / CombMIN / CombMED,
    rank-biased centroids, CondorcetFuse — with ranx's score normalisations, and Montague's
    upper bounds (naive, Pareto, majoritarian), which also read the qrels. The exact
    definitions are in the module docstring (:mod:`pdireval.runs.fusion`). For lists
    without score ties the fused scores of RRF, ISR, log_ISR, (weighted) BordaFuse, RBC and
    every Comb* method under every normalisation equal ``ranx.fuse`` on the same runs
    (checked in the tests), except that min-max normalisation of a list whose scores are all
    equal gives 1.0 (ranx: 0). CondorcetFuse is Montague & Aslam's (2002), not ranx's: a
    system that retrieved neither of two documents casts no vote on their order, and a tied
    vote leaves them equal (then doc-id order), so its ranking, unlike ranx's, does not depend
    on the order of the input lists. The result is a run frame, so it evaluates like any run
    (``pdireval.evaluate(fused, ...)``) and can be concatenated with the inputs.

    Parameters
    ----------
    runs
        Run frame (``system, query, doc`` and ``score`` and/or ``rank``) holding the systems
        to fuse. Each list is read in trec_eval order (score descending, ties by doc id
        descending; or by rank, ties by doc id ascending).
    method
        One of ``FUSION_METHODS`` (case-insensitive; ranx's names ``"wsum"``, ``"mnz"``,
        ``"bordafuse"``, ``"w_bordafuse"``, ... are accepted too). Default ``"rrf"``.
    k
        RRF's constant (Cormack et al. 2009 use 60).
    phi
        RBC's persistence φ in (0, 1).
    norm
        Score normalisation of the score-based methods (Comb*): ``"min-max"`` (default),
        ``"zmuv"`` (alias ``"z-score"``), ``"sum"``, ``"max"``, ``"rank"``, ``"borda"`` or
        None (raw scores). Rank-based methods read positions and ignore it.
    weights
        Per-system weights for ``"rrf"``, ``"rbc"``, ``"borda"``, ``"combsum"`` and
        ``"combmnz"``: a dict ``{system: weight}`` or a sequence in sorted system order, one
        per fused system; non-negative, not all zero. :func:`pdireval.tune_fusion` finds them on
        training queries.
    qrels
        Judgments for the upper bounds (naive, pareto, majoritarian); default: the run's
        ``label`` column. Ignored by the other methods.
    systems
        ``None`` (all systems of the run) or a list of system names to fuse.
    name
        System name of the fused run; default the method's name (e.g. ``"RRF"``).
    columns
        Optional mapping ``{canonical name: your column name}`` for ``runs``.

    Returns
    -------
    DataFrame
        A run frame: ``system`` (str, ``name``), ``query``, ``doc`` (str), ``score`` (float64:
        the fused score, neighbours within 2^-44 relative made one tie; ``m − position`` for
        the comparator methods, m = |U|), ``rank`` (int64, 1 = top). One row per document of
        U, queries in natural order, each by ``score`` descending at full precision, equal
        scores by doc id descending. ``evaluate`` compares scores at float32 by default
        (trec_eval 9), which can tie distinct fused scores (it warns when a tie holds a
        judged document); pass ``order="rank"`` to evaluate the fused ranking exactly.

    Raises
    ------
    SchemaError
        Unknown systems, Comb* on a run without scores, a bound without judgments.
    OptionError
        Unknown method or norm, weights with a method that takes none, bad k / phi / weights,
        weights that are all zero, ``systems=[]``.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=2, depth=10, rng=1)
    >>> fused = pdireval.fuse(run, "rrf", k=60)
    >>> fused["system"].iloc[0], list(fused.columns)
    ('RRF', ['system', 'query', 'doc', 'score', 'rank'])

    References
    ----------
    Shaw, J. A., Fox, E. A. (1994). Combination of multiple searches. TREC-2.
    Aslam, J. A., Montague, M. (2001). Models for metasearch. SIGIR.
    Montague, M., Aslam, J. A. (2002). Condorcet fusion for improved retrieval. CIKM.
    Montague, M. (2002). Metasearch: data fusion for document retrieval. PhD thesis, Dartmouth.
    Cormack, G. V., Clarke, C. L. A., Büttcher, S. (2009). Reciprocal rank fusion outperforms
    Condorcet and individual rank learning methods. SIGIR.
    Mourão, A., Martins, F., Magalhães, J. (2015). Multimodal medical information retrieval
    with unsupervised rank fusion. Computerized Medical Imaging and Graphics 39.
    Bailey, P., Moffat, A., Scholer, F., Thomas, P. (2017). Retrieval consistency in the
    presence of query variations. SIGIR.
    Bassani, E., Romelli, L. (2022). ranx.fuse: a Python library for metasearch. CIKM.
    """
    how = resolve_method(method)
    norm = resolve_norm(norm)
    k = check_k(k)
    phi = check_phi(phi)
    canonical, keys = select_systems(*canonical_run_keys(as_frame(runs, "run"), columns), systems)
    label = name or RANK_METHODS.get(how) or SCORE_METHODS.get(how) or COMPARATOR_METHODS[how]
    if how in COMPARATOR_METHODS:
        if weights is not None:
            check_weights(weights, [], how)
        return fuse_comparator(canonical, keys, how, qrels, label)
    if how in SCORE_METHODS and norm not in ("rank", "borda") and "score" not in canonical.columns:
        raise SchemaError(
            f"{SCORE_METHODS[how]} fuses scores, but the run has only a 'rank' column. Add "
            "a 'score' column, use norm='rank' or norm='borda', or a rank-based method "
            "(method='rrf')."
        )
    lists = FusionLists(canonical, keys)
    w = check_weights(weights, lists.systems, how)
    values, dense = fusion_contributions(lists, how, norm=norm, k=k, phi=phi)
    fused = aggregate(lists, how, values, dense, w)
    tiebreak = None
    if how == "rbc" and len(fused) and fused.min() < np.finfo(np.float64).tiny:
        # the doubles underflow: rank the documents whose score did by ln RBC
        tiebreak = np.where(fused < np.finfo(np.float64).tiny, rbc_log_score(lists, phi, w), 0.0)
    return run_frame(lists, fused, label, tiebreak)
