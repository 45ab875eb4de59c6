"""Docstring paragraphs that many public functions share, written once.

As pandas' ``_shared_docs`` and ``@doc``: a function's docstring holds a placeholder line
``{columns}`` (indented as a parameter of its Parameters section) and the decorator
:func:`shared_docs` replaces it by the paragraph of :data:`SHARED_DOCS`, indented alike. The
docstring is complete when the function is defined, so ``help()``, the accessor methods
(which copy it) and ``python -m pdireval.apidoc`` show the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["SHARED_DOCS", "shared_docs"]

#: {placeholder: numpydoc parameter entry (name line, then its description indented by 4)}
SHARED_DOCS = {
    "columns": (
        "columns\n"
        "    Optional mapping ``{canonical name: your column name}`` for the scores frame(s);\n"
        "    other tools' spellings (PyTerrier's ``name, qid``, ir_measures' ``query_id``) are\n"
        "    recognised without it."
    ),
    "rng": (
        "rng\n"
        "    None (the default everywhere: fresh entropy), an int seed, a SeedSequence or a\n"
        "    Generator; every group starts from the seed alone (see\n"
        "    :func:`pdireval.errors.check_rng`), so the same seed gives identical frames."
    ),
    "n_resamples": (
        "n_resamples\n"
        "    Resamples B of the resampling methods (bootstrap draws, permutations or random\n"
        "    trials); more give steadier estimates at proportional cost."
    ),
    "progress": (
        "progress\n    Show a progress bar (None: only when standard error is a terminal)."
    ),
    "confidence_level": (
        "confidence_level\n"
        "    Level of the confidence intervals (the ``ci_low`` / ``ci_high`` columns, or\n"
        "    ``*_ci_low`` / ``*_ci_high``; 0.95 gives 95% intervals)."
    ),
}

_F = TypeVar("_F", bound=Callable[..., Any])

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>\w+)\}[ \t]*$", re.MULTILINE)


def shared_docs(function: _F) -> _F:
    """Decorator: fill the ``{name}`` placeholder lines of ``function``'s docstring from
    :data:`SHARED_DOCS`. An unknown name is a KeyError when the module is imported."""

    def paragraph(match: re.Match) -> str:
        indent = match.group("indent")
        text = SHARED_DOCS[match.group("name")]
        return "\n".join(indent + line if line else line for line in text.split("\n"))

    if function.__doc__:
        function.__doc__ = _PLACEHOLDER.sub(paragraph, function.__doc__)
    return function
