"""``canonical_qrels`` on qrels already in canonical order (as ``read_qrels`` returns them)
skips its duplicate merge and sort: the result must be what the merge and sort give, and any
frame not strictly in key order must still go through them."""

from __future__ import annotations

import pandas as pd
import pytest

from pdireval.core import keys, schema
from pdireval.core.schema import canonical_qrels


def both(frame: pd.DataFrame, monkeypatch) -> tuple[pd.DataFrame, pd.DataFrame]:
    fast = canonical_qrels(frame)
    with monkeypatch.context() as m:
        m.setattr(keys, "_strictly_increasing", lambda frame, key: False)
        slow = canonical_qrels(frame)
    return fast, slow


FRAMES = {
    "sorted": pd.DataFrame({"query": ["1", "1", "2", "10"], "doc": ["a", "b", "a", "a"],
                            "label": [1, 0, 2, 1]}),
    "unsorted docs": pd.DataFrame({"query": ["1", "1", "2"], "doc": ["b", "a", "a"],
                                   "label": [1, 0, 2]}),
    "unsorted queries": pd.DataFrame({"query": ["2", "1"], "doc": ["a", "a"], "label": [1, 0]}),
    "repeated pair": pd.DataFrame({"query": ["1", "1", "2"], "doc": ["a", "a", "b"],
                                   "label": [1, 1, 0]}),
    "non-ascii": pd.DataFrame({"query": ["q", "q", "q"], "doc": ["Z", "a", "é"], "label": [1, 0, 1]}),
    "integer ids": pd.DataFrame({"query": [1, 2, 10], "doc": ["a", "a", "a"], "label": [1, 0, 1]}),
    "subtopics": pd.DataFrame({"query": ["1", "1", "1"], "subtopic": ["1", "2", "2"],
                               "doc": ["a", "a", "b"], "label": [1, 0, 1]}),
    "judges": pd.DataFrame({"query": ["1", "1", "1"], "judge": ["x", "x", "y"],
                            "doc": ["b", "a", "a"], "label": [1, 0, 1]}),
    "one row": pd.DataFrame({"query": ["1"], "doc": ["a"], "label": [1]}),
}


@pytest.mark.parametrize("name", FRAMES)
def test_same_result_with_and_without_the_shortcut(name, monkeypatch):
    frame = FRAMES[name]
    before = frame.copy()
    fast, slow = both(frame, monkeypatch)
    pd.testing.assert_frame_equal(fast, slow)
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame is untouched


def test_shortcut_taken_only_in_strict_key_order():
    ids = schema.ID_DTYPE
    frame = pd.DataFrame({"query": pd.Series(["1", "1", "2"], dtype=ids),
                          "doc": pd.Series(["a", "b", "a"], dtype=ids)})
    assert keys._strictly_increasing(frame, ["query", "doc"])
    assert not keys._strictly_increasing(frame.iloc[[0, 0, 1]], ["query", "doc"])  # repeat
    assert not keys._strictly_increasing(frame.iloc[[1, 0, 2]], ["query", "doc"])
    assert not keys._strictly_increasing(frame.astype(object), ["query", "doc"])


def test_conflicting_labels_still_raise():
    frame = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "a"], "label": [1, 0]})
    with pytest.raises(schema.SchemaError, match="more than one label"):
        canonical_qrels(frame)
