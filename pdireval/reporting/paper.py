"""Tables for papers: systems × measures means with the best in bold and significance letters.

:func:`paper_table` builds one tidy frame (one row per system and measure) and renders it as
LaTeX (booktabs), Markdown or HTML. The significance letters are exactly the decisions of
:func:`pdireval.compare` (``p_adjusted < alpha``), so the table and the test table agree.
"""

from __future__ import annotations

import html as _html
import re
import warnings
from typing import TYPE_CHECKING, overload

import numpy as np
import pandas as pd

from pdireval.errors import (
    OptionError,
    PdirevalWarning,
    SchemaError,
    check_int,
    check_option,
    check_real,
)
from pdireval.meta.significance import decision_p

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from pdireval.types import (
        Columns,
        CompareMethod,
        Correction,
        IntervalMethod,
        ResamplingCorrection,
        RngLike,
    )

__all__ = ["paper_table"]

FORMATS = ("frame", "latex", "markdown", "html")
#: ``interval=`` of :func:`paper_table`: ``mean ± half-width`` or ``mean [low, high]``
INTERVALS = ("pm", "range")

TEST_NAMES = {
    "bootstrap": "Sakai's (2006) paired bootstrap test",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "Fisher's paired randomisation test (Smucker et al. 2007)",
    "tukey": "randomised Tukey HSD test (Carterette 2012)",
    "bayes": "Student-t posterior of the mean difference under the Jeffreys prior (Sakai 2017)",
    "nested_bootstrap": "two-level bootstrap of queries and seeds (Davison & Hinkley 1997)",
}

CORRECTION_NAMES = {
    "none": "no correction for multiple comparisons",
    "holm": "Holm (1979) correction",
    "bonferroni": "Bonferroni correction",
    "sidak": "Šidák (1967) correction",
    "holm-sidak": "Holm–Šidák correction",
    "hochberg": "Hochberg (1988) correction",
    "hommel": "Hommel (1988) correction",
    "by": "Benjamini–Yekutieli (2001) false-discovery-rate adjustment",
    "bh": "Benjamini–Hochberg (1995) false-discovery-rate adjustment",
    "maxt": "Westfall–Young (1993) step-down maxT adjustment",
    "maxt-single": "Westfall–Young (1993) single-step maxT adjustment",
    "closed": "closed testing (Marcus, Peritz & Gabriel 1976)",
}

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _letter(i: int) -> str:
    """a, b, …, z, aa, ab, … (spreadsheet-style, lower case)."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = _LETTERS[r] + out
    return out


def _tests_and_family(
    frame, tests, measures, systems, method, correction, baseline, n_resamples, rng
):
    """The table's significance tests (run by compare(), or a given compare() result checked),
    their number of resamples (None for given tests) and the family of the correction."""
    from pdireval.meta.significance import compare

    if tests is None:
        if baseline is not None and baseline not in systems:
            raise SchemaError(
                f"baseline={baseline!r} is not one of the table's systems {systems}: "
                "pick one of them."
            )
        tests = compare(
            frame,
            method=method,
            correction=_correction_for(method, correction),
            baseline=baseline,
            n_resamples=n_resamples,
            rng=rng,
            progress=False,
        )
        b = n_resamples
        family = _family(tests, measures)
    else:
        given = {
            k: v
            for k, v in (("baseline", baseline), ("n_resamples", n_resamples), ("rng", rng))
            if v is not None
        }
        if given or method != "t" or correction != "holm":
            raise OptionError(
                "tests= reuses a compare() result, so its test settings apply: do not also pass "
                f"{', '.join(given) or 'method=/correction='} (drop them, or drop tests=)."
            )
        family = _family(tests, measures)
        tests = _check_tests(tests, measures, systems)
        b = None
    return tests, b, family


def _add_intervals(out, frame, rows, interval, interval_method, confidence_level, decimals, rng):
    """Add each mean's confidence interval to the table (ci_low, ci_high and its text); return
    the caption's sentence on it."""
    from pdireval.meta.aggregate import aggregate

    ci = aggregate(frame, method=interval_method, confidence_level=confidence_level, rng=rng)
    ci = ci.set_index(["system", "measure"]).reindex(rows)
    out.insert(4, "ci_low", ci["ci_low"].to_numpy(dtype=np.float64))
    out.insert(5, "ci_high", ci["ci_high"].to_numpy(dtype=np.float64))
    out["text"] = [
        _with_interval(t, m, lo, hi, interval, decimals)
        for t, m, lo, hi in zip(out["text"], out["mean"], out["ci_low"], out["ci_high"])
    ]
    kind = {
        "t": "Student t",
        "anova": "two-way ANOVA (Sakai 2014)",
        "bootstrap": "query-bootstrap percentile",
    }[interval_method]
    shown = "± the half-width" if interval == "pm" else "with [low, high]"
    # the ANOVA interval holds the query effects fixed: it is about these queries
    scope = " (of the mean on these queries)" if interval_method == "anova" else ""
    note = f" Each mean {shown} of its {confidence_level:.0%} {kind} interval{scope}."
    return note


