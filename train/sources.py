"""``load_source("name:PATH")`` / ``load_source("name:hub[:split]")``: training examples for the keyphrase weighter
from SQuAD and the sets in its layout (SQuADShifts, PolicyQA, COVID-QA), ConditionalQA, HotpotQA or MS-MARCO, in
their official JSON layouts or through the ``datasets`` library. ``name@N:PATH`` keeps a seeded sample of N of the
source's examples (a budget per source); ``name@choice:PATH`` keeps only its choice-question examples
(:func:`kpqa.train.examples.is_choice_question`), to add those of a source whose whole is not wanted."""
from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from kpqa.errors import InputError

from . import conditionalqa, hotpotqa, msmarco, squad
from .examples import TaggedExample, is_choice_question


@dataclass(frozen=True)
class Source:
    """How one source is read: from its JSON file, from hub rows, and converted; plus where the hub keeps it."""

    from_json: Callable[[Any, str], Iterable[Any]]
    from_rows: Callable[[Iterable[dict[str, Any]], str], Iterable[Any]]
    convert: Callable[[Iterable[Any], Counter], Iterator[TaggedExample]]
    hub: tuple[str, ...]
    jsonl: bool = False


SOURCES: dict[str, Source] = {
    "squad": Source(squad.records_from_json, squad.records_from_rows, squad.convert, hub=("squad",)),
    "squadshifts": Source(squad.records_from_json, squad.records_from_rows, squad.converter("squadshifts"),
                          hub=("squadshifts", "new_wiki")),
    "policyqa": Source(squad.records_from_json, squad.records_from_rows, squad.converter("policyqa"), hub=()),
    "covidqa": Source(squad.records_from_json, squad.records_from_rows, squad.converter("covidqa"),
                      hub=("covid_qa_deepset",)),
    "conditionalqa": Source(conditionalqa.records_from_json, conditionalqa.records_from_rows, conditionalqa.convert,
                            hub=()),
    "hotpotqa": Source(hotpotqa.records_from_json, hotpotqa.records_from_rows, hotpotqa.convert,
                       hub=("hotpot_qa", "distractor")),
    "msmarco": Source(msmarco.records_from_json, msmarco.records_from_rows, msmarco.convert, hub=("ms_marco", "v2.1"),
                      jsonl=True),
}


def _source(name: str) -> Source:
    if name not in SOURCES:
        raise InputError(f"unknown training source {name!r}; known: {', '.join(sorted(SOURCES))}")
    return SOURCES[name]


def read_json(path: str | Path, *, jsonl: bool = False) -> Any:
    """A JSON file (gzip-compressed or not); with ``jsonl``, a file of one JSON object a line is read as a list."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read: {error}", file=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        if not jsonl:
            raise InputError(f"not JSON: {error}", file=str(path)) from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise InputError(f"line {number} is not JSON: {error}", file=str(path)) from None
    return records


def _reading(records: Iterable[Any], label: str) -> Iterator[Any]:
    """``records`` through a progress bar of records read (on a terminal only: tqdm hides it elsewhere; its
    drawing is throttled to ten a second, so it costs nothing measurable)."""
    from tqdm.auto import tqdm

    with tqdm(records, desc=f"reading {label}", unit=" records", disable=None, dynamic_ncols=True) as bar:
        yield from bar


def read_records(name: str, where: str | Path) -> Iterator[Any]:
    """The records of source ``name`` (:data:`SOURCES`) as its reader gives them, before any conversion: from
    ``where``, a file in the source's official layout, or ``hub[:SPLIT]`` (the datasets hub). What
    :func:`load_source` converts into examples, and what the contrastive answers (:mod:`kpqa.train.contrastive`)
    read."""
    source = _source(name)
    if str(where) == "hub" or str(where).startswith("hub:"):
        split = str(where)[4:] or "train"
        label = f"{name}:hub:{split}"
        return _reading(source.from_rows(load_hub(name, split), label), label)
    data = read_json(where, jsonl=source.jsonl)
    return _reading(source.from_json(data, str(where)), f"{name}:{Path(where).name}")


def examples_from_rows(name: str, rows: Iterable[dict[str, Any]], label: str | None = None
                       ) -> tuple[list[TaggedExample], Counter]:
    """Examples from rows in the hub dataset's layout (a ``datasets.Dataset`` or any iterable of dicts)."""
    source = _source(name)
    counts: Counter = Counter()
    label = label or f"{name} dataset"
    return list(source.convert(_reading(source.from_rows(rows, label), label), counts)), counts


