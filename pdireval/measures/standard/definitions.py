"""The standard measures, declared: trec_eval's, ir_measures' and the seed papers' per-query
measures (kernels in :mod:`.kernels`, their tie closed forms in :mod:`.ties`)."""

from __future__ import annotations

import numpy as np

from pdireval.measures.params import (
    BINARY,
    GAINS,
    GRADED,
    JUDGED_ONLY,
    MAX_GRADE,
    NEG,
    P_PARAM,
    REL,
    VARIANT,
    Param,
)
from pdireval.measures.registry import (
    Bounded,
    MeasureDef,
    register,
    register_alias,
    register_alias_pattern,
)
from pdireval.measures.standard import ties as forms
from pdireval.measures.standard.kernels import (
    average_precision,
    bpref,
    dcg,
    err,
    f_measure,
    graded_ap,
    inferred_ap,
    judged,
    ndcg,
    num_rel_ret,
    num_relevant,
    num_ret,
    precision,
    r_precision,
    rbp,
    rbp_residual,
    recall,
    reciprocal_rank,
    success,
    sum_precision,
)
from pdireval.measures.standard.ties import STOPPERS_NOTE
from pdireval.measures.ties import ByCutoff, ClosedForm, Groupwise, Invariant

_TREC = "trec_eval (Buckley, NIST)"


def _probs_check(value):
    if value is None:
        return None
    arr = np.asarray(value, dtype=float)
    if np.any(arr < 0) or abs(arr.sum() - 1) > 1e-9:
        return "non-negative probabilities summing to 1"
    return None


def _positive(b):
    return None if b > 0 else "a number > 0"


