"""pdireval on Dask DataFrames: runs larger than memory, on one machine or a cluster.

``import pdireval.dask`` registers the ``ireval`` accessor on ``dask.dataframe.DataFrame``
(``import pdireval`` does it too when Dask is already imported), so that

>>> scores = run_ddf.ireval.evaluate(["nDCG@10", "AP"], qrels=qrels)  # doctest: +SKIP
>>> scores.compute()                                                   # doctest: +SKIP

equals ``pdireval.evaluate(run_ddf.compute(), ...)``: the same rows, row order, dtypes,
values (bit for bit) and the same single warning.

How it works
------------
Every per-query measure needs each (system, query) list whole in one partition. Partitions
that hold whole systems (one run file per system) or whole queries are evaluated as they
are (``partitioned_by="system"`` / ``"query"``); any other layout is shuffled by query first
(``partitioned_by=None``, the default). The qrels are small next to the runs: they are
validated and grouped once (on the client for a pandas frame, in one task for a Dask frame)
and handed to every partition, which validates its own rows and evaluates them with
``missing="drop"`` semantics. One final small task then

* raises :class:`~pdireval.SchemaError` when a (system, query) list was split across
  partitions (it would be scored twice, on parts of the list: never a silent wrong number),
* adds the (system, judged query) cells a system did not answer with each measure's empty
  value when ``missing="zero"`` (NumRel is R, computed from the qrels),
* warns once about run queries without judgments, about doc ids that do not match the
  qrels (the whole run, or lists with near-miss spellings, as :mod:`pdireval.core.docids`
  describes: each partition sends its evidence in a few marker rows) and about values that
  float32 score ties change (each partition evaluates its tied lists again as doubles, as
  :func:`pdireval.evaluate` does, and sends the changed values as marker rows), through
  ``distributed.warn`` on a cluster so the warnings reach the client, and
* restores :func:`pdireval.evaluate`'s row order.

Nothing is computed before ``.compute()``. Every value depends on its own (system, query)
segment only (``within_segment_cumsum`` restarts per segment), so the numbers are the same
bit for bit whatever the partitioning.
"""

from __future__ import annotations

from pdireval.dask.ddf_accessor import DaskAccessor
from pdireval.dask.lazy_files import read_qrels, read_run
from pdireval.dask.partition_scores import evaluate
from pdireval.dask.variant_means import evaluate_variants

__all__ = ["evaluate", "evaluate_variants", "read_run", "read_qrels", "DaskAccessor"]