@overload
def paper_table(
    scores: pd.DataFrame,
    *,
    measures: str | Sequence[str] | None = None,
    systems: str | Sequence[str] | None = None,
    baseline: str | None = None,
    tests: pd.DataFrame | None = None,
    method: CompareMethod = "t",
    correction: Correction | ResamplingCorrection | None = "holm",
    alpha: float = 0.05,
    n_resamples: int | None = None,
    rng: RngLike = None,
    decimals: int = 3,
    interval: Literal["pm", "range"] | None = None,
    interval_method: IntervalMethod = "t",
    confidence_level: float = 0.95,
    format: Literal["frame"] = "frame",
    caption: str | None = None,
    label: str | None = None,
    columns: Columns = None,
) -> pd.DataFrame: ...
@overload
def paper_table(
    scores: pd.DataFrame,
    *,
    measures: str | Sequence[str] | None = None,
    systems: str | Sequence[str] | None = None,
    baseline: str | None = None,
    tests: pd.DataFrame | None = None,
    method: CompareMethod = "t",
    correction: Correction | ResamplingCorrection | None = "holm",
    alpha: float = 0.05,
    n_resamples: int | None = None,
    rng: RngLike = None,
    decimals: int = 3,
    interval: Literal["pm", "range"] | None = None,
    interval_method: IntervalMethod = "t",
    confidence_level: float = 0.95,
    format: Literal["latex", "markdown", "html"],
    caption: str | None = None,
    label: str | None = None,
    columns: Columns = None,
) -> str: ...
def paper_table(
    scores: pd.DataFrame,
    *,
    measures: str | Sequence[str] | None = None,
    systems: str | Sequence[str] | None = None,
    baseline: str | None = None,
    tests: pd.DataFrame | None = None,
    method: CompareMethod = "t",
    correction: Correction | ResamplingCorrection | None = "holm",
    alpha: float = 0.05,
    n_resamples: int | None = None,
    rng: RngLike = None,
    decimals: int = 3,
    interval: Literal["pm", "range"] | None = None,
    interval_method: IntervalMethod = "t",
    confidence_level: float = 0.95,
    format: Literal["frame", "latex", "markdown", "html"] = "frame",
    caption: str | None = None,
    label: str | None = None,
    columns: Columns = None,
) -> pd.DataFrame | str:
    r"""The results table of a paper: mean per system and measure, best in bold, significance
    letters.

    Every system gets a letter (a, b, c, … in table order). A cell carries, as superscript,
    the letters of the systems it is significantly better than under that measure — the
    convention of ranx's and PyTerrier's tables. The decisions are those of
    :func:`pdireval.compare` on the same scores: a pair is significant iff its
    ``p_adjusted < alpha``, and the better system is the one with the higher mean. With
    ``baseline=`` only the comparisons with the baseline are tested, so a letter is either
    the baseline's (on a system better than it) or, on the baseline's row, the letter of a
    system it beats. The best mean of each measure is bold (every system sharing it, before
    rounding). The caption states the test, the correction and α; the correction's family
    (how many comparisons, of each measure or of all of them) is read off the tests used:
    with ``tests=``, the one whose adjustment of ``p_value`` gives the frame's
    ``p_adjusted`` (it may hold more systems than the table shows; when no family of its
    rows gives them, the caption names the correction without a count and a
    :class:`pdireval.PdirevalWarning` says so).

    Parameters
    ----------
    scores
        Scores frame (``system, query, measure, value``), e.g. from :func:`pdireval.evaluate`.
        Any other grouping column must be filtered away first.
    measures
        Measures to show, in column order (default: every measure, in order of first
        appearance).
    systems
        Systems to show, in row order (default: every system, sorted by name).
    baseline
        A system: test every other system against it only (``compare(baseline=...)``).
        Default: every pair of systems.
    tests
        A :func:`pdireval.compare` result on these scores to reuse (no test is rerun), whole
        (its other systems and measures count in the caption's family); its
        ``method`` and ``correction`` are used and ``method``, ``correction``,
        ``n_resamples``, ``rng`` and ``baseline`` must not be given.
    method, correction, n_resamples, rng
        Passed to :func:`pdireval.compare` (default: paired t-test, Holm correction over
        the pairs of each measure); ``correction="maxt"`` is Westfall & Young's (1993)
        step-down maxT. ``method="bayes"``: a letter marks a posterior probability of being
        better of at least 1 − ``alpha`` (Student-t posterior, Sakai 2017), with no
        correction (the default ``"holm"`` is dropped).
    alpha
        Significance level of the markers.
    decimals
        Digits after the decimal point of the rendered means (the frame keeps them unrounded).
    interval
        Show each mean's confidence interval (:func:`pdireval.aggregate` with
        ``method=interval_method``): ``"pm"`` renders ``mean ± half-width`` (symmetric
        intervals only: ``"t"`` or ``"anova"``), ``"range"`` renders ``mean [low, high]``.
        None (default): the mean alone.
    interval_method
        ``"t"`` (default), ``"anova"`` (Sakai's 2014 one-width interval) or ``"bootstrap"``
        (percentile, seeded with ``rng``; ``"range"`` only).
    confidence_level
        Level of the intervals (default 0.95).
    format
        ``"frame"`` (default; the tidy frame below), ``"latex"`` (a ``table`` environment with
        booktabs rules; needs ``\usepackage{booktabs}``), ``"markdown"`` (a pipe table with
        ``<sup>`` letters, caption below as ``Table: ...``) or ``"html"`` (a ``<table>`` with
        ``<caption>``).
    caption
        Caption text (default: the generated one, also in ``frame.attrs["caption"]``).
    label
        LaTeX ``\label`` (``format="latex"`` only).
    columns
        ``{canonical: yours}`` column mapping of ``scores``.

    Returns
    -------
    DataFrame or str
        With ``format="frame"``: one row per (system, measure), systems in row order, then
        measures in column order. Columns: ``letter`` (str), ``system`` (str), ``measure``
        (str), ``mean`` (float64, over queries, unrounded), ``n_queries`` (int64), ``best``
        (bool: the highest mean of the measure), ``better_than`` (str: the letters of the
        systems this one is significantly better than, in letter order; "" for none),
        ``text`` (str: the mean rounded to ``decimals``, with the interval when ``interval``
        is given); with ``interval`` also ``ci_low``, ``ci_high`` (float64, unrounded) after
        ``mean``. ``attrs["caption"]`` holds the caption. Otherwise the rendered table as a
        string.

    Raises
    ------
    SchemaError
        Extra grouping columns, unknown measures / systems, or a ``tests`` frame that does
        not cover the shown pairs.
    OptionError
        An unknown ``format`` or an ``alpha`` / ``decimals`` out of range.

    References
    ----------
    Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6(2).
    Bassani, E. (2022). ranx: a blazing-fast Python library for ranking evaluation and
    comparison. ECIR.

    Examples
    --------
    >>> import pdireval
    >>> run, qrels = pdireval.datasets.simulate(n_systems=3, n_queries=20, depth=20, rng=1)
    >>> scores = pdireval.evaluate(run, ["nDCG@10", "AP"], qrels=qrels)
    >>> table = pdireval.paper_table(scores)
    >>> list(table.columns)
    ['letter', 'system', 'measure', 'mean', 'n_queries', 'best', 'better_than', 'text']
    """
    from pdireval.core.groups import group_columns
    from pdireval.meta.inputs import meta_scores

    alpha, decimals, confidence_level = _checked_options(
        format, interval, interval_method, alpha, decimals, confidence_level, caption, label
    )
    frame = meta_scores(scores, columns, function="paper_table")
    extra = [c for c in group_columns(frame) if c != "measure"]
    if extra:
        raise SchemaError(
            f"paper_table shows one value per system and measure, but the scores have the extra "
            f"grouping column(s) {extra}: filter them to one value first (e.g. "
            f"scores[scores[{extra[0]!r}] == ...].drop(columns={extra!r}))."
        )
    all_measures = list(pd.unique(frame["measure"]))
    measures = (
        all_measures
        if measures is None
        else [measures]
        if isinstance(measures, str)
        else list(measures)
    )
    _check_names("measure", measures, all_measures)
    all_systems = sorted(pd.unique(frame["system"]))
    systems = (
        all_systems if systems is None else [systems] if isinstance(systems, str) else list(systems)
    )
    _check_names("system", systems, all_systems)
    frame = frame[frame["measure"].isin(measures) & frame["system"].isin(systems)]
    tests, b, family = _tests_and_family(
        frame, tests, measures, systems, method, correction, baseline, n_resamples, rng
    )
    means = frame.groupby(["system", "measure"], sort=False)["value"].agg(["mean", "count"])
    letters = {s: _letter(i) for i, s in enumerate(systems)}
    rows = pd.MultiIndex.from_product([systems, measures], names=["system", "measure"])
    means = means.reindex(rows)
    out = pd.DataFrame(
        {
            "letter": [letters[s] for s in rows.get_level_values("system")],
            "system": rows.get_level_values("system").astype(str),
            "measure": rows.get_level_values("measure").astype(str),
            "mean": means["mean"].to_numpy(dtype=np.float64),
            "n_queries": means["count"].fillna(0).to_numpy(dtype=np.int64),
        }
    )
    best = out.groupby("measure", sort=False)["mean"].transform("max")
    out["best"] = (out["mean"] == best).to_numpy() & out["mean"].notna().to_numpy()
    out["better_than"] = _markers(out, tests, letters, alpha)
    out["text"] = [("–" if np.isnan(v) else f"{v:.{decimals}f}") for v in out["mean"]]
    note = ""
    if interval is not None:
        note = _add_intervals(
            out, frame, rows, interval, interval_method, confidence_level, decimals, rng
        )
    out.attrs["caption"] = (
        caption
        if caption is not None
        else _caption(out, tests, alpha, b, measures, systems, family) + note
    )
    if format == "frame":
        return out
    return _RENDER[format](out, systems, measures, letters, label)


