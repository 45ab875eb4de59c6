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


# ----------------------------------------------------------------- the site's API reference

#: The site's reference pages (``docs/reference/<file>.md``), by task: (file, title, intro,
#: public names of :data:`EXPORTS`). Every name of EXPORTS is on exactly one page
#: (``tests/docs/test_site.py``); the subpackages have pages of their own.
REFERENCE_PAGES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "evaluate",
        "Evaluate",
        "From a run (and qrels) to per-query scores, and the measures.",
        (
            "evaluate",
            "bounds",
            "evaluate_variants",
            "subsample_qrels",
            "fill_holes",
            "Measure",
            "parse_measure",
            "register_measure",
            "unregister_measure",
            "as_ir_measure",
            "measure_spellings",
            "canonical_measures",
        ),
    ),
    (
        "files",
        "Read and write files",
        "TREC runs and qrels, SVMlight (LETOR) files.",
        (
            "read_run",
            "read_qrels",
            "read_svmlight",
            "write_run",
            "write_qrels",
            "read_scores",
            "write_scores",
            "excel_safe",
            "read_nuggets",
            "read_assignments",
            "read_support",
            "read_rag_scores",
            "write_nuggets",
            "write_assignments",
            "write_support",
            "write_rag_scores",
        ),
    ),
    (
        "compare",
        "Compare systems",
        "Scores frames in, tidy meta-evaluation frames out.",
        (
            "aggregate",
            "compare",
            "discriminative_power",
            "asl_curve",
            "decision_conflicts",
            "correlate",
            "swap_rate",
            "swap_difference",
            "error_rate",
            "leaderboard_agreement",
            "rank_uncertainty",
            "reproducibility",
            "paper_table",
            "report",
        ),
    ),
    (
        "collections",
        "Judge test collections and measures",
        "Reliability, query set size, incomplete judgments, information theory, judges.",
        (
            "reliability",
            "d_study",
            "query_set_size",
            "query_sets",
            "percentage_absolute_difference",
            "information_tau",
            "information_from_tau",
            "tau_from_information",
            "joint_ric",
            "information_difference",
            "completeness_correlation",
            "train_by_measure",
            "training_stability",
            "stability_sign_test",
            "optimize",
            "agreement",
            "judgment_confusion",
            "qrels_overlap",
            "corrected_relevant_rate",
            "leaderboard_correlation",
            "ppi_means",
            "ppi_differences",
            "self_preference",
        ),
    ),
    (
        "rag",
        "RAG answers",
        "Generated answers judged by nuggets and citation support: the frames and their scores.",
        (
            "evaluate_nuggets",
            "evaluate_support",
            "validate_nuggets",
            "validate_assignments",
            "validate_support",
        ),
    ),
    (
        "fusion",
        "Fuse runs",
        "Rank and score fusion, and tuning its weights.",
        ("fuse", "tune_fusion"),
    ),
    (
        "errors",
        "Errors and warnings",
        "What pdireval raises for a user mistake, and warns.",
        (
            "PdirevalError",
            "SchemaError",
            "MeasureError",
            "OptionError",
            "PdirevalWarning",
            "PdirevalDeprecationWarning",
        ),
    ),
)

#: Subpackage pages: (file, title, module, names) — names None: the module's ``__all__``.
SUBPACKAGE_PAGES: tuple[tuple[str, str, str, tuple[str, ...] | None], ...] = (
    (
        "datasets",
        "pdireval.datasets",
        "pdireval.datasets",
        ("simulate", "simulate_diversity", "read_cranfield"),
    ),
    ("measures", "pdireval.measures", "pdireval.measures", ("registry_frame",)),
    (
        "dask",
        "pdireval.dask",
        "pdireval.dask",
        ("evaluate", "evaluate_variants", "read_run", "read_qrels"),
    ),
    ("plot", "pdireval.plot", "pdireval.plot", None),
    ("pyterrier", "pdireval.pyterrier", "pdireval.pyterrier", ("test",)),
    ("stats", "pdireval.stats", "pdireval.stats", None),
    ("types", "pdireval.types", "pdireval.types", None),
)

_OPTIONS = "    options:\n      show_root_heading: true\n      heading_level: 2"


