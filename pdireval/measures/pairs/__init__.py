"""Measures over pairs or overlaps (Accuracy, Compat): kernels (:mod:`.accuracy`,
:mod:`.compat`), the closed forms of ``ties="expected"`` (:mod:`.ties`) and declarations
(:mod:`.definitions`)."""
