"""The ``DataFrame.ireval`` accessor, generated from :data:`pdireval.public.FRAME_FUNCTIONS`.

Each method is the public function of the same name with the frame as its first argument:
same signature (minus the frame), same docstring, so ``help(df.ireval.compare)`` and Jupyter's
shift-tab show the real documentation. Methods are built on first access, so registering the
accessor imports none of the analysis modules. The accessor is stateless: ``__init__`` stores
the frame and validates nothing (pandas may rebuild the accessor on every attribute access).
"""

from __future__ import annotations

import functools
import importlib
import inspect

import pandas as pd

from pdireval.public import EXPORTS, FRAME_FUNCTIONS

__all__ = ["IrevalAccessor", "accessor_method"]


@functools.cache
def accessor_method(name: str):
    """The accessor method for the public function ``name``: ``method(self, ...)`` calls
    ``function(self._obj, ...)``; its signature and docstring are the function's."""
    function = getattr(importlib.import_module(EXPORTS[name]), name)
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)

    def method(self, /, *args, **kwargs):
        return function(self._obj, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = f"IrevalAccessor.{name}"
    method.__module__ = function.__module__
    method.__doc__ = function.__doc__
    method.__signature__ = signature.replace(parameters=[self_parameter, *parameters[1:]])
    return method


@pd.api.extensions.register_dataframe_accessor("ireval")
class IrevalAccessor:
    """pdireval on a DataFrame: ``run.ireval.evaluate(...)``, ``scores.ireval.compare()``, ...

    Every method is a public ``pdireval`` function applied to this frame; see ``dir()`` for
    the list and ``help(df.ireval.<name>)`` for each one's documentation.
    """

    def __init__(self, frame: pd.DataFrame):
        self._obj = frame

    def __getattr__(self, name: str):
        if name in FRAME_FUNCTIONS:
            return accessor_method(name).__get__(self, type(self))
        raise AttributeError(
            f"DataFrame.ireval has no method {name!r}; the methods are: "
            f"{', '.join(sorted(FRAME_FUNCTIONS))}"
        )

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(FRAME_FUNCTIONS))
