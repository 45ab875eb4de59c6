"""Loading user-defined measure modules (``PDIREVAL_MEASURES`` and ``pdireval.measures`` entry
points) without importing the measures package: the command line calls :func:`load_plugins`
before every command, ``pdireval --help`` included, so this module stays as light as the CLI.
A plugin that registers a measure imports :mod:`pdireval.measures` itself."""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

from pdireval.errors import MeasureError

__all__ = ["load_plugins"]


def load_plugins(spec: str | None = None) -> list[str]:
    """Import the measure modules named in ``spec`` (default: the environment variable
    ``PDIREVAL_MEASURES``; module names or ``.py`` paths separated by ``os.pathsep``) and every
    entry point of the group ``pdireval.measures``. Returns what was loaded."""
    from importlib.metadata import entry_points

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
    for point in entry_points(group="pdireval.measures"):
        point.load()
        loaded.append(point.name)
    return loaded
