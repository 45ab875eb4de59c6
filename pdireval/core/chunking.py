"""Bounded work: chunks of a vectorised computation that fit a memory budget, and progress bars."""

from __future__ import annotations

import sys

__all__ = ["CHUNK_CELLS", "chunks", "progress_bar"]

#: Memory budget (number of float64 cells) of one chunk of a vectorized computation: the one
#: place it is set. Every chunked computation takes its chunk size from it (some as a fixed
#: multiple, e.g. pdireval.runs.joint_ric.PAIR_CELLS), so changing it here scales them all.
CHUNK_CELLS = 1 << 22  # 4 Mi cells = 32 MiB per array


def _stderr_is_tty() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # pragma: no cover - closed or replaced stderr
        return False


def progress_bar(iterable, *, total=None, desc: str = "", progress=None):
    """Wrap ``iterable`` in a tqdm bar; ``progress=None`` shows it only when stderr is a TTY."""
    show = _stderr_is_tty() if progress is None else bool(progress)
    if not show:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, leave=False)


def chunks(n_items: int, cells_per_item: int):
    """Slices of ``range(n_items)`` such that each chunk holds about CHUNK_CELLS cells."""
    size = max(1, CHUNK_CELLS // max(1, cells_per_item))
    return [slice(s, min(s + size, n_items)) for s in range(0, n_items, size)]
