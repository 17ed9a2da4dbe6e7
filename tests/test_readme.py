"""The README's Quick start and CI run the same commands; its Python snippets run as written on a CPU."""
from __future__ import annotations

import re

import pytest

from conftest import REPO


def _quick_start() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_second():
    commands = _quick_start()
    assert len(commands) == 2
    assert "kpqa score examples/sample.csv" in commands[0]
    assert "pytest" in commands[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_both_commands_install_cpu_torch_first():
    for command in _quick_start():
        assert command.index("pip install torch==2.13.0") < command.index("pip install -e")


def _snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)


def test_the_readme_has_a_python_snippet():
    assert _snippets()


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize("number", range(len(_snippets())))
def test_readme_python_snippet_runs_as_written(number, monkeypatch):
    """Each block runs from the repository root (the README's relative paths), nothing defined beforehand."""
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(_snippets()[number], f"README.md python block {number + 1}", "exec"), namespace)
    if "scorer" in namespace:  # the Scorer part: every sample row scored on this machine's CPU
        result = namespace["result"]
        assert len(result.frame) == 9 and not result.errors
        assert set(result.corpus) == {"BLEU-1-KPQA", "BERTScore-KPQA"}
