"""trec_eval's own measures: kernels (:mod:`.kernels`), tie closed forms (:mod:`.ties`), their
declarations (:mod:`.definitions`) and trec_eval's measure names (:mod:`.names`)."""
