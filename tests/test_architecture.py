"""Claims of docs/architecture.md that a test can check."""
from __future__ import annotations

import json
import subprocess
import sys


def _loaded(module: str) -> list[str]:
    code = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_lexical_metrics_load_neither_pandas_nor_torch():
    loaded = _loaded("kpqa.metrics.ngrams")
    assert "pandas" not in loaded and "torch" not in loaded
    assert len([m for m in loaded if m == "kpqa" or m.startswith("kpqa.")]) == 11  # the figure the page gives


def test_calibration_needs_no_torch():
    assert "torch" not in _loaded("kpqa.calibration")
