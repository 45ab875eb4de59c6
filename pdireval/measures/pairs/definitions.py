"""Measures over pairs or overlaps of documents, declared: Accuracy and Compat (kernels in
:mod:`.accuracy` and :mod:`.compat`, the closed forms of ``ties="expected"`` in :mod:`.ties`)."""

from __future__ import annotations

from pdireval.measures.pairs import ties as forms
from pdireval.measures.pairs.accuracy import accuracy
from pdireval.measures.pairs.compat import compat
from pdireval.measures.params import Param, persistence_check
from pdireval.measures.registry import MeasureDef, register
from pdireval.measures.ties import ClosedForm


def _positive(value):
    return None if value > 0 else "a label > 0 (documents outside the qrels count as label 0)"


register(
    MeasureDef(
        "Accuracy",
        kernel=accuracy,
        description=(
            "Share of (relevant, non-relevant) retrieved pairs ranked in the right order: 1 − "
            "Σ_{relevant r} (non-relevant above r) / (N·n_rel)."
        ),
        params=(Param("rel", "float", 1.0, "Minimum label counted as relevant.", check=_positive),),
        citation="ir_measures (MacAvaney, Macdonald & Ounis 2022)",
        ties=ClosedForm(forms.accuracy),
    )
)
register(
    MeasureDef(
        "Compat",
        kernel=compat,
        description=(
            "Compatibility: RBO = Σ_{i<=D} p^(i−1)·|A_i ∩ I_i|/i / Σ_{i<=D} p^(i−1) between the "
            "run and the ideal ranking most compatible with it (A_i, I_i their top i); normalize "
            "divides by the ideal's own RBO."
        ),
        params=(
            Param("p", "float", 0.95, "RBO persistence.", check=persistence_check),
            Param(
                "normalize",
                "bool",
                True,
                "Divide by the RBO of the ideal ranking with itself (a perfect run scores 1).",
            ),
        ),
        cutoff="none",
        citation="Clarke, Vtyurina & Smucker 2021 (RBO: Webber, Moffat & Zobel 2010)",
        ties=ClosedForm(forms.compat),
    )
)
