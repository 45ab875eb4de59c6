"""The standard nDCG discount and gain vectors that :func:`pdireval.optimize` starts from and
reports against (Kanoulas & Aslam 2009): log2, Zipf and linear discounts over ranks 1..k; linear
and exponential gains over the relevance grades; or vectors the user gives, checked and
normalised to sum to 1.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pdireval.errors import MeasureError

__all__ = ["STANDARD_DISCOUNTS", "STANDARD_GAINS", "standard_discount", "standard_gain"]

STANDARD_DISCOUNTS = ("log2", "zipf", "linear")
STANDARD_GAINS = ("linear", "exp")


def standard_discount(name, k: int) -> np.ndarray:
    """Discount weights of ranks 1..k, normalised to sum 1.

    ``log2``: 1/log2(r+1); ``zipf``: 1/r; ``linear``: (k+1-r)/k; or an explicit vector
    of length k.
    """
    r = np.arange(1, k + 1, dtype=np.float64)
    if isinstance(name, str):
        if name == "log2":
            w = 1.0 / np.log2(r + 1.0)
        elif name == "zipf":
            w = 1.0 / r
        elif name == "linear":
            w = (k + 1.0 - r) / k
        else:
            raise MeasureError(
                f"unknown discount {name!r}: use one of {STANDARD_DISCOUNTS} or a "
                f"vector of {k} weights"
            )
    else:
        try:
            w = np.asarray(name, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise MeasureError(
                f"a discount is one of {STANDARD_DISCOUNTS} or a vector of {k} numbers, got "
                f"{name!r}"
            ) from None
        if len(w) != k or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise MeasureError(
                f"a discount vector must hold {k} non-negative finite weights (one "
                f"per rank 1..{k}) with a positive sum, got {name!r}"
            )
    return w / w.sum()


def standard_gain(name, grades: np.ndarray) -> np.ndarray:
    """Gains of the relevant ``grades`` (labels > 0), normalised to sum 1.

    ``linear``: the label; ``exp``: 2^label - 1; or a mapping {label: gain} (labels it does
    not list get 0).
    """
    grades = np.asarray(grades, dtype=np.float64)
    if isinstance(name, str):
        if name == "linear":
            g = grades.copy()
        elif name == "exp":
            g = np.exp2(grades) - 1.0
        else:
            raise MeasureError(
                f"unknown gain {name!r}: use one of {STANDARD_GAINS} or a mapping {{label: gain}}"
            )
    elif isinstance(name, Mapping):
        g = np.array(
            [
                float(
                    name.get(x, name.get(int(x), 0.0))
                    if float(x).is_integer()
                    else name.get(x, 0.0)
                )
                for x in grades
            ]
        )
    else:
        raise MeasureError(
            f"gain must be 'linear', 'exp' or a mapping {{label: gain}}, got {name!r}"
        )
    if not np.all(np.isfinite(g)) or np.any(g < 0) or g.sum() <= 0:
        raise MeasureError(
            "gains of the relevant grades must be non-negative and not all 0, got "
            f"{dict(zip(grades.tolist(), g.tolist()))}"
        )
    return g / g.sum()
