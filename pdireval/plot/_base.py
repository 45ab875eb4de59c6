"""Shared plotting plumbing: the optional matplotlib import and axes creation."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType


def require_matplotlib() -> ModuleType:
    """Import matplotlib.pyplot, or raise an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "pdireval.plot needs matplotlib, an optional extra: pip install 'pdireval[plot]'"
        ) from exc
    return plt


def new_axes(ax=None, *, figsize=(6, 4)):
    """Return (figure, axes): the given ``ax`` and its figure, or a new figure."""
    plt = require_matplotlib()
    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return fig, ax
