"""Claims of docs/architecture.md that a test can check."""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kpqa.rows import Rows

PACKAGE = Path(__file__).resolve().parents[1] / "kpqa"

#: the stages of docs/architecture.md's diagram, top (imported by every later one) to bottom; a module belongs to
#: the stage with the longest prefix of its name
STAGES: list[tuple[str, tuple[str, ...]]] = [
    ("rows, text, settings", ("kpqa.version", "kpqa.errors", "kpqa.types", "kpqa.optional", "kpqa.rows",
                              "kpqa.stopwords", "kpqa.text", "kpqa.context", "kpqa.signature", "kpqa.input",
                              "kpqa.output")),
    ("weights", ("kpqa.models", "kpqa.checkpoints")),
    ("statistics, scores", ("kpqa.metrics",)),
    ("decisions", ("kpqa.calibration",)),
    ("report", ("kpqa.scoring", "kpqa.stream", "kpqa.parallel")),
    ("labelled files", ("kpqa.calibration.labelled",)),
    ("meta-evaluation", ("kpqa.meta", "kpqa.binary", "kpqa.metaeval", "kpqa.plots", "kpqa.svgcharts",
                         "kpqa.annotation")),
    ("top", ("kpqa.cli", "kpqa.__main__", "kpqa.explain", "kpqa.htmlreport", "kpqa.hf_evaluate", "kpqa.train",
             "kpqa")),
]


def _stage(module: str) -> int:
    matches = [(len(p), k) for k, (_, prefixes) in enumerate(STAGES) for p in prefixes
               if module == p or module.startswith(p + ".")]
    if not matches:
        raise AssertionError(f"{module} is in no stage of docs/architecture.md")
    return max(matches)[1]


def test_a_module_belongs_to_its_longest_prefix():
    assert STAGES[_stage("kpqa.calibration.labelled")][0] == "labelled files"
    assert STAGES[_stage("kpqa.calibration.apply")][0] == "decisions"
    assert STAGES[_stage("kpqa.cli")][0] == "top"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    """The kpqa modules ``path`` imports at run time (at the top or inside a function; not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            submodules = {f"{node.module}.{a.name}" for a in node.names} & known
            found |= submodules | ({node.module} if len(submodules) < len(node.names) else set())
    return {m for m in found if m == "kpqa" or m.startswith("kpqa.")}


def test_every_module_is_in_a_stage():
    for module in _modules():
        _stage(module)


def test_imports_run_only_down_the_stages():
    modules = _modules()
    up = [f"{module} ({STAGES[_stage(module)][0]}) imports {target} ({STAGES[_stage(target)][0]})"
          for module, path in modules.items() for target in sorted(_imports(path, set(modules)))
          if target != "kpqa.train.cli" and _stage(target) > _stage(module)]
    assert up == []


def test_the_stage_check_sees_a_lazy_import_up_the_page(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kpqa.cli import main\n"
                      "def f():\n    from kpqa import scoring\n")
    assert _imports(source, {"kpqa.scoring"}) == {"kpqa.scoring"}


@pytest.mark.parametrize("library", ["torch", "transformers"])
def test_model_libraries_are_imported_only_in_models(library):
    modules = _modules()
    outside = [m for m, path in modules.items() if not m.startswith(("kpqa.models", "kpqa.train"))
               and any(n == library or n.startswith(library + ".") for n in _all_imports(path))]
    assert outside == []


def _all_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def _loaded(module: str) -> list[str]:
    code = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_lexical_metrics_load_neither_pandas_nor_torch():
    loaded = _loaded("kpqa.metrics.ngrams")
    assert "pandas" not in loaded and "torch" not in loaded
    assert len([m for m in loaded if m == "kpqa" or m.startswith("kpqa.")]) == 11  # the figure the page gives


@pytest.mark.parametrize("module", ["kpqa.calibration", "kpqa.scoring", "kpqa.cli"])
def test_importing_needs_no_torch(module):
    assert "torch" not in _loaded(module)


def test_models_belong_to_the_scorer_that_loaded_them():
    """No module keeps a model: once the scorer goes, so does its encoder; its metrics share one encoder."""
    import gc
    import weakref

    from kpqa.models.encoder import Encoder
    from kpqa.scoring import Scorer

    scorer = Scorer(["BERTScore", "BERTScore-P", "BERTScore:layer=5"], device="cpu")
    scorer.score_rows(Rows(["q"], ["a cat"], [["the cat", "a dog"]]))
    (encoder,) = list(scorer.models)
    assert isinstance(encoder, Encoder) and len(encoder._cache) == 6  # 3 texts, each at layers 6 and 5
    scorer.models.clear_caches()
    assert len(encoder._cache) == 0
    gone = weakref.ref(encoder)
    del scorer, encoder
    gc.collect()
    assert gone() is None


ERRORS = {"KpqaError", "InputError", "UsageError", "CheckpointError", "CalibrationError", "KpqaWarning", "warn"}


def _error_texts(path: Path) -> list[str]:
    """The string parts of every error or warning ``path`` builds."""
    texts = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in ERRORS:
            texts += [n.value for arg in node.args for n in ast.walk(arg)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return texts


def test_library_messages_name_parameters_not_flags():
    """Only the CLI speaks in flags (docs/architecture.md, "Errors and flags")."""
    flag = re.compile(r"(^|[\s(`/])--[a-z]")
    found = {m: [t for t in _error_texts(path) if flag.search(t)] for m, path in _modules().items()
             if m not in ("kpqa.cli", "kpqa.train") and not m.startswith("kpqa.train.")}
    assert {m: t for m, t in found.items() if t} == {}
    assert any(flag.search(t) for t in _error_texts(PACKAGE / "cli.py"))  # the check sees a flag where there is one


def test_the_modules_block_lists_every_module_once():
    """docs/architecture.md's Modules block: one line per module of kpqa/ and train/, nothing that is not there."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("## Modules", 1)[1].split("```")[1]
    listed, folders = [], {0: ""}  # the folder at each depth of indentation
    for line in block.splitlines():
        if not line.strip() or line.startswith(" " * 6):  # blank, or a description carried over
            continue
        depth = (len(line) - len(line.lstrip())) // 2
        name = line.split()[0]
        if name.endswith("/"):
            folders[depth + 1] = folders[depth] + name
            continue
        for part in line.strip().split("   ")[0].split(","):  # "squad.py, hotpotqa.py, ...   converters"
            if part.strip().endswith(".py"):
                listed.append(folders[depth] + part.strip())
    root = PACKAGE.parent
    actual = sorted(str(p.relative_to(root)) for d in ("kpqa", "train") for p in (root / d).rglob("*.py")
                    if p.name != "__init__.py" or p.parent.name in ("kpqa", "metrics", "models", "metaeval", "calibration"))
    assert sorted(listed) == actual