def load_hub(name: str, split: str = "train") -> Any:
    """The source's dataset from the hub (``datasets.load_dataset``); needs network or a filled ``datasets`` cache."""
    hub = _source(name).hub
    if not hub:
        raise InputError(f"{name} has no datasets-hub route here; give its JSON file (NAME:PATH)")
    import datasets

    try:
        return datasets.load_dataset(*hub, split=split)
    except Exception as error:  # datasets raises many kinds (connection, missing split, missing config)
        raise InputError(f"cannot load {'/'.join(hub)} split {split!r} with datasets: {error}") from None


def load_source(spec: str) -> tuple[list[TaggedExample], Counter]:
    """Examples from ``name[@N]:PATH`` or ``name[@N]:hub[:split]`` (names: :data:`SOURCES`) and their counts; with
    ``@N``, a seeded sample of N of them in source order (``counts["over the @N budget"]`` the rest); with
    ``@choice``, only the choice-question examples (``counts["not a choice question"]`` the rest)."""
    name, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise InputError(f"training source {spec!r} should be NAME[@N]:PATH or NAME[@N]:hub[:SPLIT]")
    name, at, budget = name.partition("@")
    if at and budget != "choice" and not (budget.isdigit() and int(budget) > 0):
        raise InputError(f"training source {spec!r}: @N must be a positive number of examples or 'choice', "
                         f"got {budget!r}")
    counts: Counter = Counter()
    examples = list(_source(name).convert(read_records(name, rest), counts))
    if budget == "choice":
        chosen = [e for e in examples if is_choice_question(e)]
        counts["not a choice question"] = len(examples) - len(chosen)
        return chosen, counts
    if at and len(examples) > int(budget):
        keep = sorted(random.Random(f"{name}@{budget}").sample(range(len(examples)), int(budget)))
        counts["over the @N budget"] = len(examples) - len(keep)
        examples = [examples[i] for i in keep]
    return examples, counts


def load_examples(specs: Sequence[str], exclude: Sequence[str] = ()) -> tuple[list[TaggedExample], list[dict]]:
    """All examples of the ``--data`` specs and, per spec, the converter's kept/skipped counts; an example given by
    two specs (``squad@30000:F`` and ``squad@choice:F``) is kept once, where it first comes. An example whose
    question is one of the questions of the ``exclude`` files (:func:`excluded_questions`) is dropped."""
    banned = excluded_questions(exclude)
    examples: list[TaggedExample] = []
    sources = []
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        found, counts = load_source(spec)
        for example in found:
            if (example.source, example.id) in seen:
                counts["already given by an earlier --data"] += 1
            elif banned and question_key(example.question) in banned:
                counts["question in an --exclude-questions file"] += 1
            else:
                seen.add((example.source, example.id))
                examples.append(example)
        sources.append({"spec": spec, "counts": dict(sorted(counts.items()))})
    return examples, sources


def question_key(question: str) -> str:
    """A question as :func:`load_examples` compares it: case-folded, runs of space as one, end punctuation gone."""
    return " ".join(question.casefold().split()).rstrip(" ?.!")


def excluded_questions(files: Sequence[str]) -> frozenset[str]:
    """The :func:`question_key` of every question in ``files`` (any input :func:`kpqa.input.read_input` reads; the
    human-judgment sets, so that none of their questions is trained on)."""
    from kpqa.input import read_input

    keys: set[str] = set()
    for file in files:
        table = read_input(file)
        if "question" not in table.frame.columns:
            raise InputError("no 'question' column: --exclude-questions needs the questions to leave out", file=file)
        keys.update(question_key(q) for q in table.rows.questions if q)
    return frozenset(keys)
