"""Plumbing shared by the meta-evaluation modules: rng handling, progress bars, pair indices."""

from __future__ import annotations

import sys

import numpy as np

from ..errors import OptionError, check_option

__all__ = ["ParameterError", "group_rng", "progress_bar", "pair_indices", "check_choice"]

#: Memory budget (number of float64 cells) of one chunk of a vectorized computation.
CHUNK_CELLS = 1 << 22  # 4 Mi cells = 32 MiB per array


#: An invalid option value (a PdirevalError and ValueError): the project-wide OptionError.
ParameterError = OptionError
check_choice = check_option


def group_rng(rng):
    """Return a factory giving the Generator for each group of a scores frame.

    An integer seed (or None, or a SeedSequence) starts a fresh ``default_rng(rng)`` for every
    group, so each group's numbers are those of the methods-spec draw protocol with that seed
    (and a result does not depend on which other measures are in the frame). A Generator is
    shared: successive groups continue its stream.
    """
    if isinstance(rng, np.random.Generator):
        return lambda: rng
    if rng is not None and not isinstance(rng, (int, np.integer, np.random.SeedSequence)):
        raise TypeError(f"rng= must be None, an integer seed or a numpy Generator, got {type(rng).__name__}")
    return lambda: np.random.default_rng(rng)


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


def pair_indices(n_systems: int, baseline: int | None = None):
    """Column indices (I, J) of the system pairs: all i < j, or every system against a baseline.

    All pairs come in row-major order (0,1), (0,2), ..., (1,2), ...; with a baseline b the
    pairs are (k, b) for every k != b in column order.
    """
    if baseline is None:
        i, j = np.triu_indices(n_systems, 1)
        return i.astype(np.int64), j.astype(np.int64)
    i = np.array([k for k in range(n_systems) if k != baseline], dtype=np.int64)
    return i, np.full(len(i), baseline, dtype=np.int64)


def chunks(n_items: int, cells_per_item: int):
    """Slices of ``range(n_items)`` such that each chunk holds about CHUNK_CELLS cells."""
    size = max(1, CHUNK_CELLS // max(1, cells_per_item))
    return [slice(s, min(s + size, n_items)) for s in range(0, n_items, size)]
