"""pyproject.toml's package list names every package folder, so a wheel (a non-editable install) holds them all."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def _packages(folder: Path, name: str) -> set[str]:
    """The dotted names of ``folder`` and every folder under it with an ``__init__.py``."""
    return {".".join([name, *init.parent.relative_to(folder).parts]) for init in folder.rglob("__init__.py")}


def test_every_package_folder_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = _packages(ROOT / "kpqa", "kpqa")
    for name, folder in config["package-dir"].items():
        found |= _packages(ROOT / folder, name)
    assert "kpqa.calibration" in found and "kpqa.train" in found  # the walk sees packages at both depths
    assert found - listed == set(), "add them to [tool.setuptools] packages in pyproject.toml"


def test_the_wheel_holds_the_checkpoints_the_library_loads_and_no_candidate():
    """checkpoints/ (the wheel's kpqa.checkpoints) holds exactly the checkpoint folders the library names (the
    weighters by name, the Equivalence metric's model); the candidates measured but not shipped are research, in
    experiments/checkpoints/, which no package includes."""
    from kpqa.models import shipped
    from kpqa.models.equivalence import SHIPPED

    used = {name for pair in shipped.NAMES.values() for name in pair} | {SHIPPED}
    folders = {p.name for p in (ROOT / "checkpoints").iterdir() if (p / "metadata.json").exists()}
    assert folders == used
    candidates = {p.name for p in (ROOT / "experiments" / "checkpoints").iterdir() if (p / "metadata.json").exists()}
    assert "equivalence-mixed" in candidates and not candidates & used
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert not any(package.startswith("experiments") for package in config["packages"])
