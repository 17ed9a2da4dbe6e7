"""Slicing :class:`kpqa.rows.Rows`: every field, optional ones kept only when there."""
from __future__ import annotations

from dataclasses import fields

from kpqa.rows import Rows, concat_rows, select_rows, take_rows


def _rows(tag: str, n: int, labels: bool = True) -> Rows:
    return Rows(
        questions=[f"{tag}q{i}" for i in range(n)],
        candidates=[f"{tag}c{i}" for i in range(n)],
        references=[[f"{tag}r{i}a", f"{tag}r{i}b"] for i in range(n)],
        candidate_labels=[f"{tag}l{i}" for i in range(n)] if labels else None,
        reference_labels=[[f"{tag}m{i}", None] for i in range(n)] if labels else None,
        entities=[[f"{tag}e{i}"] for i in range(n)] if labels else None,
        wrong=[[f"{tag}w{i}"] if i % 2 else [] for i in range(n)] if labels else None,
    )


def test_take_and_select_cut_every_field_alike():
    rows = _rows("x", 5)
    taken = take_rows(rows, 1, 3)
    picked = select_rows(rows, [3, 0])
    for f in fields(Rows):
        assert getattr(taken, f.name) == getattr(rows, f.name)[1:3]
        assert getattr(picked, f.name) == [getattr(rows, f.name)[3], getattr(rows, f.name)[0]]
    bare = _rows("y", 4, labels=False)
    assert take_rows(bare, 0, 2).entities is None and select_rows(bare, [1]).candidate_labels is None
    assert select_rows(bare, [2, 1]).candidates == ["yc2", "yc1"]


def test_concat_joins_parts_and_keeps_an_optional_field_only_when_every_part_has_it():
    a, b = _rows("a", 2), _rows("b", 1)
    both = concat_rows([a, b])
    assert both.candidates == ["ac0", "ac1", "bc0"]
    assert both.entities == [["ae0"], ["ae1"], ["be0"]]
    assert both.wrong == [[], ["aw1"], []]
    assert both.reference_labels == [["am0", None], ["am1", None], ["bm0", None]]
    mixed = concat_rows([a, _rows("c", 2, labels=False)])
    assert len(mixed) == 4 and mixed.candidate_labels is None and mixed.entities is None and mixed.wrong is None
    assert mixed.references[3] == ["cr1a", "cr1b"]
    assert concat_rows([take_rows(a, 0, 1), take_rows(a, 1, 2)]) == a


def test_against_wrong_gives_the_rows_with_known_wrong_answers_those_as_references():
    from kpqa.rows import against_wrong

    rows = _rows("x", 4)
    against, have = against_wrong(rows)
    assert have == [1, 3] and against.references == [["xw1"], ["xw3"]]
    assert against.candidates == ["xc1", "xc3"] and against.questions == ["xq1", "xq3"]
    assert against.wrong is None and against.entities is None  # a plain batch: references only
    assert against_wrong(_rows("y", 3, labels=False)) == (Rows([], [], []), [])
