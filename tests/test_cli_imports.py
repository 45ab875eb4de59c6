"""What a command imports (issues 28 and 30): each call loads what its work needs, nothing
more. Fresh interpreters; no timing is asserted (benchmarks/latency.py and
benchmarks/trec_eval_command.py measure the time)."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

import pdireval
from pdireval import plugins
from pdireval.cli import main


def loaded_after(code: str, names: tuple[str, ...]) -> set[str]:
    """The modules of ``names`` loaded after running ``code`` in a fresh interpreter."""
    probe = code + f"\nimport sys\nprint(','.join(m for m in {names!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return {m for m in done.stdout.strip().split(",") if m}


@pytest.fixture
def files(tmp_path):
    run, qrels = pdireval.datasets.simulate(n_systems=1, n_queries=10, depth=20, rng=3)
    pdireval.write_run(run, tmp_path / "run.txt")
    pdireval.write_qrels(qrels, tmp_path / "qrels.txt")
    return tmp_path / "run.txt", tmp_path / "qrels.txt"


def test_evaluate_from_files_imports_no_statistics_and_scans_no_entry_points(files):
    run, qrels = files
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['pdireval', 'evaluate']\n"
        "from pdireval.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['evaluate', {str(run)!r}, '--qrels', {str(qrels)!r}]) == 0\n"
    )
    heavy = ("scipy", "scipy.stats", "importlib.metadata", "matplotlib", "pdireval.runs")
    assert loaded_after(code, heavy) == set()


def test_trec_eval_command_imports_numpy_only(files):
    run, qrels = files
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['pdireval', 'trec_eval', '-q', '-m', 'all_trec']\n"
        "import pdireval.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert pdireval.cli.main(sys.argv[1:] + [{str(qrels)!r}, {str(run)!r}]) == 0\n"
    )
    heavy = ("pandas", "pyarrow", "scipy", "importlib.metadata", "pdireval.measures")
    assert loaded_after(code, heavy) == set()


def test_first_statistics_calls_do_not_import_scipy_stats():
    code = (
        "import pdireval\n"
        "run, qrels = pdireval.datasets.simulate(n_systems=4, n_queries=20, rng=1)\n"
        "scores = pdireval.evaluate(run, ['AP', 'nDCG@10'], qrels=qrels)\n"
        "pdireval.compare(scores, n_resamples=200, rng=0)\n"
        "pdireval.paper_table(scores, format='latex')\n"
    )
    assert loaded_after(code, ("scipy.stats",)) == set()


def test_entry_points_are_read_only_for_an_unknown_measure(files, monkeypatch):
    run, qrels = files
    calls = []

    def fake_entry_points():  # an installed package registering 'PluginHits'
        calls.append(1)
        pdireval.register_measure(
            "PluginHits", lambda ranked, judged, *, cutoff: float((ranked >= 1).sum()), replace=True
        )
        return ["fake"]

    monkeypatch.setattr(plugins, "load_entry_points", fake_entry_points)
    argv = ["evaluate", str(run), "--qrels", str(qrels), "--format", "csv"]
    with redirect_stdout(io.StringIO()):
        assert main([*argv, "-m", "AP", "-m", "P@5"]) == 0
    assert calls == []
    try:
        out = io.StringIO()
        with redirect_stdout(out):
            assert main([*argv, "-m", "PluginHits@10", "-m", "AP"]) == 0
        assert calls == [1]
        assert "PluginHits@10" in out.getvalue()
    finally:
        pdireval.unregister_measure("PluginHits")
