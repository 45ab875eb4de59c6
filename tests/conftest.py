"""Shared fixtures: the shared data folder (skipped with a reason when absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "data"


def shared_path(*parts: str) -> Path:
    """Path inside ../shared/data, skipping the test when the folder is absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: the real-data tests need the project's ../shared folder")
    return path


@pytest.fixture(scope="session")
def robust03():
    """(run, qrels) of TREC 2003 Robust: 17 runs x 100 topics."""
    import pdireval

    runs = shared_path("robust03", "runs")
    qrels = shared_path("robust03", "qrels.txt")
    return pdireval.read_run(runs), pdireval.read_qrels(qrels)
