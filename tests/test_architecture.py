"""The claims of docs/architecture.md, checked over every module of kpqa/ and train/ (installed as kpqa.train), and
the data package checkpoints/ (kpqa.checkpoints).

The stages and the module list are read from the page itself (its "Stages" and "Modules" tables), so a claim made
false there, or in the code, fails here.
"""
from __future__ import annotations

import ast
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kpqa.rows import Rows

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kpqa"
PAGE = ROOT / "docs" / "architecture.md"
#: the source folders and the import name each is installed under
SOURCES = {"kpqa": "kpqa", "train": "kpqa.train", "checkpoints": "kpqa.checkpoints"}


def _module_name(path: Path) -> str:
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    parts = [*SOURCES[folder].split("."), *parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """Every module of kpqa/, train/ and checkpoints/ by its import name."""
    return {_module_name(p): p for folder in SOURCES for p in sorted((ROOT / folder).rglob("*.py"))}


MODULES = _modules()
#: the library: kpqa/ but the CLI (training is beside it)
LIBRARY = {m: p for m, p in MODULES.items() if m != "kpqa.cli" and not m.startswith(("kpqa.cli.", "kpqa.train"))}
#: the command line: one module a subcommand (kpqa/cli/)
CLI = {m: p for m, p in MODULES.items() if m == "kpqa.cli" or m.startswith("kpqa.cli.")}


def _section(title: str, page: str | None = None) -> str:
    text = PAGE.read_text(encoding="utf-8") if page is None else page
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _table(section: str) -> list[list[str]]:
    """The body rows of the first Markdown table of ``section``, as cells."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows[2:]]


# ---------------------------------------------------------------------------------------------------- stages


def _stages(page: str | None = None) -> tuple[list[tuple[str, list[str]]], tuple[list[str], int]]:
    """The page's Stages table: the numbered stages in order (name, module patterns) and the one beside them
    (its patterns, the last stage it may import)."""
    stages, beside = [], None
    for number, name, modules, _ in _table(_section("Stages", page)):
        patterns = re.findall(r"`([\w.*]+)`", modules)
        if number.startswith("beside"):
            beside = (patterns, int(number.split("-")[-1]))
        else:
            assert int(number) == len(stages) + 1, f"stage {number} out of order"
            stages.append((name, patterns))
    assert beside is not None, "the Stages table has no 'beside' row"
    return stages, beside


STAGES, (BESIDE, BESIDE_UP_TO) = _stages()
BESIDE_STAGE = len(STAGES)  # the index _stage gives kpqa.train.*


def _matches(pattern: str, module: str) -> int:
    """How well ``pattern`` names ``module``: 2 by its own name, 1 as its package's ``name.*``, 0 not at all."""
    if pattern.endswith(".*"):
        package = pattern[:-2]
        return 1 if module == package or module.startswith(package + ".") else 0
    return 2 if module == pattern else 0


def _stage(module: str) -> int:
    """The index of ``module``'s stage in STAGES (BESIDE_STAGE for training): its own name wins over a package's."""
    named = [(_matches(p, module), k) for k, (_, patterns) in enumerate([*STAGES, ("beside", BESIDE)])
             for p in patterns if _matches(p, module)]
    if not named:
        raise AssertionError(f"{module} is in no stage of docs/architecture.md")
    best = max(score for score, _ in named)
    stages = {k for score, k in named if score == best}
    assert len(stages) == 1, f"{module} is in more than one stage: {stages}"
    return stages.pop()


def test_the_stages_table_reads_as_the_page_says():
    assert [name for name, _ in STAGES][:4] == ["rows, text, settings", "weights", "statistics, scores", "decisions"]
    assert STAGES[_stage("kpqa.labelled")][0] == "labelled files"
    assert STAGES[_stage("kpqa.calibration.apply")][0] == "decisions"
    assert STAGES[_stage("kpqa.calibration")][0] == "decisions"
    assert STAGES[_stage("kpqa.cli")][0] == "top"
    assert _stage("kpqa.train.equivalence") == BESIDE_STAGE and BESIDE_UP_TO == 3
    with pytest.raises(AssertionError, match="in no stage"):
        _stage("kpqa.newmodule")  # the package's own name does not take in a module nobody placed


def test_every_module_is_in_one_stage_and_every_stage_name_exists():
    for module in MODULES:
        _stage(module)
    for _, patterns in [*STAGES, ("beside", BESIDE)]:
        for pattern in patterns:
            assert any(_matches(pattern, m) for m in MODULES), f"the Stages table names {pattern}: no such module"


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _guarded(tree: ast.AST, typing: bool = False) -> set[int]:
    """The nodes under ``if __name__ == "__main__":`` and (unless ``typing``) ``if TYPE_CHECKING:``."""
    guards = [node for node in ast.walk(tree) if isinstance(node, ast.If)
              and ((not typing and "TYPE_CHECKING" in ast.unparse(node.test)) or "__main__" in ast.unparse(node.test))]
    return {id(n) for guard in guards for n in ast.walk(guard)}


def _imports(path: Path, known: set[str], module: str = "", typing: bool = False) -> set[str]:
    """The kpqa modules ``path`` (the module ``module``) imports at run time: at the top or inside a function,
    relative imports resolved; not in a ``__main__`` block nor (unless ``typing``) under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = _guarded(tree, typing)
    found = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package(module, path).split(".")
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            submodules = {f"{base}.{a.name}" for a in node.names} & known
            found |= submodules | ({base} if len(submodules) < len(node.names) else set())
    return {m for m in found if m == "kpqa" or m.startswith("kpqa.")}


def test_the_import_scan_sees_lazy_and_relative_imports_not_guarded_ones(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kpqa.cli import main\n"
                      "def f():\n    from kpqa import scoring\n"
                      "from . import forms\nfrom .sources import read_json\n"
                      "if __name__ == '__main__':\n    from kpqa.cli import main\n")
    known = {"kpqa.scoring", "kpqa.train.forms", "kpqa.train.sources"}
    assert _imports(source, known, "kpqa.train.m") == known


def _import_edges() -> list[tuple[str, str]]:
    return [(module, target) for module, path in MODULES.items()
            for target in sorted(_imports(path, set(MODULES), module))]


def test_imports_run_only_down_the_stages():
    """A module of stage k imports kpqa modules of stages 1..k only."""
    up = [f"{module} ({STAGES[_stage(module)][0]}) imports {target} ({STAGES[_stage(target)][0]})"
          for module, target in _import_edges()
          if _stage(module) != BESIDE_STAGE and _stage(target) != BESIDE_STAGE and _stage(target) > _stage(module)]
    assert up == []


def _cycles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The import cycles of ``edges``: every strongly connected set of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while not part or part[-1] != v:
                part.append(stack.pop())
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_kpqa():
    """No two kpqa modules import each other, directly or through others (the scorer and the stream did)."""
    assert _cycles([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]  # the scan sees one
    assert _cycles([(a, b) for a, b in _import_edges() if not a.startswith("kpqa.train")]) == []


def test_no_import_cycle_in_kpqa_and_train_with_the_typing_imports():
    """Issue 61: no circle either when the imports under TYPE_CHECKING count (calibration/fitness.py and model.py
    imported each other so) nor through the trainers (train/equivalence/cli.py read its package's docstring)."""
    edges = [(module, target) for module, path in MODULES.items()
             for target in sorted(_imports(path, set(MODULES), module, typing=True))]
    assert _cycles(edges) == []


def test_training_imports_only_the_first_stages_and_nothing_imports_training():
    edges = _import_edges()
    beside = [(m, t) for m, t in edges if _stage(m) == BESIDE_STAGE]
    assert beside, "the scan found no import in train/"
    too_far = [f"{m} imports {t}" for m, t in beside if _stage(t) != BESIDE_STAGE and _stage(t) >= BESIDE_UP_TO]
    assert too_far == []
    into = [f"{m} imports {t}" for m, t in edges if _stage(m) != BESIDE_STAGE and _stage(t) == BESIDE_STAGE]
    assert into == []


#: the most lines a module of the command line may have: it parses flags and calls the library, no more
MAX_CLI_LINES = 300


def test_the_cli_is_one_small_module_a_subcommand():
    """kpqa/cli/: no module over MAX_CLI_LINES lines, and every subcommand in SUBCOMMANDS is one module's ``add``."""
    from kpqa import cli

    long = {m: n for m, p in CLI.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_CLI_LINES}
    assert long == {}
    assert {add.__module__ for add in cli.SUBCOMMANDS} == set(CLI) - {"kpqa.cli", "kpqa.cli.__main__",
                                                                        "kpqa.cli.common"}
    assert all(add.__name__ == "add" for add in cli.SUBCOMMANDS)


def test_the_cli_reaches_training_by_module_name():
    from kpqa.cli import TRAINERS

    names = [module for _, _, module in TRAINERS.values()]
    assert names == ["kpqa.train.cli", "kpqa.train.equivalence"]
    for name in names:
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))  # defined there, or a package's name for it
        assert "main" in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} | {
            a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}


