"""Shared fixtures (helpers live in tests/helpers.py)."""

from __future__ import annotations

import pytest

from tests.helpers import shared_path


@pytest.fixture(scope="session")
def robust03():
    """(run, qrels) of TREC 2003 Robust: 17 runs x 100 topics."""
    import pdireval

    runs = shared_path("robust03", "runs")
    qrels = shared_path("robust03", "qrels.txt")
    return pdireval.read_run(runs), pdireval.read_qrels(qrels)
