"""pdireval's paired tests as PyTerrier significance-test callables.

``pt.Experiment(..., baseline=0, test=...)`` accepts a callable that follows
``scipy.stats.ttest_rel``: it is called as ``test(system_values, baseline_values)`` with the
per-query values of one measure (same query order) and the p-value is read from the second
element of what it returns. :func:`test` gives such a callable for each pairwise test of
:func:`pdireval.compare`, with the same formulas (and, for the t, Wilcoxon and sign tests, the
same p-values ``compare`` gives that pair)::

    import pyterrier as pt
    import pdireval.pyterrier

    pt.Experiment([bm25, monot5], topics, qrels, ["nDCG@10"], baseline=0,
                  test=pdireval.pyterrier.test("bootstrap"), correction="holm")

PyTerrier's own ``correction=`` then adjusts the p-values over the systems.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from pdireval.types import Alternative, RngLike, TestMethod

__all__ = ["test", "TESTS"]

#: The tests :func:`test` offers (those of :func:`pdireval.compare` that compare one pair).
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")


def test(
    method: TestMethod = "bootstrap",
    *,
    alternative: Alternative = "two-sided",
    n_resamples: int | None = None,
    rng: RngLike = None,
) -> Callable[[ArrayLike, ArrayLike], tuple[float, float]]:
    """A ``(a, b) -> (statistic, p_value)`` callable for ``pt.Experiment(test=...)``.

    Parameters
    ----------
    method
        ``"bootstrap"`` (Sakai's 2006 studentised paired bootstrap, default),
        ``"randomization"`` (Fisher's paired randomisation test), ``"t"`` (paired
        t-test), ``"wilcoxon"`` (signed-rank test, scipy's defaults) or ``"sign"`` (exact
        sign test), with the formulas of :func:`pdireval.compare`; ranx's names
        (``"student"``, ``"fisher"``) are accepted too. The randomised Tukey HSD compares all
        systems at once and has no pairwise form.
    alternative
        scipy's values; ``"greater"`` tests whether ``a`` (PyTerrier passes the system) is
        better than ``b`` (the baseline).
    n_resamples
        Resamples of the resampling tests (None: 1000 for the bootstrap, 10000 for the
        randomisation test, as in ``compare``).
    rng
        Seed of the resampling tests: every call uses the same resamples (as ``compare``
        shares one resample matrix between the pairs of a measure), so results are
        reproducible. None, an int, a SeedSequence or a Generator.

    Returns
    -------
    callable
        ``f(a, b)`` with ``a``, ``b`` 1-D sequences of per-query values in the same query
        order, returning a named tuple ``(statistic, p_value)`` of floats (``f(a, b)[1]`` is
        the p-value PyTerrier reads). Queries where either value is NaN are dropped.

    Raises
    ------
    OptionError
        An unknown ``method`` or ``alternative``, or ``method="tukey"``.

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    Smucker, M. D., Allan, J., Carterette, B. (2007). A comparison of statistical
    significance tests for information retrieval evaluation. CIKM.
    Macdonald, C., Tonellotto, N. (2020). Declarative experimentation in information
    retrieval using PyTerrier. ICTIR.
    """
    from pdireval.errors import OptionError, check_int, check_rng
    from pdireval.meta.significance import DEFAULT_RESAMPLES, MAX_RESAMPLES, canonical_method
    from pdireval.stats import paired_tests

    method = canonical_method(method)
    if method == "tukey":
        raise OptionError(
            "method='tukey' (the randomised Tukey HSD) compares all systems at once and has no "
            "two-sample form for pt.Experiment(test=...); use 'randomization' or 'bootstrap' "
            "with PyTerrier's correction=, or pdireval.compare(method='tukey') on a scores frame."
        )
    paired_tests.check_alternative(alternative)
    if n_resamples is None:
        n_resamples = DEFAULT_RESAMPLES.get(method, 0)
    else:
        n_resamples = check_int("n_resamples", n_resamples, minimum=1, maximum=MAX_RESAMPLES)
    seed = check_rng(rng)
    simple = {"t": paired_tests.paired_t, "wilcoxon": paired_tests.wilcoxon}
    resampled = {
        "randomization": paired_tests.randomization_test,
        "bootstrap": paired_tests.bootstrap_test,
    }

    def pdireval_test(a, b):
        if method in simple:
            return simple[method](a, b, alternative=alternative)
        if method == "sign":
            res = paired_tests.sign_test(a, b, alternative=alternative)
            return paired_tests.TestResult(res.statistic, res.p_value)
        return resampled[method](a, b, n_resamples=n_resamples, rng=seed, alternative=alternative)

    pdireval_test.__name__ = f"pdireval_{method}"
    pdireval_test.__doc__ = f"pdireval's paired {method} test: (a, b) -> (statistic, p_value)."
    return pdireval_test
