"""``pdireval report``: the whole evaluation and meta-evaluation of a collection in one call.

:func:`report` evaluates a run (or the built-in simulated collection) and runs every
analysis the library has, then writes an Excel workbook (one sheet per table), PNG figures
(SVG twins on request), and a self-contained HTML page. This package is presentation only: every
number comes from the public functions of the other layers, unrounded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from pdireval.core.schema import canonical_qrels, canonical_scores
from pdireval.errors import (
    OptionError,
    check_bool,
    check_int,
    check_option,
    check_rng,
    options_by_name,
)
from pdireval.io import as_frame
from pdireval.measures.registry import labelled_measures
from pdireval.meta.significance import MAX_RESAMPLES
from pdireval.reporting.context import names_as_text
from pdireval.reporting.excel import check_cell_texts, write_workbook
from pdireval.reporting.html import Section, write_html
from pdireval.reporting.progress import Progress
from pdireval.reporting.sections import SECTIONS, Context
from pdireval.stats.corrections import canonical_correction

if TYPE_CHECKING:
    from pdireval.types import (
        Columns,
        Correction,
        Measures,
        PathArg,
        ResamplingCorrection,
        RngLike,
        ScorePrecision,
    )

__all__ = ["report", "Report", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ("nDCG@10", "AP", "P@10", "RR", "Bpref")


@dataclass(repr=False)
class Report:
    """What :func:`report` produced.

    Attributes
    ----------
    tables
        Table name -> tidy DataFrame (the sheets of the workbook, unrounded).
    sections
        The report's sections in page order.
    directory, workbook, html
        Output folder, the .xlsx file and the .html page.
    figures
        Figure name -> PNG path (an SVG twin sits beside each with ``svg=True``).
    notes
        Table name -> the explanation shown with it.
    seconds
        Wall time of the whole report.
    """

    tables: dict[str, pd.DataFrame]
    sections: list[Section]
    directory: Path
    workbook: Path
    html: Path
    figures: dict[str, Path] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def _summary(self) -> list[str]:
        """What the report holds, in a few lines (the printed and the notebook form)."""
        titles = ", ".join(section.title for section in self.sections)
        return [
            f"{len(self.sections)} sections: {titles}",
            f"{len(self.tables)} tables (.tables): {', '.join(self.tables)}",
            f"{len(self.figures)} figures (.figures), made in {self.seconds:.1f} s",
            f"written to {self.directory}: {self.workbook.name}, {self.html.name}",
        ]

    def __repr__(self) -> str:
        return "\n".join(["<pdireval Report>", *("  " + line for line in self._summary())])

    def _repr_html_(self) -> str:
        import html

        items = "".join(f"<li>{html.escape(line)}</li>" for line in self._summary())
        link = html.escape(self.html.as_uri() if self.html.is_absolute() else str(self.html))
        return (
            f'<div><b>pdireval Report</b> (<a href="{link}" target="_blank">open the '
            f"page</a>)<ul>{items}</ul></div>"
        )


@options_by_name
def report(
    run: pd.DataFrame | None = None,
    *,
    qrels: pd.DataFrame | None = None,
    measures: Measures = DEFAULT_MEASURES,
    out: PathArg = "pdireval-report",
    title: str | None = None,
    n_resamples: int = 1000,
    rng: RngLike = None,
    progress: bool | None = None,
    svg: bool = False,
    columns: Columns = None,
    other_qrels: pd.DataFrame | None = None,
    score_precision: ScorePrecision | None = None,
    nugget_scores: pd.DataFrame | None = None,
    correction: Correction | ResamplingCorrection = "holm",
) -> Report:
    """Evaluate a collection and write the full report (workbook, figures, HTML page).

    Parameters
    ----------
    run
        A run frame (see :func:`pdireval.evaluate`). None: the built-in simulated example
        collection, the one ``pdireval evaluate`` uses with no input and the README's tour
        evaluates (``pdireval.datasets.simulate(**pdireval.datasets.EXAMPLE)``: 5 systems ×
        50 queries).
    qrels
        Judgments (or the run's ``label`` column when omitted).
    measures
        Measures of the per-system table and of every analysis: a list, or one measure
        string (``"AP"`` is the one measure AP).
    out
        Output folder (created only once every input and option has been checked):
        ``report.xlsx``, ``report.html``, ``figures/*.png``, and the table for a paper as
        ``paper_table.tex`` and ``paper_table.md`` (see
        :func:`pdireval.paper_table`).
    title
        Page title (default names the collection).
    n_resamples
        Bootstrap resamples / trials of the randomised analyses.
    rng
        None (default: fresh entropy, as everywhere in pdireval), an int seed, a
        SeedSequence or a Generator; the page states the seed it used, and that seed gives an
        identical report (``pdireval report`` passes ``--seed``, default 0).
    progress
        Show progress bars on stderr (default: when stderr is a terminal): one over the
        steps of the report (evaluation, each section, writing) and, inside it, one over the
        current section's steps and the analyses' own bars (the bootstrap's measure groups,
        the error- and swap-rate subset sizes). ``False``: nothing is shown.
    svg
        Also write every figure as SVG beside its PNG (vector figures for a paper; about
        doubles the time spent on figures).
    columns
        ``{canonical: yours}`` column mapping of the run.
    other_qrels
        A second set of judgments of the same collection (e.g. LLM labels): adds the
        judgments section (:func:`pdireval.agreement`, :func:`pdireval.leaderboard_agreement`).
    score_precision
        ``"float32"`` (trec_eval 9) or ``"float64"`` (trec_eval 10.0): how run scores are
        compared (see :func:`pdireval.evaluate`). None (default): float32, with one warning
        when float32 ties change a value of the report (naming either choice silences it).
    nugget_scores
        Scores of the generated answers of the same systems, from
        :func:`pdireval.evaluate_nuggets` or :func:`pdireval.evaluate_support` (any scores
        frame; a ``judge`` column for several judges): adds the RAG section (means with t
        intervals, Holm-corrected paired t-tests, and the judges' leaderboard agreement).
    correction
        Family-wise (or false-discovery-rate) correction of the bootstrap tests over the
        pairs of each measure, as :func:`pdireval.compare` takes it: ``"holm"`` (default;
        Holm 1979), ``"maxt"`` (Westfall & Young's 1993 step-down maxT over Sakai's
        studentised bootstrap, resampled jointly for all pairs), ``"bh"``, ...; it sets the
        Systems table's p-values against the best and the paper table's letters. The
        uncertainty section's top group keeps Holm.

    Returns
    -------
    Report
        The tables (tidy frames), sections, and paths of what was written.
    """
    import numpy as np

    from pdireval import datasets

    started = time.perf_counter()
    if run is None:
        if qrels is not None:
            raise TypeError(
                "qrels= was given without a run: pass the run too, or neither for the "
                "simulated collection"
            )
        run, qrels = datasets.simulate(**datasets.EXAMPLE)
        title = title or (
            f"pdireval report — the simulated example collection "
            "(pdireval.datasets.simulate("
            f"{', '.join(f'{k}={v}' for k, v in datasets.EXAMPLE.items())}))"
        )
    # every input and option is checked before anything is written
    parsed = labelled_measures(measures)  # "AP" is the one measure AP; names kept as given
    out = _check_out(out)
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title= must be a string or None, got {title!r} ({type(title).__name__}).")
    n_resamples = check_int("n_resamples", n_resamples, minimum=1, maximum=MAX_RESAMPLES)
    seed = check_rng(rng)
    if progress is not None:
        progress = check_bool("progress", progress)
    svg = check_bool("svg", svg)
    if score_precision is not None:
        check_option("score_precision", score_precision, ("float32", "float64"))
    if other_qrels is not None:
        canonical_qrels(as_frame(other_qrels, "qrels"))
    if nugget_scores is not None:
        nugget_scores = canonical_scores(nugget_scores)
    correction = canonical_correction(correction, resampling=True)
    if correction is None:
        raise OptionError(
            "correction=None: the report tests every pair of systems, so it corrects them "
            "(its tables read the corrected p-values); pass 'holm' (default), 'maxt', 'bh', ..."
        )
    ctx = Context(
        run=run,
        qrels=qrels,
        measures=[label for label, _ in parsed],
        figures_dir=out / "figures",
        n_resamples=n_resamples,
        rng=np.random.default_rng(seed),
        columns=columns,
        other_qrels=other_qrels,
        nugget_scores=nugget_scores,
        svg=svg,
        score_precision=score_precision or "float32",
        warn_precision=score_precision is None,
        correction=correction,
    )
    show = progress if progress is not None else _stderr_is_tty()
    bar = ctx.progress = Progress(show, len(SECTIONS) + 2)  # evaluation, the sections, writing
    try:
        bar.section("evaluation")
        ctx.prepare()  # validates the run and the qrels and evaluates the measures
        # names an Excel cell cannot hold are refused before anything is written
        check_cell_texts(ctx.scores[["system", "query", "measure"]], "the run")
        try:
            (out / "figures").mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise OptionError(
                f"out={str(out)!r}: a file is in the way of the output folder; pass a folder path."
            ) from None
        bar.section_done()
        sections: list[Section] = []
        with names_as_text():  # "$...$" in a name is text in the figures, not mathtext
            for build in SECTIONS:
                bar.section(build.__name__.removesuffix("_section").replace("_", " "))
                section = build(ctx)
                bar.section_done()
                if section is not None:
                    sections.append(section)
        bar.section("writing the workbook and the page")
        result = _write(ctx, sections, out, title, n_resamples, seed, started)
    except BaseException:
        bar.close(failed=True)
        raise
    bar.close()
    return result


def _write(
    ctx: Context, sections: list[Section], out: Path, title, n_resamples, seed, started
) -> Report:
    """Write the workbook and the HTML page of the built sections."""
    tables: dict[str, pd.DataFrame] = {}
    notes: dict[str, str] = {}
    figures: dict[str, Path] = {}
    for s in sections:
        for name, frame in s.tables.items():
            tables[name] = frame
            notes[name] = s.captions.get(name, s.title)
        for i, line in enumerate(s.notes, start=1):
            notes[f"{s.title} (note {i})"] = line
        figures.update(s.figures)
    step = ctx.steps("writing", ["workbook", "page"])
    step("workbook")
    workbook = out / "report.xlsx"
    write_workbook(tables, workbook, notes=notes)
    step("page")
    page = out / "report.html"
    n_s, n_q = ctx.n_systems, ctx.n_queries
    subtitle = (
        f"{n_s} system{'s' if n_s != 1 else ''} × {n_q} quer{'ies' if n_q != 1 else 'y'}; "
        f"measures: {', '.join(ctx.measure_names)}; {n_resamples} resamples; seed {seed}"
    )
    default = (
        f"pdireval report — {n_s} system{'s' if n_s != 1 else ''} × "
        f"{n_q} quer{'ies' if n_q != 1 else 'y'}"
    )
    write_html(sections, page, title=title or default, subtitle=subtitle)
    if ctx.progress is not None:
        ctx.progress.section_done()
    return Report(
        tables, sections, out, workbook, page, figures, notes, time.perf_counter() - started
    )


def _check_out(out) -> Path:
    """``out=`` as a Path: a folder that exists or can be created (not an existing file)."""
    if not isinstance(out, (str, PathLike)):
        raise TypeError(
            f"out= must be a folder path (str or Path), got {out!r} ({type(out).__name__})."
        )
    path = Path(out)
    if str(out) == "":
        raise OptionError(
            "out= is empty: pass the folder to write the report into, e.g. out='report'."
        )
    if path.exists() and not path.is_dir():
        raise OptionError(
            f"out={str(out)!r} is an existing file, not a folder: pass a folder path "
            "(it is created if needed)."
        )
    return path


def _stderr_is_tty() -> bool:
    import sys

    return hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
