"""The measure-name grammar, as text: ``Name(param=value,...)@cutoff``.

Splits a measure string into its name, parameter values and cut-off, knowing no measure: the
registry (:mod:`pdireval.measures.registry`) resolves the name and checks the values. Values
may be numbers, bare words (``exp``), mappings (``gain={0:0,1:1,2:3}``) or vectors
(``discount=[1,0.5,0.25]``); ranx's relevance-level suffix ``-l2`` sets ``rel=``.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from pdireval.errors import MeasureError

__all__ = ["SYNTAX", "split_top_level", "parse_value", "as_text", "level_suffix"]


SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*?)\s*"
    r"(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<cutoff>[^@()]+))?\s*$"
)


def split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def parse_value(raw: str, text: str) -> Any:
    raw = raw.strip()
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("inf", "infinity"):
        return math.inf
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        pass
    if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_\-]*", raw):  # words, also 10R
        return lowered
    raise MeasureError(
        f"cannot read the parameter value {raw!r} in measure {text!r}. Values are numbers, "
        "words (gain=exp), mappings (gain={0:0,1:1,2:3}) or vectors (discount=[1,0.5])."
    )


def as_text(value) -> str:
    """A measure's text: a string, or anything whose ``str()`` is one (ir_measures objects)."""
    if isinstance(value, str):
        return value
    if (
        value is None
        or isinstance(value, (bool, int, float, bytes, list, tuple, dict, set))
        or not hasattr(type(value), "__str__")
        or type(value).__str__ is object.__str__
    ):
        raise TypeError(
            f"a measure is a string such as 'nDCG@10' (or an object whose str() is one, e.g. an "
            f"ir_measures measure), got {type(value).__name__}"
        )
    return str(value)


LEVEL_SUFFIX = re.compile(r"^(?P<text>.*[^\s])-l(?P<level>\d+(?:\.\d+)?)$")


def level_suffix(text: str) -> tuple[str, float | None]:
    """ranx's relevance-level suffix: ``precision@10-l2`` -> (``precision@10``, 2.0)."""
    match = LEVEL_SUFFIX.match(text.strip())
    if not match:
        return text, None
    return match.group("text"), float(match.group("level"))
