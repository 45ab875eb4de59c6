"""Sakai's measures, declared: the Q-measure and normalised ERR (kernels in :mod:`.kernels`;
bpref-10 is ``Bpref(variant=10R)``, declared with Bpref)."""

from __future__ import annotations

from pdireval.measures.params import GAIN, JUDGED_ONLY, MAX_GRADE, NEG, REL, Param
from pdireval.measures.registry import MeasureDef, register
from pdireval.measures.sakai import ties as forms
from pdireval.measures.sakai.kernels import normalised_err, q_measure
from pdireval.measures.standard.ties import STOPPERS_NOTE
from pdireval.measures.ties import ClosedForm, Groupwise


def _beta_check(b):
    return None if b >= 0 else "β >= 0"


BETA = Param(
    "beta",
    "float",
    1.0,
    "Persistence β of the blended ratio (β = 0 gives AP).",
    check=_beta_check,
)

register(
    MeasureDef(
        "Q",
        kernel=q_measure,
        description=(
            "Q-measure: (1/R)·Σ_{relevant d at rank r} BR(r), BR(r) = (β·cg(r) + C(r)) / (β·cg*(r) "
            "+ r); Q@l: ranks r <= l, divided by min(l, R)."
        ),
        params=(BETA, GAIN, REL, JUDGED_ONLY, NEG),
        citation="Sakai 2004; Sakai & Kando 2008; Sakai 2014 (Q@l)",
        aliases=("q_measure", "qmeasure"),
        ties=ClosedForm(forms.q_measure, otherwise=Groupwise()),
    )
)
register(
    MeasureDef(
        "nERR",
        kernel=normalised_err,
        description="Normalised ERR: ERR@k / ERR@k of the ideal ranking.",
        params=(MAX_GRADE, JUDGED_ONLY, NEG),
        citation="Sakai & Song 2011; Chapelle et al. 2009",
        ties=ClosedForm(forms.normalised_err, otherwise=Groupwise(), note=STOPPERS_NOTE),
    )
)
