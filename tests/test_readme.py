"""The README: its Quick start and CI run the same commands, its ```python blocks run as written on a CPU and give
the numbers it shows, it stays short, and its links (and those of the docs it sends readers to) lead somewhere."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"
#: the issue's bound (issue 39: a README read in five minutes)
MAX_LINES = 150
#: the files whose relative links are checked: the README and the pages it moved its details to
LINKED_PAGES = ("README.md", "docs/io.md", "docs/evaluation.md", "docs/training.md")


def _quick_start() -> list[str]:
    text = README.read_text(encoding="utf-8")
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


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(README line of the first code line, code) of every ```python block, in order."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def test_python_blocks_are_found_with_their_lines():
    text = "# t\n\n```python\na = 1\n```\n\n```bash\nls\n```\n```python\nb = a + 1\nc = 2\n```\n"
    assert python_blocks(text) == [(4, "a = 1\n"), (11, "b = a + 1\nc = 2\n")]


def run_blocks(blocks: list[tuple[int, str]], filename: str) -> dict:
    """Run the blocks in order in one namespace; a block that raises fails with its README line."""
    namespace: dict = {"__name__": "readme"}
    for line, code in blocks:
        # padded so that a traceback's line numbers are the README's
        compiled = compile("\n" * (line - 1) + code, filename, "exec")
        try:
            exec(compiled, namespace)
        except Exception as error:
            raise AssertionError(f"{filename}: the python block at line {line} raised {error!r}") from error
    return namespace


def test_a_block_that_raises_fails_with_its_line():
    with pytest.raises(AssertionError, match=r"README.md: the python block at line 7 raised NameError"):
        run_blocks([(2, "x = 1\n"), (7, "y = x + undefined\n")], "README.md")


def test_the_readme_has_python_blocks():
    assert len(python_blocks(README.read_text(encoding="utf-8"))) >= 3


@pytest.mark.model
@pytest.mark.slow
def test_readme_python_blocks_run_in_order_and_show_true_numbers(tmp_path, monkeypatch):
    """Every ```python block, in order, in one namespace, in a folder holding only the repository's examples/;
    then the values the README's comments state, as the blocks computed them on this machine's CPU."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    namespace = run_blocks(python_blocks(README.read_text(encoding="utf-8")), str(README))
    table = namespace["table"]  # the KPQA paper's Figure 1: the wrong number
    assert (round(table["ROUGE-L"].iloc[0], 2), round(table["ROUGE-L-KPQA"].iloc[0], 2)) == (0.71, 0.14)
    result = namespace["result"]
    assert len(result.frame) == 9 and not result.errors
    assert {m: round(v, 4) for m, v in result.corpus.items()} == {"BLEU-1-KPQA": 0.4306, "BERTScore-KPQA": 0.7103}
    assert set(result.signatures) == {"BLEU-1-KPQA", "BERTScore-KPQA"}
    judged = namespace["judged"]
    assert judged.frame["KPQA-judge-correct"].tolist() == [0, 1, 1, 0, 1, 1, 0, 0, 1]  # 5 of 9
    assert judged.corpus["KPQA-judge-correct"] == pytest.approx(5 / 9)


def test_the_readme_stays_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines (at most {MAX_LINES}: move details to docs/)"


def _slug(heading: str) -> str:
    """GitHub's anchor of a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _links(page: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", target)]


def test_slug_is_githubs():
    assert _slug("Streaming: memory of a 100,000-row input") == "streaming-memory-of-a-100000-row-input"
    assert _slug("The page of `kpqa report` (issue 40; 2026-11-26)") == "the-page-of-kpqa-report-issue-40-2026-11-26"


@pytest.mark.parametrize("page", LINKED_PAGES)
def test_relative_links_lead_to_files_and_headings(page):
    source = REPO / page
    broken = []
    for target in _links(source):
        path, _, anchor = target.partition("#")
        linked = (source.parent / path).resolve() if path else source
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert _links(source) and not broken, f"{page}: broken links {broken}"
