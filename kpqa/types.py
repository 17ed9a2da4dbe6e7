"""Type aliases shared across the package (no runtime behaviour)."""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

#: a 1-d run of numbers: a list, a tuple or a numpy array
Floats = Union[Sequence[float], np.ndarray]
