"""The ``ireval`` accessor on ``dask.dataframe.DataFrame`` (registered on import)."""

from __future__ import annotations

import dask.dataframe as dd

from pdireval.dask.partition_scores import evaluate
from pdireval.dask.variant_means import evaluate_variants

__all__ = ["DaskAccessor"]


@dd.extensions.register_dataframe_accessor("ireval")
class DaskAccessor:
    """pdireval on a Dask DataFrame: ``run_ddf.ireval.evaluate(...)`` (lazy)."""

    def __init__(self, frame: dd.DataFrame):
        self._obj = frame

    def evaluate(
        self,
        measures,
        *,
        qrels=None,
        missing="zero",
        columns=None,
        qrels_columns=None,
        order="score",
        score_precision=None,
        trec_eval=None,
        partitioned_by=None,
        finalize=True,
    ):
        """See :func:`pdireval.dask.evaluate`."""
        return evaluate(
            self._obj,
            measures,
            qrels=qrels,
            missing=missing,
            columns=columns,
            qrels_columns=qrels_columns,
            order=order,
            score_precision=score_precision,
            trec_eval=trec_eval,
            partitioned_by=partitioned_by,
            finalize=finalize,
        )

    def evaluate_variants(
        self,
        measures,
        qrels_variants,
        *,
        missing="zero",
        columns=None,
        qrels_columns=None,
        order="score",
        score_precision="float32",
        partitioned_by=None,
    ):
        """See :func:`pdireval.dask.evaluate_variants`."""
        return evaluate_variants(
            self._obj,
            measures,
            qrels_variants,
            missing=missing,
            columns=columns,
            qrels_columns=qrels_columns,
            order=order,
            score_precision=score_precision,
            partitioned_by=partitioned_by,
        )
