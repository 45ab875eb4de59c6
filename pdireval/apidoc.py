"""Generate ``docs/api.md``, the list of every public function, from the code.

``python -m pdireval.apidoc > docs/api.md``; ``tests/docs/test_docs_api.py`` checks the page is in
sync. Each entry gives the signature, the docstring's summary, its parameters (name, type and
first line of the description) and its Returns section as written, so the page cannot
disagree with ``help()``.
"""

from __future__ import annotations

import importlib
import inspect
import re

from pdireval.public import EXPORTS, FRAME_FUNCTIONS

__all__ = ["api_markdown", "numpydoc_sections"]

#: Functions reached through public subpackages rather than top-level names.
SUBPACKAGE_FUNCTIONS = (
    ("measures", "pdireval.measures", "registry_frame"),
    ("datasets.simulate", "pdireval.datasets", "simulate"),
    ("datasets.read_cranfield", "pdireval.datasets", "read_cranfield"),
    ("dask.evaluate", "pdireval.dask", "evaluate"),
    ("dask.evaluate_variants", "pdireval.dask", "evaluate_variants"),
    ("dask.read_run", "pdireval.dask", "read_run"),
    ("dask.read_qrels", "pdireval.dask", "read_qrels"),
)

_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", re.M)


def numpydoc_sections(doc: str) -> dict[str, str]:
    """Split a numpydoc docstring into ``{"summary": ..., "Parameters": ..., ...}``."""
    doc = inspect.cleandoc(doc or "")
    parts = _SECTION.split(doc)
    sections = {"summary": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title.strip()] = body.strip("\n")
    return sections


def _parameters(text: str) -> list[str]:
    """``name : type`` lines with the first sentence of their description."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line and not line.startswith(" "):
            block = []
            for following in lines[i + 1 :]:
                if not following.startswith(" ") or not following.strip():
                    break
                block.append(following.strip())
            desc = " ".join(block)
            sentence = re.split(r"(?<=[.])\s", desc, maxsplit=1)[0] if desc else ""
            out.append(f"- `{line.strip()}` — {sentence}" if sentence else f"- `{line.strip()}`")
    return out


def _entry(title: str, function) -> list[str]:
    sections = numpydoc_sections(function.__doc__)
    signature = str(inspect.signature(function))
    first_paragraph = sections["summary"].split("\n\n")[0].replace("\n", " ")
    lines = [f"### `{title}`", "", "```py", f"{title}{signature}", "```", "", first_paragraph, ""]
    if sections.get("Parameters"):
        lines += ["**Parameters**", "", *_parameters(sections["Parameters"]), ""]
    if sections.get("Returns"):
        lines += ["**Returns**", "", "```text", sections["Returns"], "```", ""]
    return lines


def api_markdown() -> str:
    """The text of ``docs/api.md``."""
    head = [
        "# API reference",
        "",
        "*Generated from the code by `python -m pdireval.apidoc > docs/api.md`; do not edit by",
        "hand.* Every public function with its parameters and its result columns. Functions",
        "marked **accessor** are also methods of `DataFrame.ireval` (`frame.ireval.name(...)`",
        "without the first argument); `help()` of either shows the full docstring.",
        "",
    ]
    body: list[str] = []
    by_module: dict[str, list[str]] = {}
    for name, module in EXPORTS.items():
        obj = getattr(importlib.import_module(module), name)
        if inspect.isfunction(obj):
            by_module.setdefault(module, []).append(name)
    for module, names in by_module.items():
        body += [f"## `{module}`", ""]
        for name in names:
            function = getattr(importlib.import_module(module), name)
            entry = _entry(f"pdireval.{name}", function)
            if name in FRAME_FUNCTIONS:
                entry[0] += " · accessor"
            body += entry
    body += ["## Subpackages", ""]
    for title, module, name in SUBPACKAGE_FUNCTIONS:
        body += _entry(f"pdireval.{title}", getattr(importlib.import_module(module), name))
    classes = [
        n for n, m in EXPORTS.items() if inspect.isclass(getattr(importlib.import_module(m), n))
    ]
    body += ["## Classes", ""]
    for name in classes:
        cls = getattr(importlib.import_module(EXPORTS[name]), name)
        summary = numpydoc_sections(cls.__doc__)["summary"].split("\n\n")[0].replace("\n", " ")
        body += [f"- `pdireval.{name}` — {summary}"]
    return "\n".join(head + body).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - exercised by the sync test through api_markdown
    print(api_markdown(), end="")
