"""Runs with seeds: one ranking per (system, seed, query), the repetitions of a stochastic
system (e.g. an LLM reranker run with several seeds). :func:`pdireval.evaluate` and
:func:`pdireval.dask.evaluate` evaluate each (system, seed) as a system of its own: its name is
the system and the seed joined (:func:`join_seeds`), and the scores are split back into a
``system`` and a ``seed`` column (:func:`split_seeds`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from pdireval.core.schema import ID_DTYPE, canonical_run
from pdireval.errors import SchemaError, show_rows

__all__ = ["SEED_COLUMNS", "seed_column", "join_seeds", "split_seeds"]

#: column names of the repetitions of a stochastic system (the first found is used)
SEED_COLUMNS = ("seed", "trial")
#: joins system and seed into one evaluation-time system name (never in a system name)
_SEED_SEP = "\x1f"


def seed_column(names, columns) -> str | None:
    """The seed column of a run with column ``names``: what ``columns["seed"]`` names, else
    the first of :data:`SEED_COLUMNS` it has; None when it has none."""
    if columns is not None and isinstance(columns, Mapping) and "seed" in columns:
        return columns["seed"]
    return next((c for c in SEED_COLUMNS if c in names), None)


def join_seeds(run: pd.DataFrame, seed: str, columns) -> pd.DataFrame:
    """The canonical run (:func:`~pdireval.core.schema.canonical_run`, duplicates not yet
    checked) of a run with a seed column ``seed``, whose system names are the system and the
    seed joined (one evaluation-time system per (system, seed); :func:`split_seeds` undoes
    it). ``columns``: the run's mapping, ``"seed"`` included or not."""
    if seed not in run.columns:
        raise SchemaError(
            f"columns= maps 'seed' to {seed!r}, which the run does not have "
            f"(it has {list(run.columns)!r})."
        )
    rest = {k: v for k, v in (columns or {}).items() if k != "seed"} or None
    seeds = run[seed]
    if seeds.isna().any():
        rows = run[seeds.isna().to_numpy()]
        raise SchemaError(
            f"the run column {seed!r} (the seed of each ranking) has {len(rows)} missing "
            f"value(s):{show_rows(rows)}\nEvery row needs its seed: fill or drop those rows.",
            failure_cases=rows,
        )
    canonical = canonical_run(run.drop(columns=seed), rest, check_duplicates=False)
    text = seeds.astype(str).to_numpy(dtype=object)
    system = canonical["system"].to_numpy(dtype=object)
    if any(_SEED_SEP in str(v) for v in pd.unique(system)):
        raise SchemaError("system names may not contain the character \\x1f with a seed column.")
    canonical["system"] = pd.array(system + _SEED_SEP + text, dtype=ID_DTYPE)
    return canonical


def split_seeds(scores: pd.DataFrame) -> pd.DataFrame:
    """A scores frame of :func:`join_seeds`' systems with ``system`` split back into
    ``system`` and ``seed`` (str, right after ``system``)."""
    scores = scores.copy()
    if len(scores):
        parts = scores["system"].str.split(_SEED_SEP, n=1, expand=True)
        system, seed = parts[0].astype(ID_DTYPE), parts[1].astype(ID_DTYPE)
    else:
        system = seed = pd.Series([], dtype=ID_DTYPE, index=scores.index)
    scores["system"] = system
    scores.insert(scores.columns.get_loc("system") + 1, "seed", seed)
    return scores