def _with_interval(text, mean, low, high, interval, decimals):
    """``text ± half-width`` or ``text [low, high]`` (the bare text when there is no interval)."""
    if np.isnan(mean) or np.isnan(low) or np.isnan(high):
        return text
    if interval == "pm":
        return f"{text} ± {(high - low) / 2:.{decimals}f}"
    return f"{text} [{low:.{decimals}f}, {high:.{decimals}f}]"


def _checked_options(
    format, interval, interval_method, alpha, decimals, confidence_level, caption, label
):
    """paper_table's presentation options checked: ``(alpha, decimals, confidence_level)``."""
    check_option("format", format, FORMATS)
    if interval is not None:
        check_option("interval", interval, INTERVALS)
        check_option("interval_method", interval_method, ("t", "anova", "bootstrap"))
        if interval == "pm" and interval_method == "bootstrap":
            raise OptionError(
                "interval='pm' shows mean ± one half-width, but bootstrap intervals are not "
                "symmetric; use interval='range' with interval_method='bootstrap', or "
                "interval_method='t' / 'anova' with 'pm'."
            )
    for name, text in (("caption", caption), ("label", label)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"{name}= must be a str (or None), got {type(text).__name__}")
    return (
        check_real("alpha", alpha, low=0, high=1, inclusive=False),
        check_int("decimals", decimals, minimum=0, maximum=12),
        check_real("confidence_level", confidence_level, low=0, high=1, inclusive=False),
    )


