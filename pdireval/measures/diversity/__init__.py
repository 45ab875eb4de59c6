"""The diversity measures of ndeval: kernels (:mod:`.kernels`), the closed forms of
``ties="expected"`` (:mod:`.ties`) and their declarations (:mod:`.definitions`)."""
