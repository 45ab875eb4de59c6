"""trec_eval's measures beyond the standard ones (the rest of its ``all_trec`` set), declared
(kernels in :mod:`.kernels`, tie closed forms in :mod:`.ties`, names in :mod:`.names`)."""

from __future__ import annotations

from pdireval.measures.params import (
    BINARY,
    GAINS,
    JUDGED_ONLY,
    NEG,
    TREC_GRADED,
    Param,
    persistence_check,
)
from pdireval.measures.registry import (
    MeasureDef,
    register,
    register_alias_pattern,
    register_exact_alias,
)
from pdireval.measures.standard import ties as standard_forms
from pdireval.measures.standard.kernels import average_precision, precision
from pdireval.measures.ties import ClosedForm, Groupwise, Invariant, Joint, maximum
from pdireval.measures.trec_eval import ties as forms
from pdireval.measures.trec_eval.kernels import (
    bin_g,
    eleven_point_average,
    g_measure,
    gm_bpref,
    gm_map,
    iprec_at_recall,
    ndcg_p,
    ndcg_rel,
    num_nonrel_judged_ret,
    num_q,
    r_ndcg,
    relative_precision,
    rprec_mult,
    set_ap,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
    trec_rbp,
    trec_rbp_residual,
    unjudged_at,
    utility,
)

_TREC = "trec_eval 9.0.8 (Buckley, NIST)"
#: how IPrec and 11pt_avg take ties=expected
MAXIMUM_TEXT = (
    "exact distribution of the maximum over independent groups (on condensed lists, "
    "judged_only=true: enumeration of the joint orderings)"
)


def _levels_check(value):
    if len(value) == 0 or any(not 0 <= x <= 1 for x in value):
        return "a non-empty vector of recall levels in [0, 1]"
    return None


def _beta_check(value):
    return None if value >= 0 else "beta >= 0"