def _check_names(kind, wanted, available):
    unknown = [w for w in wanted if w not in available]
    if unknown or not wanted:
        problem = (
            f"{kind}s= names {len(unknown)} {kind}(s) the scores do not have (first: "
            f"{unknown[0]!r})"
            if unknown
            else f"{kind}s= is empty"
        )
        raise SchemaError(
            f"{problem}; the scores have {available[:10]}{' ...' if len(available) > 10 else ''}. "
            "Fix the names."
        )
    if len(set(wanted)) != len(wanted):
        raise SchemaError(f"{kind}s= lists a {kind} twice ({wanted}): list each once.")


def _correction_for(method, correction):
    """The correction passed to compare(): none for method='bayes' when the default 'holm'
    is left (posterior probabilities are not corrected), else ``correction``."""
    bayes = isinstance(method, str) and method.strip().lower() == "bayes"
    return None if bayes and correction == "holm" else correction


def _check_tests(tests, measures, systems):
    need = {"measure", "system_a", "system_b", "mean_diff", "p_value", "method", "correction"}
    if not isinstance(tests, pd.DataFrame) or need - set(tests.columns):
        missing = sorted(need - set(getattr(tests, "columns", [])))
        raise SchemaError(
            "tests= must be a pdireval.compare() result; it lacks the column(s) "
            f"{missing}. Pass compare(scores, ...)'s frame."
        )
    part = tests[
        tests["measure"].isin(measures)
        & tests["system_a"].isin(systems)
        & tests["system_b"].isin(systems)
    ]
    if part.empty:
        raise SchemaError(
            "tests= holds no comparison of the table's systems and measures: run compare() on the "
            "same scores."
        )
    mixed = ["method", "correction"] + (["alternative"] if "alternative" in part else [])
    if any(part[c].nunique() != 1 for c in mixed):
        raise SchemaError(
            "tests= mixes several methods, corrections or alternatives: pass one compare() result."
        )
    if "margin" in part.columns and part["margin"].notna().any():
        raise SchemaError(
            "tests= holds equivalence tests (compare(margin=...)): there a small p means "
            "'equivalent within the margin', and paper_table's letters mean 'significantly "
            "better'. Pass a compare() result without margin= (equivalence belongs in its own "
            "table: compare(..., margin=) itself)."
        )
    return part