# ---------------------------------------------------------------------------------------------------- torch


def _all_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}


#: where the page says torch and transformers are imported
MODEL_LIBRARY_HOMES = ("kpqa.models", "kpqa.train.trainer", "kpqa.train.equivalence", "kpqa.train.loop",
                       "kpqa.train.skeleton")


@pytest.mark.parametrize("library", ["torch", "transformers"])
def test_model_libraries_are_imported_only_in_models_and_the_trainers(library):
    importing = {m for m, path in MODULES.items()
                 if any(n == library or n.startswith(library + ".") for n in _all_imports(path))}
    assert {m for m in importing if not m.startswith(MODEL_LIBRARY_HOMES)} == set()
    # the scan sees an import where there is one (transformers: the loader and train/loop.py's schedule)
    assert importing & {"kpqa.models.weighter", "kpqa.models.loader"} and importing & {"kpqa.train.trainer",
                                                                                        "kpqa.train.loop"}


def _loaded(module: str) -> list[str]:
    code = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_lexical_metrics_load_neither_pandas_nor_torch():
    loaded = _loaded("kpqa.metrics.ngrams")
    assert "pandas" not in loaded and "torch" not in loaded
    assert len([m for m in loaded if m == "kpqa" or m.startswith("kpqa.")]) == 13  # the figure the page gives


