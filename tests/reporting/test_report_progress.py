"""The report's progress bars: they advance inside the sections (the long steps show), and
nothing is shown with progress=False or when stderr is not a terminal."""

from __future__ import annotations

import pytest

import pdireval
from pdireval.reporting import report
from pdireval.reporting.sections import SECTIONS


class Recorder:
    """Stands in for tqdm: records every bar and every advance (with the outer bar's section)."""

    bars: list = []
    events: list = []
    closed: list = []

    def __init__(self, iterable=None, total=None, desc="", **kwargs):
        self.iterable, self.total, self.desc, self.n, self.postfix = iterable, total, desc, 0, ""
        Recorder.bars.append(self)

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update(1)
        self.close()  # as tqdm does when its iterable is exhausted

    def update(self, n=1):
        self.n += n
        outer = Recorder.bars[0]
        Recorder.events.append((self, outer.postfix))

    def set_description_str(self, text):
        self.desc = text

    def set_postfix_str(self, text):
        self.postfix = text

    def close(self):
        Recorder.closed.append((self, getattr(self, "leave", True)))


@pytest.fixture
def recorder(monkeypatch):
    import tqdm.auto

    Recorder.bars, Recorder.events, Recorder.closed = [], [], []
    monkeypatch.setattr(tqdm.auto, "tqdm", Recorder)
    return Recorder


def _collection():
    run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=12, depth=30, rng=5)
    return run, qrels


def test_progress_advances_inside_every_long_section(recorder, tmp_path):
    run, qrels = _collection()
    r = report(run, qrels=qrels, out=tmp_path, n_resamples=50, progress=True)
    outer = recorder.bars[0]
    # evaluation, the sections (RAG's and the judgments' included, empty here), writing
    assert outer.desc == "pdireval report" and outer.total == outer.n == len(SECTIONS) + 2 == 13
    inner = [(bar, section) for bar, section in recorder.events if bar is not outer]
    for section in ("evaluation", "systems", "uncertainty", "bounds", "power", "correlation", "reliability", "stability", "information"):
        advances = sum(1 for _, s in inner if s == section)
        assert advances >= 2, f"the {section} section advanced its bars {advances} time(s)"
    # the bootstrap shows its measure groups, one advance each
    groups = [bar for bar in recorder.bars if bar.desc == "bootstrap groups"]
    assert len(groups) == 1 and groups[0].total == groups[0].n == len(r.tables["power"])
    assert len(inner) > 3 * outer.total
    assert {bar for bar, _ in recorder.closed} == set(recorder.bars)  # every bar closed
    assert (outer, True) in recorder.closed  # the finished outer bar stays on the screen


def test_a_failing_report_clears_its_bars(recorder, tmp_path):
    run, qrels = _collection()
    with pytest.raises(pdireval.errors.SchemaError):
        report(run.drop(columns="doc"), qrels=qrels, out=tmp_path, n_resamples=50, progress=True)
    assert recorder.bars and {bar for bar, _ in recorder.closed} == set(recorder.bars)
    assert (recorder.bars[0], False) in recorder.closed  # no half-full bar left above the error


@pytest.mark.slow
def test_no_progress_when_off_or_not_a_terminal(recorder, tmp_path, capsys):
    run, qrels = _collection()
    report(run, qrels=qrels, out=tmp_path / "off", n_resamples=50, progress=False)
    assert recorder.bars == []
    # progress=None: only when stderr is a terminal; under pytest's capture it is not
    report(run, qrels=qrels, out=tmp_path / "default", n_resamples=50)
    assert recorder.bars == []
    assert capsys.readouterr().err == ""
