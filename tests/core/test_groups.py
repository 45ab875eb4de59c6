"""core.groups: the one per-group matrix iterator agrees with a plain pivot and refuses bad groups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdireval.core.groups import group_matrices, scores_groups
from pdireval.core.schema import canonical_scores
from pdireval.errors import SchemaError


def _scores(seed: int, n_sys: int = 4, n_q: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        {"system": f"s{s}", "query": str(q), "measure": m, "k": k, "value": rng.random()}
        for m in ("nDCG", "AP") for k in (10, 5) for s in range(n_sys) for q in range(n_q, 0, -1)
    ]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matrices_equal_a_pivot_of_each_group(seed):
    frame = canonical_scores(_scores(seed))
    got = list(group_matrices(frame))
    groups = list(scores_groups(frame))
    assert [k for k, _ in got] == [k for k, _ in groups]
    for (_, matrix), (_, group) in zip(got, groups):
        expected = group.pivot(index="query", columns="system", values="value").sort_index().sort_index(axis=1)
        assert list(matrix.index) == list(expected.index)
        assert list(matrix.columns) == list(expected.columns)
        np.testing.assert_array_equal(matrix.to_numpy(), expected.to_numpy(dtype=np.float64))


def test_by_a_subset_of_the_keys():
    frame = canonical_scores(_scores(3))
    keys = [k for k, _ in group_matrices(frame[frame["k"] == 10].drop(columns="k"), by=["measure"])]
    assert keys == [{"measure": "nDCG"}, {"measure": "AP"}]


def test_absent_cell_is_named():
    frame = canonical_scores(_scores(4)).iloc[1:]
    with pytest.raises(SchemaError, match="no usable value"):
        list(group_matrices(frame))


def test_nan_value_refused_unless_allowed():
    raw = _scores(5)
    raw.loc[0, "value"] = np.nan
    frame = canonical_scores(raw)
    with pytest.raises(SchemaError, match="NaN"):
        list(group_matrices(frame))
    matrices = list(group_matrices(frame, allow_nan=True))
    assert sum(int(np.isnan(m.to_numpy()).sum()) for _, m in matrices) == 1


def test_two_rows_for_one_cell_under_a_coarser_grouping():
    frame = canonical_scores(_scores(6))
    with pytest.raises(SchemaError, match="several rows"):
        list(group_matrices(frame, by=["measure"]))
