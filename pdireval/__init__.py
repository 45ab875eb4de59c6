"""pdireval: information-retrieval evaluation and meta-evaluation for pandas.

``import pdireval`` registers the ``DataFrame.ireval`` accessor. Public names are loaded on
first use (see :mod:`pdireval.public`), so importing the package costs little more than
importing pandas.
"""

from __future__ import annotations

import importlib
import sys

from pdireval.public import DEPRECATED_NAMES, EXPORTS, SUBMODULES


def _trec_eval_command() -> bool:
    """True in a ``pdireval trec_eval ...`` process started from the command line before
    pandas is loaded: that command reads and evaluates with numpy only, so it starts as fast
    as trec_eval itself; it registers the accessor itself if it ever needs pandas."""
    argv = getattr(sys, "argv", None) or []
    script = str(argv[0]).replace("\\", "/").rsplit("/", 1)[-1] if argv else ""
    return (
        len(argv) > 1
        and argv[1] == "trec_eval"
        and script in ("pdireval", "pdireval.exe")
        and "pandas" not in sys.modules
    )


if not _trec_eval_command():
    from pdireval import accessor as _accessor  # noqa: F401  (registers DataFrame.ireval)

__version__ = "0.2.0"

if "dask.dataframe" in sys.modules:  # Dask already loaded: its DataFrames get
    importlib.import_module("pdireval.dask")  # .ireval too (pdireval never imports Dask itself)

__all__ = [*EXPORTS, *SUBMODULES]


def __getattr__(name: str):
    """Load a public name from its module on first use (PEP 562) and cache it."""
    if name in EXPORTS:
        value = getattr(importlib.import_module(EXPORTS[name]), name)
    elif name in SUBMODULES:
        value = importlib.import_module(f"pdireval.{name}")
    elif name in DEPRECATED_NAMES:  # not cached: every use warns
        from pdireval.errors import warn_renamed

        new = DEPRECATED_NAMES[name]
        warn_renamed(f"pdireval.{name}", f"pdireval.{new}")
        return __getattr__(new)
    else:
        raise AttributeError(f"module 'pdireval' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
