"""Sakai's measures (Q, nERR): kernels (:mod:`.kernels`) and declarations (:mod:`.definitions`)."""
