"""The intent-aware (diversity) measures of ndeval, declared (kernels in :mod:`.kernels`, the
closed forms of ``ties="expected"`` in :mod:`.ties`)."""

from __future__ import annotations

from pdireval.measures.diversity import ties as forms
from pdireval.measures.diversity.kernels import (
    alpha_dcg,
    alpha_ndcg,
    ap_ia,
    err_ia,
    nerr_ia,
    nnrbp,
    nrbp,
    p_ia,
    st_recall,
)
from pdireval.measures.params import Param
from pdireval.measures.registry import MeasureDef, register, register_alias
from pdireval.measures.ties import ClosedForm, Groupwise

#: a diversity measure reads a document's subtopics, not only its label: every judged document
#: is its own type when arrangements are enumerated
BY_DOC = Groupwise(by="doc")
#: what evaluate() reads from a measure's declaration: it needs the qrels' subtopics (an
#: ir_datasets ``iteration`` column is then the subtopic, pdireval.core.iteration)
READS_SUBTOPICS = {"reads": "subtopics"}


def _unit(value):
    return None if 0 <= value <= 1 else "a number in [0, 1]"


def _open_unit(value):
    return None if 0 < value < 1 else "a number 0 < value < 1"


REL = Param(
    "rel",
    "float",
    1.0,
    "Minimum label for a document to count as relevant to a subtopic.",
)
ALPHA = Param(
    "alpha",
    "float",
    0.5,
    "Redundancy penalty α: each earlier document on a subtopic multiplies its gain by (1 − α).",
    check=_unit,
)
BETA = Param(
    "beta",
    "float",
    0.5,
    "Patience β of NRBP (the rank-biased decay).",
    check=_open_unit,
)
JUDGED = Param(
    "judged_only",
    "bool",
    False,
    "Drop documents absent from the qrels before computing (condensed list).",
)
_NDEVAL = "ndeval (TREC Web track, Clarke)"

register(
    MeasureDef(
        "alpha_DCG",
        kernel=alpha_dcg,
        description=(
            "alpha-DCG@k = Σ_{i<=k} Σ_j rel_ij·(1 − α)^(c_ij) / log2(1 + i), normalised by "
            "ndeval's 'ideal ideal' list."
        ),
        params=(REL, ALPHA, JUDGED),
        cutoff="required",
        citation="Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon 2008; "
        + _NDEVAL,
        ties=ClosedForm(forms.alpha_dcg, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "alpha_nDCG",
        kernel=alpha_ndcg,
        description=(
            "alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k of ndeval's greedy ideal ranking "
            "(novelty-biased DCG)."
        ),
        params=(REL, ALPHA, JUDGED),
        cutoff="required",
        citation="Clarke et al. 2008; " + _NDEVAL,
        ties=ClosedForm(forms.alpha_ndcg, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "ERR_IA",
        kernel=err_ia,
        description=(
            "Intent-aware ERR@k = Σ_j ERR_j@k / A, normalised by ndeval's 'ideal ideal' list; "
            "alpha is ndeval's -alpha (a relevant document satisfies with probability α)."
        ),
        params=(REL, ALPHA, JUDGED),
        cutoff="required",
        citation=(
            "Chapelle, Metzler, Zhang & Grinspan 2009; Agrawal, Gollapudi, Halverson & Ieong 2009; "
        )
        + _NDEVAL,
        ties=ClosedForm(forms.err_ia, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "nERR_IA",
        kernel=nerr_ia,
        description=(
            "nERR-IA@k = ERR-IA@k / ERR-IA@k of the greedy ideal ranking (alpha as ERR_IA)."
        ),
        params=(REL, ALPHA, JUDGED),
        cutoff="required",
        citation="Chapelle et al. 2009; " + _NDEVAL,
        ties=ClosedForm(forms.nerr_ia, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "NRBP",
        kernel=nrbp,
        description="Novelty- and rank-biased precision: (1 − (1 − α)β)/A · Σ_i s_i·β^(i−1).",
        params=(REL, ALPHA, BETA),
        cutoff="none",
        citation="Clarke, Kolla & Vechtomova 2009; " + _NDEVAL,
        ties=ClosedForm(forms.nrbp, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "nNRBP",
        kernel=nnrbp,
        description="nNRBP = NRBP / NRBP of the greedy ideal ranking.",
        params=(REL, ALPHA, BETA),
        cutoff="none",
        citation="Clarke, Kolla & Vechtomova 2009; " + _NDEVAL,
        ties=ClosedForm(forms.nnrbp, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "P_IA",
        kernel=p_ia,
        description="Intent-aware precision@k = Σ_{i<=k} Σ_j rel_ij / (k·A).",
        params=(REL, JUDGED),
        cutoff="required",
        citation="Agrawal, Gollapudi, Halverson & Ieong 2009; " + _NDEVAL,
        ties=ClosedForm(forms.p_ia, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "AP_IA",
        kernel=ap_ia,
        description="Intent-aware AP (ndeval MAP-IA): (1/A)·Σ_j Σ_{i: rel_ij} (c_ij + 1)/i / R_j.",
        params=(REL, JUDGED),
        cutoff="none",
        citation="Agrawal et al. 2009; " + _NDEVAL,
        aliases=("MAP_IA", "MAP-IA"),
        ties=ClosedForm(forms.ap_ia, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register(
    MeasureDef(
        "StRecall",
        kernel=st_recall,
        description=(
            "Subtopic recall: |subtopics covered by the top k| / A (A the query's subtopics)."
        ),
        params=(REL,),
        cutoff="required",
        citation="Zhai, Cohen & Lafferty 2003; " + _NDEVAL,
        aliases=("strec",),
        ties=ClosedForm(forms.st_recall, otherwise=BY_DOC),
        extra=READS_SUBTOPICS,
    )
)
register_alias("alpha-nDCG", "alpha_nDCG")
register_alias("alpha-DCG", "alpha_DCG")
register_alias("ERR-IA", "ERR_IA")
register_alias("nERR-IA", "nERR_IA")
register_alias("P-IA", "P_IA")