LEVELS = Param(
    "levels",
    "vector",
    (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Recall levels averaged over (trec_eval's 11pt_avg parameters).",
    check=_levels_check,
)
BETA = Param(
    "beta",
    "float",
    1.0,
    "Weight of precision in (β+1)PR/(βP+R) (trec_eval set_F's parameter).",
    check=_beta_check,
)


def _version_check(value):
    return None if value in (9, 10) else "9 (trec_eval 9.0.8) or 10 (trec_eval 10.0)"


#: the trec_eval version whose rounding of x·R IPrec and 11pt_avg use
TREC_VERSION = Param(
    "trec_eval",
    "int",
    9,
    "trec_eval version whose conversion of a recall level x to c relevant documents is used: "
    "9 (9.0.8: ⌊x·R + 0.9⌋) or 10 (10.0: lround(x·R)); evaluate(trec_eval='10') sets 10.",
    check=_version_check,
)
RELATIVE = Param(
    "relative",
    "bool",
    False,
    "Divide by min(retrieved, R), the best possible set precision (ir_measures' "
    "SetP(relative=True) = SetRelP).",
)

register(
    MeasureDef(
        "IPrec",
        kernel=iprec_at_recall,
        description=(
            "Interpolated precision at recall level x (the cut-off, 0 <= x <= 1): max Prec(i) over "
            "ranks i at or below the ⌊x·R+0.9⌋-th relevant document."
        ),
        params=BINARY + (TREC_VERSION,),
        cutoff="real",
        citation=_TREC,
        trec_eval="iprec_at_recall_x",
        aliases=("iprec_at_recall",),
        ties=ClosedForm(maximum.iprec, otherwise=Joint(by="binary"), text=MAXIMUM_TEXT),
    )
)
register(
    MeasureDef(
        "11pt_avg",
        kernel=eleven_point_average,
        description="Mean interpolated precision over recall levels: (1/|levels|)·Σ_x IPrec@x.",
        params=(LEVELS,) + BINARY + (TREC_VERSION,),
        cutoff="none",
        citation="Salton & McGill 1983; " + _TREC,
        trec_eval="11pt_avg",
        aliases=("11-pt_avg", "iprec11"),
        ties=ClosedForm(maximum.eleven_point, otherwise=Joint(by="binary"), text=MAXIMUM_TEXT),
    )
)
register(
    MeasureDef(
        "Rprec_mult",
        kernel=rprec_mult,
        description=(
            "Precision at c = ⌊x·R+0.9⌋ documents, x the cut-off (a multiple of R): |relevant in "
            "top c| / c."
        ),
        params=BINARY,
        cutoff="real",
        citation=_TREC,
        trec_eval="Rprec_mult_x",
        ties=ClosedForm(forms.rprec_mult, otherwise=Groupwise(by="binary")),
    )
)
register(
    MeasureDef(
        "relative_P",
        kernel=relative_precision,
        description="Relative precision at k: |relevant in top k| / min(k, R).",
        params=BINARY,
        cutoff="required",
        citation=_TREC,
        trec_eval="relative_P_k",
        aliases=("relP", "relative_precision"),
        ties=ClosedForm(forms.relative_precision, otherwise=Groupwise(by="binary")),
    )
)
register(
    MeasureDef(
        "SetP",
        kernel=set_precision,
        description="Set precision: relevant retrieved / retrieved.",
        params=(RELATIVE,) + BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="set_P",
        aliases=("set_p",),
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "SetR",
        kernel=set_recall,
        description="Set recall: relevant retrieved / R.",
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="set_recall",
        aliases=("set_recall",),
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "SetF",
        kernel=set_f,
        description="Set F: (β+1)·P·R / (β·P + R) of SetP and SetR.",
        params=(BETA,) + BINARY,
        cutoff="none",
        citation="van Rijsbergen 1979; " + _TREC,
        trec_eval="set_F",
        aliases=("set_f",),
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "SetAP",
        kernel=set_ap,
        description="Set AP: relevant retrieved² / (retrieved · R).",
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="set_map",
        aliases=("set_map",),
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "SetRelP",
        kernel=set_relative_precision,
        description="Set relative precision: relevant retrieved / min(retrieved, R).",
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="set_relative_P",
        aliases=("set_relative_p",),
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "utility",
        kernel=utility,
        description=(
            "Linear set utility = a·RR + b·(L−RR) + c·(R−RR) + d·(N+RR−L−R) (RR relevant "
            "retrieved, L retrieved, N num_docs)."
        ),
        params=(
            Param("a", "float", 1.0, "Gain per relevant retrieved document."),
            Param("b", "float", -1.0, "Gain per non-relevant retrieved document."),
            Param("c", "float", 0.0, "Gain per relevant document not retrieved."),
            Param("d", "float", 0.0, "Gain per non-relevant document not retrieved."),
            Param(
                "num_docs",
                "float",
                0.0,
                "Number of documents in the collection (trec_eval -N).",
            ),
        )
        + BINARY,
        cutoff="none",
        citation="Lewis 1995; " + _TREC,
        trec_eval="utility",
        extra={"trec_eval_positional": ("a", "b", "c", "d")},
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "gm_map",
        kernel=gm_map,
        description="Per query ln(max(AP, 1e-5)); summary exp(mean): the geometric mean of AP.",
        params=BINARY,
        cutoff="none",
        empty="ln(1e-5)",
        citation="Robertson 2006; " + _TREC,
        trec_eval="gm_map",
        aliases=("gmap",),
        summary="gm",
        ties=Joint(by="binary"),
    )
)
register(
    MeasureDef(
        "gm_bpref",
        kernel=gm_bpref,
        description=(
            "Per query ln(max(bpref, 1e-5)); summary exp(mean): the geometric mean of bpref."
        ),
        params=BINARY,
        cutoff="none",
        empty="ln(1e-5)",
        citation="Buckley & Voorhees 2004; " + _TREC,
        trec_eval="gm_bpref",
        summary="gm",
        ties=Joint(),
    )
)
register(
    MeasureDef(
        "NumQ",
        kernel=num_q,
        description="NumQ = 1 per evaluated query; summary: the sum (the number of queries).",
        params=(),
        cutoff="none",
        empty="1",
        citation=_TREC,
        trec_eval="num_q",
        aliases=("num_q",),
        summary="sum",
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "NumNonRelJudgedRet",
        kernel=num_nonrel_judged_ret,
        description="Judged non-relevant documents retrieved: |retrieved d with a label < rel|.",
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="num_nonrel_judged_ret",
        aliases=("num_nonrel_judged_ret",),
        summary="sum",
        ties=Invariant(),
    )
)
register(
    MeasureDef(
        "binG",
        kernel=bin_g,
        description=(
            "Binary G: (1/R)·Σ_{relevant retrieved d} 1/log2(2 + non-relevant documents above d)."
        ),
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="binG",
        ties=ClosedForm(forms.bin_g),
    )
)
register(
    MeasureDef(
        "G",
        kernel=g_measure,
        description="trec_eval's normalised gain: Σ gain_i / log2(2 + C_i − S_i) / Σ ideal gains.",
        params=TREC_GRADED,
        cutoff="none",
        citation=_TREC,
        trec_eval="G",
        ties=Groupwise(),
    )
)
register(
    MeasureDef(
        "ndcg_rel",
        kernel=ndcg_rel,
        description=(
            "nDCG averaged over the n⁺ positive-gain documents: (1/n⁺)·[Σ_{retrieved d} "
            "DCG@r_d/IDCG@r_d + (unretrieved)·DCG/IDCG]."
        ),
        params=TREC_GRADED,
        cutoff="none",
        citation="Järvelin & Kekäläinen 2002; " + _TREC,
        trec_eval="ndcg_rel",
        ties=ClosedForm(
            forms.ndcg_rel,
            note="(with a negative gain: enumeration of the joint orderings)",
        ),
    )
)
register(
    MeasureDef(
        "Rndcg",
        kernel=r_ndcg,
        description=(
            "nDCG averaged at the R-levels b (depths where the ideal gain changes, and the list "
            "end): mean_b DCG@b/IDCG@b."
        ),
        params=TREC_GRADED,
        cutoff="none",
        citation="Järvelin & Kekäläinen 2002; " + _TREC,
        trec_eval="Rndcg",
        ties=ClosedForm(forms.r_ndcg, otherwise=Groupwise(whole_list=True)),
    )
)
register(
    MeasureDef(
        "ndcg_p",
        kernel=ndcg_p,
        description=(
            "nDCG with trec_eval gain levels and the base-2 discount of Järvelin & Kekäläinen: Σ "
            "gain_i / max(1, log2 i) / the same over the ideal ranking; 0 unless a relevant "
            "document is retrieved."
        ),
        params=TREC_GRADED,
        cutoff="none",
        citation="Järvelin & Kekäläinen 2002; trec_eval 9.0.8 m_ndcg_p.c (Buckley, NIST; Soboroff)",
        trec_eval="ndcg_p",
        ties=ClosedForm(forms.ndcg_p, otherwise=Groupwise()),
    )
)
register_alias_pattern(r"iprec_at_recall_([0-9]*\.?[0-9]+)", "IPrec")
register_alias_pattern(r"Rprec_mult_([0-9]*\.?[0-9]+)", "Rprec_mult")
register_alias_pattern(r"relative_P_(\d+)", "relative_P")


# --------------------------------------------------------------------------- trec_eval 10.0

_TREC10 = "trec_eval 10.0 (Buckley, Soboroff, NIST)"
#: the measures trec_eval 9.0.8 does not have (evaluate(trec_eval="9.0.8") refuses them)
SINCE_10 = {"trec_eval_since": "10.0"}
#: the measures trec_eval averages over the judgment groups of a query (qrels_jg)
AVERAGE_JUDGES = {"judges": "mean"}


P_TREC = Param(
    "p",
    "float",
    0.9,
    "Persistence: probability of moving on to the next rank (trec_eval's default 0.9).",
    check=persistence_check,
)

register(
    MeasureDef(
        "TrecRBP",
        kernel=trec_rbp,
        description=(
            "trec_eval 10.0's graded rbp: (1 − p)·Σ_i g_i·p^(i−1), gains rescaled per query to "
            "[0, 1] when one lies outside."
        ),
        params=(P_TREC, GAINS, JUDGED_ONLY, NEG),
        cutoff="none",
        citation="Moffat & Zobel 2008; " + _TREC10,
        trec_eval="rbp",
        extra=SINCE_10,
        ties=ClosedForm(forms.trec_rbp),
    )
)
register(
    MeasureDef(
        "TrecRBPResidual",
        kernel=trec_rbp_residual,
        description=(
            "trec_eval 10.0's rbp_resid: 1 − (1 − p)·Σ_{judged i} p^(i−1) when the list holds "
            "an unjudged document, else 0."
        ),
        params=(P_TREC, NEG),
        cutoff="none",
        citation="Moffat & Zobel 2008; " + _TREC10,
        trec_eval="rbp_resid",
        extra=SINCE_10,
        ties=ClosedForm(forms.trec_rbp_residual),
    )
)
register(
    MeasureDef(
        "Unjudged",
        kernel=unjudged_at,
        description="Unjudged documents in the top k / k (a short list padded with judged ones).",
        params=(NEG,),
        cutoff="required",
        citation=_TREC10,
        trec_eval="unj_k",
        aliases=("unj",),
        extra={**SINCE_10, "trec_eval_defaults": (5, 10, 20)},
        ties=ClosedForm(forms.unjudged_at),
    )
)
register(
    MeasureDef(
        "AP_avgjg",
        kernel=average_precision,
        description=(
            "AP averaged over the judges (judgment groups) of the query: (1/|J_q|)·Σ_j AP_j "
            "(qrels with a judge column)."
        ),
        params=BINARY,
        cutoff="none",
        citation=_TREC,
        trec_eval="map_avgjg",
        aliases=("map_avgjg",),
        extra=AVERAGE_JUDGES,
        ties=ClosedForm(standard_forms.ap),
    )
)
register(
    MeasureDef(
        "P_avgjg",
        kernel=precision,
        description="P@k averaged over the judges (judgment groups): (1/|J_q|)·Σ_j P_j@k.",
        params=BINARY,
        cutoff="required",
        citation=_TREC,
        trec_eval="P_avgjg_k",
        extra=AVERAGE_JUDGES,
        ties=ClosedForm(standard_forms.p),
    )
)
register(
    MeasureDef(
        "Rprec_mult_avgjg",
        kernel=rprec_mult,
        description=(
            "Rprec_mult@x averaged over the judges (judgment groups) of the query: "
            "(1/|J_q|)·Σ_j Rprec_mult_j@x."
        ),
        params=BINARY,
        cutoff="real",
        citation=_TREC,
        trec_eval="Rprec_mult_avgjg_x",
        extra=AVERAGE_JUDGES,
        ties=ClosedForm(forms.rprec_mult, otherwise=Groupwise(by="binary")),
    )
)
register_exact_alias("rbp", "TrecRBP")
register_exact_alias("rbp_resid", "TrecRBPResidual")
register_alias_pattern(r"unj_(\d+)", "Unjudged")
register_alias_pattern(r"P_avgjg_(\d+)", "P_avgjg")
register_alias_pattern(r"Rprec_mult_avgjg_([0-9]*\.?[0-9]+)", "Rprec_mult_avgjg")
