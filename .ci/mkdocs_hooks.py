"""mkdocs hooks (mkdocs.yml): the site build fails when a public name has no docstring, or when
docs/reference is out of date with pdireval.apidoc, so `mkdocs build --strict` checks the API
reference is complete and documented."""

from __future__ import annotations

import importlib
import inspect
import logging
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.pdireval")


class _LazyAllFilter(logging.Filter):
    """pdireval.__all__ is built from public.EXPORTS (the names load lazily), which griffe's
    static reading cannot evaluate; the reference pages name each object by its defining module
    instead, so that one warning is expected. Every other warning still fails the build."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Unsupported item in pdireval.__all__" not in record.getMessage()


def on_startup(**kwargs):
    for name in ("mkdocs.plugins.griffe", "griffe"):
        logging.getLogger(name).addFilter(_LazyAllFilter())


def on_pre_build(config, **kwargs):
    from pdireval.apidoc import REFERENCE_PAGES, SUBPACKAGE_PAGES, reference_pages
    from pdireval.public import EXPORTS

    missing = []
    for name, module in EXPORTS.items():
        if not inspect.getdoc(getattr(importlib.import_module(module), name)):
            missing.append(f"pdireval.{name}")
    for _, title, module, names in SUBPACKAGE_PAGES:
        mod = importlib.import_module(module)
        for name in names if names is not None else mod.__all__:
            obj = getattr(mod, name)
            if (inspect.isroutine(obj) or inspect.isclass(obj)) and not inspect.getdoc(obj):
                missing.append(f"{title}.{name}")
    if missing:
        raise SystemExit(f"public names without a docstring: {missing}")
    on_pages = {n for _, _, _, names in REFERENCE_PAGES for n in names}
    if on_pages != set(EXPORTS):
        log.warning("docs/reference misses %s", sorted(set(EXPORTS) - on_pages))
    folder = Path(config["docs_dir"]) / "reference"
    for file, text in reference_pages().items():
        path = folder / file
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            log.warning(
                "docs/reference/%s is out of date: "
                "python -m pdireval.apidoc --reference docs/reference",
                file,
            )
