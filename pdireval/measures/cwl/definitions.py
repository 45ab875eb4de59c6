"""The C/W/L measures of cwl_eval, declared (kernels in :mod:`.kernels`, the closed forms of
``ties="expected"`` in :mod:`.ties`)."""

from __future__ import annotations

from pdireval.measures.cwl import ties as forms
from pdireval.measures.cwl.kernels import bpm, insq, inst, nerr8, nerr9, nerr10, nerr11, sdcg
from pdireval.measures.params import Param, persistence_check
from pdireval.measures.registry import MeasureDef, register
from pdireval.measures.ties import ClosedForm, Groupwise, Joint

#: documents with equal cwl_eval gains are alike; the enumeration of the joint orderings
JOINT = Joint(by=forms.gain_reading)
#: NERR8-11's closed form covers lists whose value moves with the first full gain's slot only
FIRST_GAIN_NOTE = (
    "when a list's value moves with the slot of its first full gain only (otherwise: "
    "enumeration of the joint orderings)"
)
#: INST and BPM: every placement of the positive gains, within a limit
PLACEMENT_TEXT = (
    "every placement of the positive gains, when each tie group that can move holds one and a "
    "list has at most 5040 placements (otherwise: enumeration of the joint orderings)"
)


def _positive(value):
    return None if value > 0 else "a positive number"


T_GOAL = Param(
    "T",
    "float",
    1.0,
    "Desired total gain T (in gain units, 1 = one fully relevant document).",
    check=_positive,
)
T_BPM = Param(
    "T",
    "float",
    1.0,
    "Desired total gain T (the user stops once the cumulative gain reaches T).",
)
MIN_REL = Param(
    "min_rel",
    "float",
    0.0,
    "Label mapped to gain 0 (lower labels are clipped to it).",
)
MAX_REL = Param(
    "max_rel",
    "float",
    None,
    "Label mapped to gain 1 (higher labels are clipped to it); default the largest label in "
    "the qrels. ir_measures requires it.",
)
GAINS = (MIN_REL, MAX_REL)
_CWL = "Azzopardi, Thomas & Moffat 2019 (cwl_eval)"

register(
    MeasureDef(
        "INSQ",
        kernel=insq,
        description=(
            "C/W/L INSQ: EU = Σ_i W_i·g_i with W_i ∝ (2T/(i+2T−1))², C_i = ((i+2T−1)/(i+2T))², "
            "gain-independent."
        ),
        params=(T_GOAL,) + GAINS,
        cutoff="none",
        citation="Moffat, Scholer & Thomas 2012; " + _CWL,
        ties=ClosedForm(forms.insq, otherwise=Groupwise(by=forms.gain_reading)),
    )
)
register(
    MeasureDef(
        "INST",
        kernel=inst,
        description=(
            "C/W/L INST: EU = Σ_i W_i·g_i with C_i = ((a_i − 1)/a_i)², a_i = i + 2T − G_i (G_i the "
            "gain up to rank i): INSQ whose patience falls as gain T is met."
        ),
        params=(T_GOAL,) + GAINS,
        cutoff="none",
        citation="Moffat, Bailey, Scholer & Thomas 2015; " + _CWL,
        ties=ClosedForm(forms.inst, otherwise=JOINT, text=PLACEMENT_TEXT),
    )
)
register(
    MeasureDef(
        "BPM",
        kernel=bpm,
        description=(
            "Bejeweled Player Model (static): Σ_{i<=D} g_i / D, D = min(K, L, the first rank where "
            "the cumulative gain reaches T)."
        ),
        params=(T_BPM,) + GAINS,
        cutoff="required",
        citation="Zhang, Liu, Li, Zhang, Xu & Ma 2017; " + _CWL,
        ties=ClosedForm(forms.bpm, otherwise=JOINT, text=PLACEMENT_TEXT),
    )
)
register(
    MeasureDef(
        "SDCG",
        kernel=sdcg,
        description=(
            "Scaled DCG@k: Σ_{i<=k} g_i/log2(i+1) / Σ_{i<=k} 1/log2(i+1), DCG@k over that of k "
            "fully relevant documents."
        ),
        params=GAINS,
        cutoff="required",
        citation="Järvelin & Kekäläinen 2002; " + _CWL,
        ties=ClosedForm(forms.sdcg, otherwise=Groupwise(by=forms.gain_reading)),
    )
)
register(
    MeasureDef(
        "NERR8",
        kernel=nerr8,
        description=(
            "Not (but nearly) ERR, eq. 8: C_i = 1 − g_i for i < k, then 0; EU = Σ_i P_i·g_i / "
            "Σ_{i<=k} P_i, P_i = Π_{j<i} C_j."
        ),
        params=GAINS,
        cutoff="required",
        citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL,
        ties=ClosedForm(forms.nerr8, otherwise=JOINT, note=FIRST_GAIN_NOTE),
    )
)
register(
    MeasureDef(
        "NERR9",
        kernel=nerr9,
        description=(
            "Not (but nearly) ERR, eq. 9: gain-based stopping and 1/i discount, truncated at k."
        ),
        params=GAINS,
        cutoff="required",
        citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL,
        ties=ClosedForm(forms.nerr9, otherwise=JOINT, note=FIRST_GAIN_NOTE),
    )
)
register(
    MeasureDef(
        "NERR10",
        kernel=nerr10,
        description=(
            "Not (but nearly) ERR, eq. 10: C_i = p·(1 − g_i), P_i = p^(i−1)·Π_{j<i}(1 − g_j): "
            "gain-based stopping with RBP patience p."
        ),
        params=(
            Param(
                "p",
                "float",
                0.9,
                "Persistence: probability of moving on when the document gave no gain.",
                check=persistence_check,
            ),
        )
        + GAINS,
        cutoff="none",
        citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL,
        ties=ClosedForm(forms.nerr10, otherwise=JOINT, note=FIRST_GAIN_NOTE),
    )
)
register(
    MeasureDef(
        "NERR11",
        kernel=nerr11,
        description=(
            "Not (but nearly) ERR, eq. 11: C_i = ((i+2T−1)/(i+2T))²·(1 − g_i): INSQ's continuation "
            "with ERR's stopping."
        ),
        params=(T_GOAL,) + GAINS,
        cutoff="none",
        citation="Azzopardi, Mackenzie & Moffat 2021; " + _CWL,
        ties=ClosedForm(forms.nerr11, otherwise=JOINT, note=FIRST_GAIN_NOTE),
    )
)