@pytest.mark.parametrize("module", ["kpqa.scoring", "kpqa.stream", "kpqa.calibration", "kpqa.metaeval", "kpqa.cli"])
def test_importing_needs_no_torch(module):
    assert "torch" not in _loaded(module)


# ---------------------------------------------------------------------------------------------------- rooms


def test_a_calibration_knows_nothing_of_how_scores_were_computed():
    reads = {t for m, path in MODULES.items() if _matches("kpqa.calibration.*", m)
             for t in _imports(path, set(MODULES), m)}
    assert {t for t in reads if t.startswith(("kpqa.metrics", "kpqa.scoring", "kpqa.stream"))} == set()
    assert {t for t in reads if t.startswith("kpqa.models")} == {"kpqa.models.shipped"}


def _calls(path: Path) -> list[str]:
    """Every call of ``path`` as the name or attribute called (``Decisions.of`` -> ``Decisions.of``, ``x.prob``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else ""
                out.append(f"{owner}.{func.attr}")
            elif isinstance(func, ast.Name):
                out.append(func.id)
    return out


def test_scores_become_decisions_in_one_place():
    outside = {m: _calls(path) for m, path in MODULES.items() if not _matches("kpqa.calibration.*", m)}
    assert {m for m, calls in outside.items() if any(c.endswith(".prob") or c.endswith("with_prior")
                                                     for c in calls)} == set()
    assert {m for m, calls in outside.items() if "Decisions.of" in calls} <= {"kpqa.scoring", "kpqa.metaeval.report"}


def test_outside_the_models_a_weighter_is_its_protocol():
    from kpqa.context import KeyphraseWeighter

    members = {n for n in dir(KeyphraseWeighter) if not n.startswith("_")} | set(KeyphraseWeighter.__annotations__)
    read = {}
    for m, path in MODULES.items():
        if m.startswith("kpqa.models") or m.startswith("kpqa.train"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                owner = node.value
                name = (owner.id if isinstance(owner, ast.Name)
                        else owner.attr if isinstance(owner, ast.Attribute) else "")
                if name == "weighter":
                    read.setdefault(node.attr, set()).add(m)
    assert {"piece_weights", "checkpoint_hash"} <= set(read)  # the scan sees the reads there are
    assert {a: sorted(ms) for a, ms in read.items() if a not in members} == {}


def test_the_scorer_is_under_200_lines():
    tree = ast.parse(MODULES["kpqa.scoring"].read_text(encoding="utf-8"))
    (scorer,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Scorer"]
    assert scorer.end_lineno - scorer.lineno + 1 < 200  # type: ignore[operator]


@pytest.mark.model
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


# ---------------------------------------------------------------------------------------------------- defaults

#: parameters whose default is a run default of kpqa/context.py
RUN_DEFAULT_PARAMETERS = {"tokenize", "device", "batch_size", "precision", "function_word_weight", "on_error"}
#: the literal defaults the page lists under "Run defaults" as not yet read from kpqa/context.py
LITERAL_DEFAULTS = {
    ("kpqa.explain", "explain", "tokenize"), ("kpqa.explain", "weigh", "tokenize"),
    ("kpqa.htmlreport", "weigh_rows", "tokenize"), ("kpqa.models.device", "amp_dtype", "precision"),
    ("kpqa.models.encoder", "Encoder.__init__", "device"), ("kpqa.models.encoder", "Encoder.__init__", "precision"),
    ("kpqa.input", "frame_to_table", "on_error"), ("kpqa.input", "read_input", "on_error"),
    ("kpqa.input", "iter_input", "on_error"), ("kpqa.scoring", "Scorer.__init__", "on_error"),
}


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of ``tree`` with its qualified name (``Class.method``, ``outer.inner``)."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _literal_defaults(module: str, path: Path) -> set[tuple[str, str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for name, fn in _functions(tree):
        args = fn.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        found |= {(module, name, a.arg) for a, d in pairs
                  if a.arg in RUN_DEFAULT_PARAMETERS and isinstance(d, ast.Constant) and d.value is not None}
    for node in ast.walk(tree):  # a dataclass field
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id in RUN_DEFAULT_PARAMETERS and isinstance(node.value, ast.Constant)):
            found.add((module, "field", node.target.id))
    return found


def test_run_defaults_are_read_from_the_context():
    """Outside kpqa/context.py (and kpqa/text.py's DEFAULT_TOKENIZER) a run default is named, not written, but for
    the list the page gives; training keeps its own."""
    found = {d for m, path in MODULES.items()
             if m not in ("kpqa.context", "kpqa.text") and not m.startswith("kpqa.train")
             for d in _literal_defaults(m, path)}
    assert found == LITERAL_DEFAULTS, "update docs/architecture.md's Run defaults and LITERAL_DEFAULTS together"
    section = _section("Run defaults")
    for module, function, _ in LITERAL_DEFAULTS:
        assert f"{module.removeprefix('kpqa.')}.{function}" in section


def test_the_defaults_scan_sees_a_literal(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("class S:\n    def __init__(self, device: str = 'cpu', batch_size: int = B):\n        pass\n")
    assert _literal_defaults("m", source) == {("m", "S.__init__", "device")}


# ---------------------------------------------------------------------------------------------------- errors

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
    found = {m: [t for t in _error_texts(path) if flag.search(t)] for m, path in LIBRARY.items()}
    assert {m: t for m, t in found.items() if t} == {}
    assert any(flag.search(t) for path in CLI.values() for t in _error_texts(path))  # it sees a flag where one is


#: library error texts that say a parameter in plain words: the page's "Not yet" under "Errors and flags"
PLAIN_PARAMETERS = {
    ("kpqa.models.encoder", "batch size must be a positive integer, got "),
    ("kpqa.scoring", "no metric named (metrics is empty)"),
    ("kpqa.scoring", "questions, candidates and references must have the same length"),
}


def _api_parameters() -> set[str]:
    from kpqa.calibration import fit
    from kpqa.scoring import Scorer, score

    return {p for f in (Scorer.__init__, score, fit) for p in inspect.signature(f).parameters
            if p not in ("self", "options")}


def test_library_errors_name_parameters_as_params():
    words = "|".join(p.replace("_", "[_ ]") for p in sorted(_api_parameters()))
    plain = re.compile(rf"(^|[\s(`'])({words})( must| is |=)")
    found = {(m, t) for m, path in LIBRARY.items() for t in _error_texts(path) if plain.search(t)}
    assert found <= PLAIN_PARAMETERS, "update docs/architecture.md's Errors and flags and PLAIN_PARAMETERS together"
    assert plain.search("prior must be between 0 and 1")  # what the check looks for


# ---------------------------------------------------------------------------------------------------- the page


def _listed_files(page: str | None = None) -> list[str]:
    rows = _table(_section("Modules", page))
    assert all(len(row) == 2 and row[1] for row in rows), "every file of the Modules table has its job"
    return [row[0].strip("`") for row in rows]


def test_the_modules_table_lists_every_module_once():
    """docs/architecture.md's Modules table: one row per .py file of kpqa/ and train/, nothing that is not there."""
    listed = _listed_files()
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(str(p.relative_to(ROOT)) for p in MODULES.values())


def test_a_file_listed_that_is_not_there_is_seen():
    page = PAGE.read_text(encoding="utf-8")
    listed = page.replace("| `kpqa/types.py` |", "| `kpqa/ghost.py` | not there |\n| `kpqa/types.py` |")
    assert "kpqa/ghost.py" in _listed_files(listed)
    assert sorted(_listed_files(listed)) != sorted(str(p.relative_to(ROOT)) for p in MODULES.values())


# ---------------------------------------------------------------------------------------------------- functions

#: functions of kpqa/ and train/ over MAX_FUNCTION_LINES, each with the reason the page gives ("Long functions")
LONG_FUNCTIONS = {
    ("kpqa.plots", "weight_heatmap"): "one matplotlib figure laid out in pixels: measuring, placing and drawing share "
                                      "a dozen sizes",
    ("kpqa.train.cli", "build_parser"): "declarations only: one add_argument per flag of kpqa train",
    ("kpqa.train.contrastive.build", "Builder._question_rows"): "one question's answers drawn from one seeded generator: "
                                                          "the order of the draws is the generated data",
    ("kpqa.train.trainer", "_setup"): "data, model, loaders, optimizer and schedule in the order accelerate prepares "
                                      "them, then the metadata that records them",
}
MAX_FUNCTION_LINES = 60


def test_no_function_is_over_60_lines_but_those_the_page_lists():
    long = {(m, name) for m, path in MODULES.items()
            for name, fn in _functions(ast.parse(path.read_text(encoding="utf-8")))
            if fn.end_lineno - fn.lineno + 1 > MAX_FUNCTION_LINES}  # type: ignore[operator]
    assert long <= set(LONG_FUNCTIONS), "update docs/architecture.md's Long functions and LONG_FUNCTIONS together"
    section = _section("Long functions")
    for module, name in LONG_FUNCTIONS:
        assert f"`{name}`" in section


#: the most lines a module of kpqa/ may have without a reason on the page ("Long modules")
MAX_MODULE_LINES = 450


def test_no_module_of_kpqa_or_train_is_over_450_lines_without_its_reason_on_the_page():
    listed = {row[0].strip("`") for row in _table(_section("Long modules"))}
    long = {str(path.relative_to(ROOT)) for m, path in MODULES.items() if m.startswith("kpqa") and
            not m.startswith("kpqa.checkpoints") and
            len(path.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES}
    assert {"kpqa/scoring.py", "train/trainer.py"} <= long  # the scan sees the long ones there are, train/ too
    assert long <= listed, "give each its reason in docs/architecture.md's Long modules"


def test_no_experiment_or_benchmark_imports_a_test():
    """Issue 61: research reads the tests' data files (the CI swap test's rows: tests/data/key_fact_swaps.json),
    never imports a test module."""
    importing = []
    for path in sorted([*(ROOT / "experiments").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            importing += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if n.split(".")[0].startswith(("test_", "conftest"))]
    assert importing == []


def test_no_experiment_imports_another():
    """Issue 61: an experiment stands alone; what two share is a helper beside them (experiments/judging.py) or the
    research generators' package (experiments.generators), never another experiment. Planted: judge_checks.py
    importing judge_cv fails here."""
    helpers = {"judging"}
    experiments = {p.stem for p in (ROOT / "experiments").glob("*.py")} - helpers
    assert {"judge_cv", "judge_checks"} <= experiments  # the scan sees the experiments there are
    importing = []
    for path in sorted((ROOT / "experiments").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            importing += [f"{path.relative_to(ROOT)}: {n}" for n in names
                          if n.split(".")[0] in experiments or n.startswith("experiments.") and
                          n.split(".")[1] in experiments]
    assert importing == []


def test_every_name_research_and_tools_take_from_kpqa_is_there():
    """A rename in kpqa/ reaches experiments/, benchmarks/ and scripts/, which no other test imports: every
    ``from kpqa... import name`` there names a module or an attribute that exists. Found broken when written:
    judge_cv.py and judging.py took ``WRONG_SUFFIX`` (gone to kpqa.roles), bench_score.py ``bertscore.align``
    (gone to kpqa.models.alignment.max_overlap)."""
    import importlib

    missing = []
    paths = [*(ROOT / "experiments").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"), *(ROOT / "scripts").glob("*.py")]
    assert len(paths) > 20  # the scan sees the files there are
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "kpqa"):
                continue
            module = importlib.import_module(node.module)  # type: ignore[arg-type]
            missing += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                        if not hasattr(module, a.name) and importlib.util.find_spec(f"{node.module}.{a.name}") is None]
    assert missing == []
