"""The ``DataFrame.ireval`` accessor: a stateless facade over pdireval's public functions.

``__init__`` stores the frame and nothing else (pandas may rebuild the accessor on every
attribute access); each method is one line calling the public function of the same name
with the frame as its first argument. ``tests/test_accessor.py`` checks that every method's
signature equals its function's minus that first argument.
"""

from __future__ import annotations

import pandas as pd

from . import bounds_frame as _bounds_frame
from . import evaluate as _evaluate
from . import fusion as _fusion
from . import information as _run_information
from . import io as _io
from . import reporting as _reporting
from .meta import aggregate as _aggregate
from .meta import correlation as _correlation
from .meta import incomplete as _incomplete
from .meta import information as _information
from .meta import optimize as _optimize
from .meta import power as _power
from .meta import querysets as _querysets
from .meta import reliability as _reliability
from .meta import significance as _significance
from .meta import stability as _stability
from .meta import training as _training


@pd.api.extensions.register_dataframe_accessor("ireval")
class IrevalAccessor:
    """pdireval on a DataFrame: ``run.ireval.evaluate(...)``, ``scores.ireval.aggregate()``, ..."""

    def __init__(self, frame: pd.DataFrame):
        self._obj = frame

    # -- core: run -> scores -----------------------------------------------------------
    def evaluate(self, measures, *, qrels=None, missing="zero", columns=None, qrels_columns=None, order="score"):
        """See :func:`pdireval.evaluate`."""
        return _evaluate.evaluate(self._obj, measures, qrels=qrels, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order)

    def bounds(self, measures, *, qrels=None, lb=None, rlb_pool=None, n_resamples=None, rng=None, missing="zero", columns=None, qrels_columns=None, order="score"):
        """See :func:`pdireval.bounds`."""
        return _bounds_frame.bounds(self._obj, measures, qrels=qrels, lb=lb, rlb_pool=rlb_pool, n_resamples=n_resamples, rng=rng, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order)

    def query_sets(self, expected, *, size, absolute=False):
        """See :func:`pdireval.query_sets`."""
        return _querysets.query_sets(self._obj, expected, size=size, absolute=absolute)

    def pad(self, *, denominator="max", cutoffs="average", pairs=False):
        """See :func:`pdireval.pad`."""
        return _querysets.pad(self._obj, denominator=denominator, cutoffs=cutoffs, pairs=pairs)

    # -- scores -> summaries ------------------------------------------------------------
    def aggregate(self, *, wide=False):
        """See :func:`pdireval.aggregate`."""
        return _aggregate.aggregate(self._obj, wide=wide)

    # -- information theory (seed 001) ---------------------------------------------------
    def information_tau(self, a, b, *, given=(), per_query=False, ties="drop"):
        """See :func:`pdireval.information_tau`."""
        return _information.information_tau(self._obj, a, b, given=given, per_query=per_query, ties=ties)

    # -- generalizability theory (meta/reliability.py) -----------------------------------
    def reliability(self, *, n_queries=None, target=0.95, negative="clip", confidence_level=0.95):
        """See :func:`pdireval.reliability`."""
        return _reliability.reliability(self._obj, n_queries=n_queries, target=target, negative=negative, confidence_level=confidence_level)

    def d_study(self, sizes, *, negative="clip", confidence_level=0.95):
        """See :func:`pdireval.d_study`."""
        return _reliability.d_study(self._obj, sizes, negative=negative, confidence_level=confidence_level)

    # -- scores -> significance, discriminative power, correlation ------------------------
    def compare(self, *, method="bootstrap", n_resamples=None, rng=None, correction=None, baseline=None, family="group", confidence_level=0.95, progress=None):
        """See :func:`pdireval.compare`."""
        return _significance.compare(self._obj, method=method, n_resamples=n_resamples, rng=rng, correction=correction, baseline=baseline, family=family, confidence_level=confidence_level, progress=progress)

    def discriminative_power(self, *, method="bootstrap", alpha=0.05, n_resamples=1000, rng=None, progress=None):
        """See :func:`pdireval.discriminative_power`."""
        return _power.discriminative_power(self._obj, method=method, alpha=alpha, n_resamples=n_resamples, rng=rng, progress=progress)

    def asl_curve(self, *, method="bootstrap", n_resamples=1000, rng=None, progress=None):
        """See :func:`pdireval.asl_curve`."""
        return _power.asl_curve(self._obj, method=method, n_resamples=n_resamples, rng=rng, progress=progress)

    def conflicts(self, *, method="bootstrap", alpha=0.05, n_resamples=1000, rng=None, progress=None):
        """See :func:`pdireval.conflicts`."""
        return _power.conflicts(self._obj, method=method, alpha=alpha, n_resamples=n_resamples, rng=rng, progress=progress)

    def correlate(self, other=None, *, method="kendall_b"):
        """See :func:`pdireval.correlate`."""
        return _correlation.correlate(self._obj, other, method=method)

    # -- incomplete judgments (seed 004) -------------------------------------------------
    def subsample_qrels(self, *, levels=_incomplete.DEFAULT_LEVELS, repeats=10, rng=None, nested=False, mode="drop", min_relevant=1, rel=1.0, columns=None):
        """See :func:`pdireval.subsample_qrels`."""
        return _incomplete.subsample_qrels(self._obj, levels=levels, repeats=repeats, rng=rng, nested=nested, mode=mode, min_relevant=min_relevant, rel=rel, columns=columns)

    def evaluate_variants(self, measures, qrels_variants, *, missing="zero", columns=None, qrels_columns=None, order="score"):
        """See :func:`pdireval.evaluate_variants`."""
        return _incomplete.evaluate_variants(self._obj, measures, qrels_variants, missing=missing, columns=columns, qrels_columns=qrels_columns, order=order)

    def optimize(self, *, qrels=None, k=20, what="discount", gain="linear", discount="log2", monotone=True, by=None, n_queries=None, target=0.95, maxiter=200, ftol=1e-10):
        """See :func:`pdireval.optimize`."""
        return _optimize.optimize(self._obj, qrels=qrels, k=k, what=what, gain=gain, discount=discount, monotone=monotone, by=by, n_queries=n_queries, target=target, maxiter=maxiter, ftol=ftol)

    # -- information theory on runs (seed 001) -------------------------------------------
    def joint_ric(self, *, qrels=None, systems=None, rel=1.0, negatives="unjudged"):
        """See :func:`pdireval.joint_ric`."""
        return _run_information.joint_ric(self._obj, qrels=qrels, systems=systems, rel=rel, negatives=negatives)

    def information_difference(self, *, qrels=None, systems=None, rank=False, rel=1.0, negatives="unjudged"):
        """See :func:`pdireval.information_difference`."""
        return _run_information.information_difference(self._obj, qrels=qrels, systems=systems, rank=rank, rel=rel, negatives=negatives)

    def fuse(self, method="combmnz", *, qrels=None, systems=None, name=None):
        """See :func:`pdireval.fuse`."""
        return _fusion.fuse(self._obj, method, qrels=qrels, systems=systems, name=name)

    def swap_rate(self, other=None, *, sizes=None, n_trials=100, sampling="split", bin_width=0.01, n_bins=21, ties="include", rng=None, progress=None):
        """See :func:`pdireval.swap_rate`."""
        return _stability.swap_rate(self._obj, other, sizes=sizes, n_trials=n_trials, sampling=sampling, bin_width=bin_width, n_bins=n_bins, ties=ties, rng=rng, progress=progress)

    def swap_difference(self, *, max_rate=0.05):
        """See :func:`pdireval.swap_difference`."""
        return _stability.swap_difference(self._obj, max_rate=max_rate)

    def error_rate(self, *, fuzziness=0.05, n_trials=200, sizes=None, unit="topic_set", rng=None, progress=None):
        """See :func:`pdireval.error_rate`."""
        return _stability.error_rate(self._obj, fuzziness=fuzziness, n_trials=n_trials, sizes=sizes, unit=unit, rng=rng, progress=progress)

    # -- the whole job: report (reporting/) ------------------------------------------------
    def report(self, *, qrels=None, measures=_reporting.DEFAULT_MEASURES, out="pdireval-report", title=None, n_resamples=1000, rng=0, progress=None, columns=None):
        """See :func:`pdireval.report`."""
        return _reporting.report(self._obj, qrels=qrels, measures=measures, out=out, title=title, n_resamples=n_resamples, rng=rng, progress=progress, columns=columns)

    def completeness_correlation(self, reference, *, method=("kendall_b", "spearman")):
        """See :func:`pdireval.completeness_correlation`."""
        return _incomplete.completeness_correlation(self._obj, reference, method=method)

    def train_test(self, *, train, test, baseline="AP", params=None, train_scores=None, swap=True):
        """See :func:`pdireval.train_test`."""
        return _training.train_test(self._obj, train=train, test=test, baseline=baseline, params=params, train_scores=train_scores, swap=swap)

    def training_stability(self, params, *, over="repeat", baseline="AP", ddof=1):
        """See :func:`pdireval.training_stability`."""
        return _training.training_stability(self._obj, params, over=over, baseline=baseline, ddof=ddof)

    def stability_sign_test(self, *, level="level", ranges=((0, 10), (10, 100)), by=()):
        """See :func:`pdireval.stability_sign_test`."""
        return _training.stability_sign_test(self._obj, level=level, ranges=ranges, by=by)

    # -- I/O: frames -> TREC files -----------------------------------------------------
    def write_run(self, path, *, columns=None):
        """See :func:`pdireval.write_run`."""
        return _io.write_run(self._obj, path, columns=columns)

    def write_qrels(self, path, *, columns=None):
        """See :func:`pdireval.write_qrels`."""
        return _io.write_qrels(self._obj, path, columns=columns)
