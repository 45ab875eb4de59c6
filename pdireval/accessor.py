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

from pdireval.public import DEPRECATED_NAMES, EXPORTS, FRAME_FUNCTIONS

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
    method_signature = signature.replace(parameters=[self_parameter, *parameters[1:]])
    method.__signature__ = method_signature  # type: ignore[attr-defined]
    return method


class _LazyMethod:
    """A class attribute of the accessor standing for one public function: the method is built
    (and its module imported) on first access, as pandas' ``_add_delegate_accessors`` sets
    attributes. Being a real class attribute, it is seen by ``dir``, ``hasattr``,
    ``inspect`` and IDEs; ``IrevalAccessor.compare`` is the method as a function (with
    ``self``), ``df.ireval.compare`` the bound method (the function's signature minus the frame).
    """

    def __init__(self, name: str):
        self.name = name
        self.__doc__ = f"pdireval.{name} applied to this frame (loaded on first use)."

    def __get__(self, obj, objtype=None):
        method = accessor_method(self.name)
        return method if obj is None else method.__get__(obj, objtype)


@pd.api.extensions.register_dataframe_accessor("ireval")
class IrevalAccessor:
    """pdireval on a DataFrame: ``run.ireval.evaluate(...)``, ``scores.ireval.compare()``, ...

    Every method is a public ``pdireval`` function applied to this frame; see ``dir()`` for
    the list and ``help(df.ireval.<name>)`` for each one's documentation.
    """

    def __init__(self, frame: pd.DataFrame):
        self._obj = frame

    def __getattr__(self, name: str):
        # only names that are not class attributes reach here: the 0.1 names and typos
        if name in DEPRECATED_NAMES:
            from pdireval.errors import warn_renamed

            new = DEPRECATED_NAMES[name]
            warn_renamed(f"DataFrame.ireval.{name}", f"DataFrame.ireval.{new}")
            return getattr(self, new)
        raise AttributeError(
            f"DataFrame.ireval has no method {name!r}; the methods are: "
            f"{', '.join(sorted(FRAME_FUNCTIONS))}"
        )


for _name in FRAME_FUNCTIONS:
    setattr(IrevalAccessor, _name, _LazyMethod(_name))
del _name
