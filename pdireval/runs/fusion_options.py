"""The options of :func:`pdireval.fuse` and :func:`pdireval.tune_fusion`, validated: method and
normalisation names (ranx's spellings accepted), weights, k, phi, and the systems to fuse."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from pdireval.errors import OptionError, SchemaError, check_real
from pdireval.runs.fusion_lists import ALIASES, FUSION_METHODS, NORMS, WEIGHTED_METHODS

__all__ = [
    "resolve_method",
    "resolve_norm",
    "check_weights",
    "check_k",
    "check_phi",
    "select_systems",
]

_NORM_ALIASES = {
    "min_max": "min-max",
    "minmax": "min-max",
    "z-score": "zmuv",
    "zscore": "zmuv",
    "none": None,
}


def _resolve(name: str, value, choices, aliases: dict, also: str):
    """The canonical spelling of an option value (case-insensitive, aliases accepted), or raise."""
    if isinstance(value, str):
        key = value.lower()
        key = aliases.get(key, key)
        if key in choices:
            return key
    known = ", ".join(repr(c) for c in choices)
    raise OptionError(f"{name}= must be one of {known} ({also}); got {value!r}.")


def resolve_method(method) -> str:
    """pdireval's name of a fusion method (case-insensitive; ranx's names accepted)."""
    return _resolve("method", method, FUSION_METHODS, ALIASES, f"or ranx's names {sorted(ALIASES)}")


def resolve_norm(norm):
    """pdireval's name of a score normalisation (None: none; 'z-score' for 'zmuv')."""
    if norm is None:
        return None
    return _resolve("norm", norm, NORMS, _NORM_ALIASES, "or 'z-score' for 'zmuv'")


def check_weights(weights, systems, method: str) -> np.ndarray | None:
    """Weights as a float array aligned with ``systems`` (sorted names), or None."""
    if weights is None:
        return None
    if method not in WEIGHTED_METHODS:
        raise OptionError(
            f"method={method!r} takes no weights; weights= works with "
            f"{', '.join(WEIGHTED_METHODS)}. "
            "Drop weights=, or pick one of those methods."
        )
    names = [str(s) for s in systems]
    if isinstance(weights, dict):
        given = {str(k): v for k, v in weights.items()}
        missing = [s for s in names if s not in given]
        extra = [s for s in given if s not in names]
        if missing or extra:
            raise OptionError(
                f"weights= must give one weight per fused system; missing {missing[:5]}, unknown "
                f"{extra[:5]}. The fused systems are {names[:10]}: give each a weight, or fuse "
                "only the weighted ones with systems=list(weights)."
            )
        values = [given[s] for s in names]
    elif isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(
            f"weights= must be a dict {{system: weight}} or a sequence, got "
            f"{type(weights).__name__}"
        )
    else:
        values = list(weights)
        if len(values) != len(names):
            raise OptionError(
                f"weights= has {len(values)} values but {len(names)} systems are fused "
                f"({names[:10]}, "
                "in sorted order). Pass one weight per system, or a dict {system: weight}."
            )
    try:
        w = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"weights= must be numbers, got {values[:5]!r}") from None
    if not np.isfinite(w).all() or (w < 0).any():
        raise OptionError(f"weights= must be finite and non-negative, got {w.tolist()[:10]}.")
    if len(w) and not (w > 0).any():
        raise OptionError(
            f"weights= are all zero ({dict(zip(names[:10], w.tolist()[:10]))}): every fused score "
            "would be 0 and the ranking only the doc-id order. Give at least one system a "
            "positive weight, or leave the systems out with systems=."
        )
    return w


def check_k(k):
    """The RRF constant ``k``: a real >= 0."""
    return check_real("k", k, low=0)  # the RRF constant


def check_phi(phi):
    """The RBC persistence ``phi``: a real in (0, 1)."""
    return check_real("phi", phi, low=0, high=1, inclusive=False)  # the RBC persistence


def select_systems(canonical: pd.DataFrame, keys, systems):
    """The rows (and their keys) of the systems named in ``systems`` (None: all)."""
    if systems is None:
        return canonical, keys
    if isinstance(systems, str):
        names = [systems]
    elif isinstance(systems, (bytes, dict)) or not hasattr(systems, "__iter__"):
        raise TypeError(f"systems= must be a list of system names, got {type(systems).__name__}.")
    else:
        names = [str(s) for s in systems]
    known = sorted(str(s) for s in pd.unique(canonical["system"]))
    if not names:
        raise OptionError(
            f"systems= is empty, so there is nothing to fuse; the run has {known[:10]}. Name "
            "the systems to fuse, or pass systems=None for all of them."
        )
    unknown = [s for s in names if s not in set(known)]
    if unknown:
        raise SchemaError(
            f"systems= names {len(unknown)} system(s) the run does not have (first: "
            f"{unknown[0]!r}); the run has {known[:10]}. Fix the names."
        )
    rows = np.flatnonzero(canonical["system"].astype(str).isin(names).to_numpy())
    kept = keys.take(rows)
    # only the selected systems (take keeps every name of the run)
    used = np.unique(kept.seg_system)
    code = np.full(len(kept.systems), -1, dtype=np.int64)
    code[used] = np.arange(len(used))
    kept = replace(kept, seg_system=code[kept.seg_system], systems=kept.systems[used])
    return canonical.iloc[rows].reset_index(drop=True), kept