#: the corrections compare() computes by resampling all pairs at once (maxT, closed testing)
RESAMPLING_NAMES = ("maxt", "maxt-single", "closed")


def _resampled_family(tests, measures):
    """:func:`_family` of a maxT or closed-testing result: its ``family_size`` where every
    pair of each measure's family is in the frame (else None: a filtered frame)."""
    if "family_size" not in tests.columns:
        return None
    rows = tests.groupby("measure", sort=False)["family_size"].agg(["max", "min", "size"])
    if not ((rows["max"] == rows["min"]) & (rows["max"] == rows["size"])).all():
        return None
    n_systems = len(pd.unique(pd.concat([tests["system_a"], tests["system_b"]])))
    return "group", {m: int(rows.loc[m, "max"]) for m in measures if m in rows.index}, n_systems


def _family(tests, measures):
    """What the correction of ``tests`` (a whole compare() result) was applied to, read off
    its p-values: ``("tukey", {measure: pairs}, n_systems)`` for the randomised Tukey HSD
    (its own family: every pair of each measure's systems), ``("group", {measure: size},
    n_systems)`` when adjusting each measure's p-values gives ``p_adjusted``, ``("all",
    {n_measures: size}, n_systems)`` when adjusting them all at once does, None when neither
    does (a filtered or edited frame), for no correction, or for a frame without
    ``p_value``. A family's size counts its non-NaN
    p-values, as :func:`~pdireval.stats.corrections.adjust_pvalues` does; ``n_systems`` is
    the number of systems the tests compared."""
    from pdireval.stats.corrections import adjust_pvalues

    if not isinstance(tests, pd.DataFrame) or not {
        "p_value",
        "correction",
        "measure",
        "system_a",
    } <= set(tests.columns):
        return None
    n_systems = len(pd.unique(pd.concat([tests["system_a"], tests["system_b"]])))
    if "method" in tests.columns and set(tests["method"].astype(str)) == {"tukey"}:
        # the HSD's own family: every pair of the systems of each measure
        per = pd.concat(
            [
                tests[["measure", "system_a"]],
                tests[["measure", "system_b"]].rename(columns={"system_b": "system_a"}),
            ]
        ).groupby("measure", sort=False)["system_a"]
        m = per.nunique()
        return "tukey", {k: int(m[k] * (m[k] - 1) // 2) for k in measures if k in m}, n_systems
    corrections = pd.unique(tests["correction"].astype(str))
    if len(corrections) != 1 or corrections[0] == "none":
        return None
    correction = corrections[0]
    if "p_adjusted" not in tests.columns:  # compare() writes it with every correction
        return None
    if correction in RESAMPLING_NAMES:  # joint resampling: p_adjusted is not p_value's function
        return _resampled_family(tests, measures)
    p = pd.to_numeric(tests["p_value"], errors="coerce").to_numpy(dtype=np.float64)
    given = pd.to_numeric(tests["p_adjusted"], errors="coerce").to_numpy(dtype=np.float64)

    def same(adjusted):
        return np.allclose(adjusted, given, rtol=1e-9, atol=1e-12, equal_nan=True)

    # grouping keys: compare() writes them before system_a
    keys = list(tests.columns[: tests.columns.get_loc("system_a")]) or ["measure"]
    codes = tests.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    by_group = np.full(len(p), np.nan)
    for code in np.unique(codes):
        rows = codes == code
        by_group[rows] = adjust_pvalues(p[rows], correction)
    if same(by_group):
        valid = pd.Series(~np.isnan(p)).groupby(codes).transform("sum")
        size = valid.groupby(tests["measure"].to_numpy(), sort=False).max()
        return "group", {m: int(size[m]) for m in measures if m in size.index}, n_systems
    if same(adjust_pvalues(p, correction)):
        n_measures = tests["measure"].nunique()
        return "all", {n_measures: int((~np.isnan(p)).sum())}, n_systems
    return None


def _markers(out, tests, letters, alpha):
    """Per row of ``out``, the letters of the systems it is significantly better than (for
    ``method="bayes"``: whose posterior probability of being better is at least 1 − α)."""
    if "prob_a_better" in tests.columns:
        prob = tests["prob_a_better"]
        sig = tests[(prob >= 1 - alpha) | (prob <= alpha)]
    else:
        sig = tests[(decision_p(tests) < alpha) & (tests["mean_diff"] != 0)]
    a_wins = sig["mean_diff"].to_numpy() > 0
    winner = np.where(
        a_wins, sig["system_a"].to_numpy(dtype=object), sig["system_b"].to_numpy(dtype=object)
    )
    loser = np.where(
        a_wins, sig["system_b"].to_numpy(dtype=object), sig["system_a"].to_numpy(dtype=object)
    )
    beaten: dict[tuple[str, str], list[str]] = {}
    for m, w, lo in zip(
        sig["measure"].to_numpy(dtype=object), winner, loser
    ):  # significant pairs only
        beaten.setdefault((w, m), []).append(letters[lo])
    order = {v: i for i, v in enumerate(letters.values())}
    return [
        "".join(sorted(beaten.get((s, m), []), key=order.__getitem__))
        for s, m in zip(out["system"], out["measure"])
    ]


def _caption(out, tests, alpha, n_resamples, measures, systems, family):
    n_q = out["n_queries"].max()
    if len(tests) == 0:  # one system: nothing to compare
        return (
            f"Mean {', '.join(measures)} over {n_q} queries. Bold: the best system of each "
            "measure. One system: no significance test."
        )
    method = str(tests["method"].iloc[0])
    correction = str(tests["correction"].iloc[0])
    n_q = out["n_queries"].max()
    test = TEST_NAMES.get(method, method)
    if n_resamples is not None and method in ("bootstrap", "randomization", "tukey"):
        test += f", {n_resamples} resamples"
    if "alternative" in tests.columns and (tests["alternative"].astype(str) != "two-sided").any():
        test += f", one-sided ({tests['alternative'].iloc[0]})"
    corr = _correction_clause(correction, family, systems)
    against = (
        set(tests["system_b"]) if len(set(tests["system_b"])) == 1 and len(systems) > 2 else None
    )
    scope = f"each system compared with the baseline {next(iter(against))}; " if against else ""
    if method == "bayes":
        return (
            f"Mean {', '.join(measures)} over {n_q} queries. Bold: the best system of each "
            "measure. Superscript letters: better than the system with that letter with "
            f"posterior probability at least {1 - alpha:g} ({scope}{test})."
        )
    return (
        f"Mean {', '.join(measures)} over {n_q} queries. Bold: the best system of each measure. "
        f"Superscript letters: significantly better than the system with that letter "
        f"({scope}{test}, {corr}, α = {alpha:g})."
    )


def _correction_clause(correction, family, systems):
    """The caption's words on the correction: its name and the family it was applied to, as
    :func:`_family` read it off the tests (no size when it could not)."""
    name = CORRECTION_NAMES.get(correction, correction)
    if family is not None and family[0] == "tukey":
        name = "the HSD test controlling the family-wise error"
    elif correction == "none":
        return name
    if family is None:
        warnings.warn(
            f"paper_table: the p_adjusted of tests= are not the {correction} adjustment of "
            "each measure's comparisons nor of all of them (a filtered or combined compare() "
            "result?), so the caption names the correction without its number of comparisons. "
            "Pass the whole compare() result, or write the sentence with caption=.",
            PdirevalWarning,
            stacklevel=4,  # the caller of paper_table
        )
        return name
    kind, sizes, n_systems = family
    if kind == "all":
        ((n_measures, size),) = sizes.items()
        words = f"{name} over all {size} comparisons of the {n_measures} measures"
    elif len(set(sizes.values())) == 1:
        words = f"{name} over the {next(iter(sizes.values()))} comparisons of each measure"
    else:
        each = ", ".join(f"{n} for {m}" for m, n in sizes.items())
        words = f"{name} over the comparisons of each measure ({each})"
    if n_systems > len(systems):
        words += f" between the {n_systems} systems tested, of which {len(systems)} are shown"
    return words


# --------------------------------------------------------------------------- renderers

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


_LINE_BREAK_RE = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")


def _tex(text: str) -> str:
    """``text`` as LaTeX text: its special characters escaped, line breaks as spaces (a
    blank line would end the paragraph inside a table cell)."""
    text = _LINE_BREAK_RE.sub(" ", str(text))
    return (
        _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], text)
        .replace("α", r"$\alpha$")
        .replace("–", "--")
        .replace("±", r"$\pm$")
    )


