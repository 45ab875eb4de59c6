"""Type aliases of pdireval's public signatures (for annotations; nothing here runs).

``RngLike`` is what every ``rng=`` accepts (the one policy: :func:`pdireval.errors.check_rng`;
None, the default everywhere, is fresh entropy), ``Columns`` what every ``columns=`` accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import numpy as np

__all__ = ["RngLike", "Columns", "Alternative", "TiedPairs", "NegativeComponents"]

#: None (fresh entropy), a non-negative int seed, a SeedSequence or a Generator.
RngLike = int | np.random.SeedSequence | np.random.Generator | None
#: ``{canonical column name: your column name}``, or None.
Columns = Mapping[str, str] | None
#: scipy's ``alternative=``.
Alternative = Literal["two-sided", "greater", "less"]
#: How a statistic treats pairs tied in a ranking.
TiedPairs = Literal["keep", "drop"]
#: What to do with negative variance-component estimates.
NegativeComponents = Literal["clip", "keep"]