def _defining_module(module: str, name: str) -> str:
    """Where ``module.name`` is defined (mkdocstrings reads source, not the lazy re-exports)."""
    mod = importlib.import_module(module)
    lazy = getattr(mod, "_PUBLIC", {})  # pdireval.stats: name -> submodule
    if name in lazy:
        return f"{module}.{lazy[name]}"
    obj = getattr(mod, name)
    if inspect.ismodule(obj):
        return obj.__name__
    routine = inspect.isfunction(inspect.unwrap(obj)) if callable(obj) else False
    defined = None
    if routine or inspect.isclass(obj):
        defined = getattr(inspect.unwrap(obj), "__module__", None)
    return defined or module


def _alias_text(alias) -> str:
    """A type alias as written in code: ``int | numpy.random.Generator | None``."""
    text = str(alias).replace("typing.", "").replace("collections.abc.", "")
    text = text.replace("numpy.random.bit_generator.", "numpy.random.")
    text = text.replace("numpy.random._generator.", "numpy.random.")
    return " or ".join(f"`{part.strip()}`" for part in text.split("|"))


def reference_pages() -> dict[str, str]:
    """``{file name: Markdown}`` of ``docs/reference/``: mkdocstrings directives per name."""
    pages: dict[str, str] = {}
    notice = "*Generated by `python -m pdireval.apidoc --reference docs/reference`; do not edit.*"
    index = [
        "# API reference",
        "",
        notice,
        "",
        "Every public name, by task. Functions whose first argument is a frame are also",
        "methods of the `DataFrame.ireval` accessor ([the accessor](accessor.md)).",
        "",
    ]
    for file, title, intro, names in REFERENCE_PAGES:
        lines = [f"# {title}", "", notice, "", intro, ""]
        for name in names:
            lines += [f"::: {_defining_module(EXPORTS[name], name)}.{name}", _OPTIONS, ""]
        pages[f"{file}.md"] = "\n".join(lines)
        index.append(f"- [{title}]({file}.md): " + ", ".join(f"`{n}`" for n in names))
    index += [""]
    for file, title, module, chosen in SUBPACKAGE_PAGES:
        mod = importlib.import_module(module)
        listed: tuple[str, ...] = tuple(chosen if chosen is not None else mod.__all__)
        doc = inspect.getdoc(mod) or ""
        lines = [f"# `{title}`", "", notice, "", doc.split("\n\n")[0], ""]
        if file == "types":  # type aliases: a table (mkdocstrings cannot follow typing's objects)
            lines += ["| alias | stands for |", "|---|---|"]
            lines += [f"| `{name}` | {_alias_text(getattr(mod, name))} |" for name in listed]
            lines += [""]
        else:
            for name in listed:
                lines += [f"::: {_defining_module(module, name)}.{name}", _OPTIONS, ""]
        pages[f"{file}.md"] = "\n".join(lines)
        index.append(f"- [`{title}`]({file}.md): " + ", ".join(f"`{n}`" for n in listed))
    accessor = [
        "# The `DataFrame.ireval` accessor",
        "",
        notice,
        "",
        "`import pdireval` registers `.ireval` on every DataFrame. Each method is the",
        "public function of the same name applied to the frame:",
        "`frame.ireval.compare(...)` is `pdireval.compare(frame, ...)`, with the same",
        "signature (minus the frame) and docstring.",
        "",
        "| method | function |",
        "|---|---|",
    ]
    for name in FRAME_FUNCTIONS:
        page = next(f for f, _, _, names in REFERENCE_PAGES if name in names)
        target = f"{_defining_module(EXPORTS[name], name)}.{name}"
        accessor.append(f"| `ireval.{name}` | [`pdireval.{name}`]({page}.md#{target}) |")
    pages["accessor.md"] = "\n".join(accessor + [""])
    index += ["- [The `DataFrame.ireval` accessor](accessor.md)", ""]
    pages["index.md"] = "\n".join(index)
    return pages


def write_reference(folder) -> None:
    """Write :func:`reference_pages` into ``folder`` (the site's ``docs/reference``)."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.md"):
        stale.unlink()
    for file, text in reference_pages().items():
        (folder / file).write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - exercised by the sync tests
    import sys

    if sys.argv[1:2] == ["--reference"] and len(sys.argv) == 3:
        write_reference(sys.argv[2])
    else:
        print(api_markdown(), end="")
