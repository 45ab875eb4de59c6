"""Loading user-defined measure modules (``PDIREVAL_MEASURES`` and ``pdireval.measures`` entry
points) without importing the measures package: the command line imports the
``PDIREVAL_MEASURES`` modules before every command, ``pdireval --help`` included, so this
module stays as light as the CLI; it reads the entry points (:func:`load_entry_points`, a scan
of every installed distribution's metadata, about 0.1 s) only when a measure named with
``-m`` is not known without them. A plugin that registers a measure imports
:mod:`pdireval.measures` itself."""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from pdireval.errors import MeasureError

__all__ = ["load_plugins", "load_entry_points"]


def load_plugins(spec: str | None = None, *, entry_points: bool = True) -> list[str]:
    """Import the measure modules named in ``spec`` (default: the environment variable
    ``PDIREVAL_MEASURES``; module names or ``.py`` paths separated by ``os.pathsep``) and, with
    ``entry_points``, every entry point of the group ``pdireval.measures``
    (:func:`load_entry_points`). Returns what was loaded."""
    loaded = []
    spec = os.environ.get("PDIREVAL_MEASURES", "") if spec is None else spec
    for item in filter(None, (part.strip() for part in spec.split(os.pathsep))):
        if item.endswith(".py"):
            path = Path(item)
            if not path.exists():
                raise MeasureError(f"PDIREVAL_MEASURES names {item!r}, which does not exist.")
            module_spec = importlib.util.spec_from_file_location(
                f"pdireval_user_measures_{path.stem}", path
            )
            if module_spec is None or module_spec.loader is None:
                raise MeasureError(
                    f"PDIREVAL_MEASURES names {item!r}, which Python cannot load as a module."
                )
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            try:
                importlib.import_module(item)
            except ImportError as exc:
                raise MeasureError(
                    f"PDIREVAL_MEASURES names the module {item!r}, which cannot be imported: {exc}."
                ) from None
        loaded.append(item)
    if entry_points:
        loaded += load_entry_points()
    return loaded


def load_entry_points() -> list[str]:
    """Import every entry point of the group ``pdireval.measures`` (installed packages that
    register measures); returns their names. Reading them scans the metadata of every
    installed distribution (about 0.1 s with a few hundred packages)."""
    from importlib.metadata import entry_points

    loaded = []
    for point in entry_points(group="pdireval.measures"):
        point.load()
        loaded.append(point.name)
    return loaded