register(
    MeasureDef(
        "P",
        kernel=precision,
        description="Precision at k: |relevant in the top k| / k.",
        params=BINARY,
        cutoff="required",
        citation=_TREC,
        trec_eval="P_k",
        aliases=("precision",),
        ties=ClosedForm(forms.p),
        bounded=Bounded(form="precision", exact=True),
    )
)
register(
    MeasureDef(
        "R",
        kernel=recall,
        description="Recall: |relevant in the top k| / R (R = 0 -> 0).",
        params=BINARY,
        citation=_TREC,
        trec_eval="recall_k",
        aliases=("recall",),
        ties=ClosedForm(forms.r),
        bounded=Bounded(form="recall", exact=True),
    )
)
register(
    MeasureDef(
        "AP",
        kernel=average_precision,
        description=(
            "Average precision: (1/R)·Σ_{relevant d at rank i <= k} Prec(i); @k = trec_eval "
            "map_cut_k (divides by R)."
        ),
        params=BINARY,
        citation="Harman 1993; " + _TREC,
        trec_eval="map, map_cut_k",
        aliases=("map",),
        ties=ClosedForm(forms.ap),
        bounded=Bounded(form="sp", exact=True, paper=True, base="SP"),
    )
)
register(
    MeasureDef(
        "SP",
        kernel=sum_precision,
        description=(
            "Sum of precision at relevant ranks: Σ_{relevant d at rank i <= k} Prec(i) "
            "(un-normalised AP)."
        ),
        params=BINARY,
        citation="Karmaker & Feng 2022, eq. 3",
        ties=ClosedForm(forms.sp),
        bounded=Bounded(form="sp", exact=True, paper=True),
    )
)
register(
    MeasureDef(
        "RR",
        kernel=reciprocal_rank,
        description=(
            "Reciprocal rank: 1 / rank of the first relevant document (0 if none in the top k)."
        ),
        params=BINARY,
        citation=_TREC,
        trec_eval="recip_rank",
        aliases=("mrr", "recip_rank"),
        ties=ClosedForm(forms.rr),
        bounded=True,
    )
)
register(
    MeasureDef(
        "Rprec",
        kernel=r_precision,
        description="R-precision: |relevant in the top R| / R.",
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="Rprec",
        aliases=("r-prec", "rprecision"),
        ties=ClosedForm(forms.rprec),
        bounded=True,
    )
)
register(
    MeasureDef(
        "Success",
        kernel=success,
        description="Success@k = 1 if |relevant in the top k| > 0, else 0.",
        params=BINARY,
        cutoff="required",
        citation=_TREC,
        trec_eval="success_k",
        ties=ClosedForm(forms.success),
        bounded=True,
    )
)
register(
    MeasureDef(
        "F",
        kernel=f_measure,
        description=(
            "F-measure: (1 + β²)·P·R / (β²·P + R), P = |relevant in the top k| / k, R = |relevant "
            "in the top k| / R."
        ),
        params=(
            Param(
                "beta",
                "float",
                1.0,
                "Weight of recall: beta = 1 is F1, the harmonic mean.",
                check=_positive,
            ),
        )
        + BINARY,
        citation="van Rijsbergen 1979; ranx f1 (Bassani 2022)",
        aliases=("f1",),
        ties=ByCutoff(
            without=Invariant(),
            with_cutoff=ClosedForm(forms.f_measure, otherwise=Groupwise(by="binary")),
        ),
    )
)
register(
    MeasureDef(
        "NumRet",
        kernel=num_ret,
        description="Number of documents retrieved: min(L, k).",
        params=(JUDGED_ONLY, NEG),
        empty="0",
        citation=_TREC,
        trec_eval="num_ret",
        aliases=("num_ret",),
        summary="sum",
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "NumRel",
        kernel=num_relevant,
        description="R = |judged documents with label >= rel|.",
        params=(REL, NEG),
        cutoff="none",
        empty="R",
        citation=_TREC,
        trec_eval="num_rel",
        aliases=("num_rel",),
        summary="sum",
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "NumRelRet",
        kernel=num_rel_ret,
        description="Number of relevant documents retrieved: |relevant in the top k|.",
        params=BINARY,
        citation=_TREC,
        trec_eval="num_rel_ret",
        aliases=("num_rel_ret",),
        summary="sum",
        ties=ClosedForm(forms.num_rel_ret),
    )
)
register(
    MeasureDef(
        "Judged",
        kernel=judged,
        description="Fraction of the top k that is judged: |judged in the top k| / min(L, k).",
        params=(NEG,),
        citation="ir_measures (MacAvaney et al. 2022)",
        ties=ClosedForm(forms.judged),
    )
)
register(
    MeasureDef(
        "Bpref",
        kernel=bpref,
        description=(
            "Binary preference: (1/R)·Σ_{relevant retrieved r} [1 − min(n_r, R)/min(N, R)], n_r "
            "judged non-relevant above r (2005 trec_eval form)."
        ),
        params=BINARY + (VARIANT,),
        citation="Buckley & Voorhees 2004; " + _TREC,
        trec_eval="bpref",
        aliases=("bpref",),
        ties=ClosedForm(
            forms.bpref,
            otherwise=Groupwise(),
            note="(with a cut-off: enumeration, group by group)",
        ),
    )
)
register(
    MeasureDef(
        "infAP",
        kernel=inferred_ap,
        description=(
            "Inferred AP: (1/R)·Σ_{relevant d at rank j+1} [1/(j+1) + j/(j+1)·(pooled "
            "above/j)·(r+ε)/(r+nn+2ε)] (trec_eval form)."
        ),
        params=(REL, NEG),
        cutoff="none",
        citation="Yilmaz & Aslam 2006; " + _TREC,
        trec_eval="infAP",
        aliases=("infap",),
        ties=ClosedForm(
            forms.inferred_ap,
            otherwise=Groupwise(),
            note="(past 5,000,000 terms in a call: enumeration, group by group)",
        ),
    )
)
register(
    MeasureDef(
        "DCG",
        kernel=dcg,
        description="Discounted cumulative gain: Σ_{i<=k} gain(label_i)·w_i.",
        params=GRADED,
        citation="Järvelin & Kekäläinen 2002",
        ties=ClosedForm(forms.dcg),
        bounded=Bounded(form="dcg", exact=True, paper=True),
    )
)
register(
    MeasureDef(
        "nDCG",
        kernel=ndcg,
        description="Normalised DCG: DCG@k / IDCG@k, ideal = judged pool sorted by gain.",
        params=GRADED + (GAINS,),
        citation="Järvelin & Kekäläinen 2002; " + _TREC,
        trec_eval="ndcg, ndcg_cut_k",
        aliases=("ndcg",),
        ties=ClosedForm(forms.ndcg, otherwise=Groupwise()),
        bounded=Bounded(form="dcg", exact=True, paper=True, base="DCG"),
    )
)
register(
    MeasureDef(
        "ERR",
        kernel=err,
        description=(
            "Expected reciprocal rank: Σ_i (1/i)·R_i·Π_{j<i}(1 − R_j), R = (2^g − 1)/2^g_max."
        ),
        params=(
            MAX_GRADE,
            JUDGED_ONLY,
            NEG,
        ),
        citation="Chapelle, Metzler, Zhang & Grinspan 2009",
        ties=ClosedForm(forms.err, otherwise=Groupwise(), note=STOPPERS_NOTE),
        bounded=True,
    )
)
register(
    MeasureDef(
        "RBP",
        kernel=rbp,
        description="Rank-biased precision: (1 − p)·Σ_i rel_i·p^(i−1).",
        params=(P_PARAM,) + BINARY,
        citation="Moffat & Zobel 2008",
        ties=ClosedForm(forms.rbp),
        bounded=True,
    )
)
register(
    MeasureDef(
        "RBPResidual",
        kernel=rbp_residual,
        description=(
            "Residual of RBP: 1 − (1 − p)·Σ_{judged i} p^(i−1), the weight of unjudged and "
            "unretrieved ranks."
        ),
        params=(P_PARAM, JUDGED_ONLY, NEG),
        empty="1",
        citation="Moffat & Zobel 2008",
        ties=ClosedForm(forms.rbp_residual),
    )
)
register(
    MeasureDef(
        "GAP",
        kernel=graded_ap,
        description=(
            "Graded AP: Σ_{relevant n} (1/n)·Σ_{m<=n relevant} G(min(i_m, i_n)) / Σ_{judged d} "
            "G(grade d)."
        ),
        params=(
            Param(
                "probs",
                "vector",
                None,
                "Threshold probabilities g_1..g_C over relevant grades (sum 1); default uniform.",
                check=_probs_check,
            ),
            JUDGED_ONLY,
            NEG,
        ),
        citation="Robertson, Kanoulas & Yilmaz 2010",
        ties=ClosedForm(forms.graded_ap, otherwise=Groupwise()),
        bounded=True,
    )
)
register_alias("ndcg_cut", "nDCG")
register_alias_pattern(r"P_(\d+)", "P")
register_alias_pattern(r"recall_(\d+)", "R")
register_alias_pattern(r"map_cut_(\d+)", "AP")
register_alias_pattern(r"ndcg_cut_(\d+)", "nDCG")
register_alias_pattern(r"success_(\d+)", "Success")
register_alias_pattern(r"ERR_(\d+)", "ERR")
register_alias_pattern(r"err_cut_(\d+)", "ERR")
register_alias("mrr", "RR")
register_alias("hits", "NumRelRet")
register_alias("hit_rate", "Success")
register_alias("r-precision", "Rprec")
register_alias("ndcg_burges", "nDCG", {"gain": "exp"})
register_alias("dcg_burges", "DCG", {"gain": "exp"})
register_alias("bpref", "Bpref")
register_alias("rbp_residual", "RBPResidual")