def _cells(out, systems, measures):
    return {
        (s, m): r for s, m, r in zip(out["system"], out["measure"], out.itertuples(index=False))
    }


def _latex(out, systems, measures, letters, label):
    cells = _cells(out, systems, measures)
    lines = [r"\begin{table}[t]", r"\centering", rf"\caption{{{_tex(out.attrs['caption'])}}}"]
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [
        r"\begin{tabular}{ll" + "r" * len(measures) + "}",
        r"\toprule",
        " & System & " + " & ".join(_tex(m) for m in measures) + r" \\",
        r"\midrule",
    ]
    for s in systems:
        row = [letters[s], _tex(s)]
        for m in measures:
            c = cells[(s, m)]
            text = _tex(c.text)
            text = rf"\textbf{{{text}}}" if c.best else text
            if c.better_than:
                text += rf"\textsuperscript{{{c.better_than}}}"
            row.append(text)
        lines.append(" & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


#: Markdown's inline syntax (emphasis, code, links, strike-through, math, the table's pipe)
_MD_PUNCT_RE = re.compile(r"([\\`*_\[\]|~$])")
_MD_EDGE_SPACE_RE = re.compile(r"^\s+|\s+$")


def _md(text: str) -> str:
    """``text`` as the literal text of a Markdown table cell (CommonMark / GitHub).

    Markdown's punctuation is backslash-escaped (``\\ ` * _ [ ] | ~ $``), ``& < >`` become
    entities (no HTML tag), and line breaks and the spaces at either end become numeric
    character references (``&#10;``, ``&#32;``): the row stays one line, no cell is trimmed,
    and the cell renders exactly ``text``.
    """
    text = _html.escape(str(text), quote=False)
    text = _MD_PUNCT_RE.sub(r"\\\1", text)
    text = _LINE_BREAK_RE.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group()), text)
    return _MD_EDGE_SPACE_RE.sub(lambda m: "".join(f"&#{ord(c)};" for c in m.group()), text)


