"""Qrels subsampling: judgments removed at random to simulate incomplete pools (Buckley & Voorhees
2004; He, Macdonald & Ounis 2008)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval.core.schema import (
    canonical_qrels,
)
from pdireval.errors import (
    OptionError,
    PdirevalWarning,
    check_bool,
    check_int,
    check_real,
    check_rng,
)
from pdireval.io import as_frame

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Literal

    from pdireval.types import RngLike

__all__ = ["subsample_qrels", "DEFAULT_LEVELS", "MODES"]

DEFAULT_LEVELS = (1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90)


def _check_levels(levels) -> np.ndarray:
    if isinstance(levels, (str, bytes)) or not isinstance(
        levels, (Sequence, np.ndarray, pd.Index, pd.Series)
    ):
        if isinstance(levels, numbers.Real):
            levels = [levels]
        else:
            raise TypeError(
                "levels= must be a number or a sequence of numbers, e.g. (1, 5, 10, 50)"
            )
    arr = np.asarray(list(levels), dtype=np.float64) if len(levels) else np.zeros(0)
    if len(arr) == 0:
        raise OptionError(
            "levels= is empty: give at least one completeness level in (0, 100], "
            "e.g. levels=(10, 50)."
        )
    bad = arr[~((arr > 0) & (arr <= 100))]
    if len(bad):
        raise OptionError(
            f"levels= must be percentages in (0, 100]; got {bad.tolist()}. Write 10 for 10%, not "
            "0.1."
        )
    if arr.max() <= 1 and (arr < 1).any():
        # legal (0.1 is 0.1 %) but most often fractions meant as percentages: say so
        warnings.warn(
            f"levels= are percentages, but every level given is <= 1 ({arr.tolist()}): they "
            "look like fractions and are read as that many percent. Write levels=(10, 50, 100) "
            "for 10%, 50%, 100%.",
            PdirevalWarning,
            stacklevel=3,
        )
    if len(np.unique(arr)) != len(arr):
        raise OptionError(f"levels= repeats a level: {arr.tolist()}. Give each level once.")
    return arr


def _level_values(arr: np.ndarray):
    """Level column values: int64 when every level is a whole number, else float64."""
    if np.all(arr == np.floor(arr)):
        return arr.astype(np.int64)
    return arr


def _keep_count(x: float, m: np.ndarray) -> np.ndarray:
    """keep = ⌊x·m/100 + 0.5⌋."""
    return np.floor(x * m / 100.0 + 0.5).astype(np.int64)


def subsample_qrels(
    qrels: pd.DataFrame,
    *,
    levels: Iterable[float] = DEFAULT_LEVELS,
    n_resamples: int = 10,
    rng: RngLike = None,
    nested: bool = False,
    mode: Literal["drop", "unjudged"] = "drop",
    min_relevant: int = 1,
    rel: float = 1.0,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    r"""Qrels subsampled at completeness levels x%, repeated (He et al. 2008, Section 5.1).

    Per query the judged documents are split into two strata, relevant (label ≥ ``rel``)
    and non-relevant (label < ``rel``, negative labels included), and each stratum of size
    m keeps

    .. math:: \mathrm{keep}(x, m) = \lfloor x\,m/100 + 0.5 \rfloor

    documents, the relevant stratum at least ``min(min_relevant, m)``. Pooled-but-unjudged
    rows (NaN label) are no judgments: every variant keeps them unchanged.

    Draw protocol (normative, so any implementation given the same integer seed ``s`` draws
    the same documents): queries in sorted order and doc ids sorted, both compared as strings.

    * ``nested=False`` (default): each (level x, repetition r) is drawn on its own with
      ``g = numpy.random.default_rng(s + r)``; for each query, the relevant stratum then the
      non-relevant one: ``g.choice(sorted_docids, size=keep, replace=False)``. A variant's
      draws depend only on (s, r, x), not on which other levels are requested.
    * ``nested=True``: per repetition ``g = default_rng(s + r)`` draws one
      ``g.permutation(sorted_docids)`` per query and stratum (relevant first); level x keeps
      the first keep(x) entries, so lower levels are subsets of higher ones.

    A numpy Generator (or None: fresh entropy) for ``rng`` supplies the integer ``s`` by one
    ``integers(0, 2**62)`` draw; the protocol then proceeds as above.

    Parameters
    ----------
    qrels
        Judgments ``query, doc, label`` (the complete pool).
    levels
        Completeness levels in percent, each in (0, 100]; default He et al.'s (2008) 16 levels
        1, 2, 3, 4, 5, 10, 15, ..., 90.
    n_resamples
        Independent repetitions per level (He, Macdonald & Ounis 2008: 10).
    rng
        Integer seed ``s``, numpy Generator, or None.
    nested
        Draw nested levels (see above) instead of independent ones.
    mode
        ``"drop"`` (default): removed judgments are deleted, i.e. the documents leave the
        pool. ``"unjudged"``: they stay with a NaN label (pooled but unjudged) — the right
        choice for infAP, which treats pooled-unjudged and unpooled documents differently.
    min_relevant
        Minimum relevant documents kept per query that has any (default 1), so that every
        query keeps R ≥ 1 at every level.
    rel
        Minimum label counted as relevant (default 1, trec_eval's ``-l 1``).
    columns
        Optional mapping ``{canonical name: your column name}`` for the qrels.

    Returns
    -------
    DataFrame
        ``query`` (str), ``doc`` (str), ``label`` (float64; NaN for removed judgments when
        ``mode="unjudged"``), ``level`` (the completeness level x; int64 when all levels
        are whole numbers, else float64), ``repeat`` (int64, 0-based r). Rows ordered by
        level (in the order given), repeat, then query and doc (as strings).

    Raises
    ------
    SchemaError
        Malformed qrels.
    ValueError, TypeError
        Invalid levels, n_resamples, mode, min_relevant or rng.

    Notes
    -----
    He et al. (2008) say only "randomly remove (100 − x) percent of relevant and non-relevant
    documents from the complete pool" (10 repetitions per level); the rounding, the
    minimum relevant kept, nesting and the fate of removed judgments are the library's
    explicit choices.

    References
    ----------
    He, Macdonald & Ounis, "Retrieval Sensitivity Under Training Using Different Measures",
    SIGIR 2008, Section 5.1. Buckley & Voorhees, "Retrieval evaluation with incomplete
    information", SIGIR 2004.

    Examples
    --------
    >>> import pdireval
    >>> _, qrels = pdireval.datasets.simulate(n_systems=2, n_queries=3, rng=1)
    >>> sub = pdireval.subsample_qrels(qrels, levels=(10, 50), n_resamples=2, rng=7)
    >>> sub[["level", "repeat"]].drop_duplicates().to_numpy().tolist()
    [[10, 0], [10, 1], [50, 0], [50, 1]]
    """
    if mode not in MODES:
        raise OptionError(f"mode= must be one of {MODES}, got {mode!r}")
    n_resamples = check_int("n_resamples", n_resamples, minimum=1, maximum=MAX_RESAMPLES)
    min_relevant = check_int("min_relevant", min_relevant, minimum=0)
    nested = check_bool("nested", nested)
    rel = check_real("rel", rel)
    level_arr = _check_levels(levels)
    seed = check_rng(rng)
    q = canonical_qrels(as_frame(qrels, "qrels"), columns)  # sorted by query then doc, as strings

    plan = _strata(q, rel)
    masks = _subsample_masks(
        plan, len(q), level_arr, int(n_resamples), seed, nested, int(min_relevant)
    )
    return _variants_frame(q, masks, level_arr, int(n_resamples), mode)


def _strata(q: pd.DataFrame, rel: float):
    """Per query (sorted as strings), the row numbers of the relevant and non-relevant strata,
    each in doc-id order (the canonical qrels are sorted by query then doc)."""
    labels = q["label"].to_numpy(dtype=np.float64)
    qcodes, _ = pd.factorize(q["query"], sort=False)  # rows sorted by query: codes ascend
    judged = ~np.isnan(labels)
    is_rel = judged & (labels >= rel)
    is_non = judged & ~is_rel
    rows = np.arange(len(q))
    n_topics = int(qcodes.max()) + 1 if len(qcodes) else 0
    rel_rows = np.split(
        rows[is_rel], np.cumsum(np.bincount(qcodes[is_rel], minlength=n_topics))[:-1]
    )
    non_rows = np.split(
        rows[is_non], np.cumsum(np.bincount(qcodes[is_non], minlength=n_topics))[:-1]
    )
    unjudged_rows = rows[~judged]
    return rel_rows, non_rows, unjudged_rows


def _subsample_masks(plan, n_rows, levels, n_resamples, seed, nested, min_relevant) -> np.ndarray:
    """Boolean keep matrix, one row per (level, repeat) variant (level-major)."""
    rel_rows, non_rows, unjudged_rows = plan
    n_topics = len(rel_rows)
    m_rel = np.array([len(r) for r in rel_rows], dtype=np.int64)
    m_non = np.array([len(r) for r in non_rows], dtype=np.int64)
    floor_rel = np.minimum(min_relevant, m_rel)
    keep_rel = {x: np.maximum(_keep_count(x, m_rel), floor_rel) for x in levels}
    keep_non = {x: _keep_count(x, m_non) for x in levels}
    cells = len(levels) * n_resamples * n_rows
    if cells > MAX_MASK_CELLS:
        raise OptionError(
            f"subsample_qrels would build {len(levels)} levels x {n_resamples} repeats = "
            f"{len(levels) * n_resamples:,} qrels variants of {n_rows:,} rows ({cells:,} cells), "
            "over "
            f"the {MAX_MASK_CELLS:,} it allows: pass fewer levels= or a smaller n_resamples=."
        )
    masks = np.zeros((len(levels) * n_resamples, n_rows), dtype=bool)
    masks[:, unjudged_rows] = True
    # The protocol fixes one numpy call per (query, stratum): a loop over queries is the
    # specification itself (a few microseconds per call), not a per-document loop.
    if nested:
        for r in range(n_resamples):
            g = np.random.default_rng(seed + r)
            for t in range(n_topics):
                perm_rel = g.permutation(rel_rows[t])
                perm_non = g.permutation(non_rows[t])
                for i, x in enumerate(levels):
                    v = i * n_resamples + r
                    masks[v, perm_rel[: keep_rel[x][t]]] = True
                    masks[v, perm_non[: keep_non[x][t]]] = True
    else:
        for i, x in enumerate(levels):
            kr, kn = keep_rel[x], keep_non[x]
            for r in range(n_resamples):
                g = np.random.default_rng(seed + r)
                v = i * n_resamples + r
                chosen = []
                for t in range(n_topics):
                    chosen.append(g.choice(rel_rows[t], size=kr[t], replace=False))
                    chosen.append(g.choice(non_rows[t], size=kn[t], replace=False))
                if chosen:
                    masks[v, np.concatenate(chosen).astype(np.int64)] = True
    return masks


def _variants_frame(
    q: pd.DataFrame, masks: np.ndarray, levels, n_resamples: int, mode: str
) -> pd.DataFrame:
    n_var, n_rows = masks.shape
    level_col = np.repeat(_level_values(levels), n_resamples)
    repeat_col = np.tile(np.arange(n_resamples, dtype=np.int64), len(levels))
    if mode == "drop":
        var_idx, row_idx = np.nonzero(masks)  # row-major: variant, then row order
        label = q["label"].to_numpy(dtype=np.float64)[row_idx]
    else:
        var_idx = np.repeat(np.arange(n_var), n_rows)
        row_idx = np.tile(np.arange(n_rows), n_var)
        label = np.where(masks.reshape(-1), q["label"].to_numpy(dtype=np.float64)[row_idx], np.nan)
    return pd.DataFrame(
        {
            "query": q["query"].array.take(row_idx),
            "doc": q["doc"].array.take(row_idx),
            "label": label,
            "level": level_col[var_idx],
            "repeat": repeat_col[var_idx],
        }
    )


MODES = ("drop", "unjudged")

#: The most resamples ``subsample_qrels`` draws per level (as ``compare``'s n_resamples).
MAX_RESAMPLES = 10**6
#: The largest keep matrix (variants x qrels rows, one byte per cell: 2 GiB), checked before
#: it is allocated.
MAX_MASK_CELLS = 2**31
