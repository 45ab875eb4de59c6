"""The C/W/L measures of cwl_eval: kernels (:mod:`.kernels`), the closed forms of
``ties="expected"`` (:mod:`.ties`) and their declarations (:mod:`.definitions`)."""