def _markdown(out, systems, measures, letters, label):
    cells = _cells(out, systems, measures)
    lines = [
        "|  | System | " + " | ".join(_md(m) for m in measures) + " |",
        "|---|---|" + "---:|" * len(measures),
    ]
    for s in systems:
        row = [letters[s], _md(s)]
        for m in measures:
            c = cells[(s, m)]
            text = f"**{c.text}**" if c.best else c.text
            if c.better_than:
                text += f"<sup>{c.better_than}</sup>"
            row.append(text)
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"Table: {_md(out.attrs['caption'])}"]
    return "\n".join(lines) + "\n"


def _html_table(out, systems, measures, letters, label):
    e = _html.escape
    cells = _cells(out, systems, measures)
    parts = [
        '<table class="paper-table">',
        f"<caption>{e(out.attrs['caption'])}</caption>",
        "<thead><tr><th></th><th>System</th>"
        + "".join(f"<th>{e(m)}</th>" for m in measures)
        + "</tr></thead>",
        "<tbody>",
    ]
    for s in systems:
        row = f"<tr><td>{letters[s]}</td><td>{e(s)}</td>"
        for m in measures:
            c = cells[(s, m)]
            text = f"<b>{e(c.text)}</b>" if c.best else e(c.text)
            if c.better_than:
                text += f"<sup>{c.better_than}</sup>"
            row += f"<td>{text}</td>"
        parts.append(row + "</tr>")
    parts += ["</tbody>", "</table>"]
    return "\n".join(parts) + "\n"


_RENDER = {"latex": _latex, "markdown": _markdown, "html": _html_table}
