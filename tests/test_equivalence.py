"""The answer-equivalence model (kpqa/models/equivalence.py), its metric and its trainer (train/equivalence/): input
layout, batching, the (question, reference, candidate) cache, best over references, checkpoints, training."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from kpqa.errors import CheckpointError, InputError

#: candidate checkpoints stay in the repository's checkpoints/ folder, out of the wheel (pyproject.toml)
CANDIDATES = Path(__file__).resolve().parents[1] / "experiments" / "checkpoints"


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from kpqa.models import backbone

    return AutoTokenizer.from_pretrained(backbone.resolve("minilm"), use_fast=True)


def test_input_is_question_reference_candidate_with_caps(tokenizer):
    from kpqa.models.equivalence import QUESTION_PIECES, REFERENCE_PIECES, encode

    (short,) = encode(tokenizer, [("Who wrote it?", "Tolkien", "It was Tolkien.")])
    words = tokenizer.convert_ids_to_tokens(short["input_ids"])
    assert words == ["[CLS]", "who", "wrote", "it", "?", "[SEP]", "tolkien", "[SEP]", "it", "was", "tolkien", ".",
                     "[SEP]"]
    assert short["token_type_ids"] == [0] * 8 + [1] * 5
    long_q, long_r, long_c = "why " * 300, "because " * 300, "answer " * 300
    (cut,) = encode(tokenizer, [(long_q, long_r, long_c)], max_length=256)
    first = cut["token_type_ids"].count(0)
    assert first == QUESTION_PIECES + REFERENCE_PIECES + 3  # [CLS] q [SEP] r [SEP]
    assert len(cut["input_ids"]) == 256 and cut["input_ids"][-1] == tokenizer.sep_token_id


def test_collate_pads_right_with_a_mask(tokenizer):
    from kpqa.models.equivalence import collate, encode

    batch = collate(tokenizer, encode(tokenizer, [("q?", "a", "b"), ("a longer question?", "ref", "cand text")]))
    assert batch["input_ids"].shape == batch["attention_mask"].shape == batch["token_type_ids"].shape
    lengths = batch["attention_mask"].sum(1).tolist()
    assert lengths[0] < lengths[1] == batch["input_ids"].shape[1]
    assert (batch["input_ids"][0, lengths[0]:] == tokenizer.pad_token_id).all()


def test_read_examples_names_a_bad_label(tmp_path):
    from kpqa.train.equivalence import read_examples

    path = tmp_path / "bad.csv"
    path.write_text("question,answer,reference1,scores\nq?,a,r,1\nq2?,b,r,maybe\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_examples(path)
    assert "row 2" in str(e.value) and "scores" in str(e.value) and "bad.csv" in str(e.value)


def test_dev_split_keeps_a_group_together():
    from kpqa.train.equivalence import Example, split_dev

    examples = [Example(f"q{i // 4}", ["r"], f"c{i}", i % 2, group=f"g{i // 4}") for i in range(400)]
    train, dev = split_dev(examples, 0.2, seed=3)
    assert sorted(train + dev) == list(range(400)) and 40 <= len(dev) <= 120
    assert not {examples[i].group for i in train} & {examples[i].group for i in dev}
    assert split_dev(examples, 0.2, seed=3) == (train, dev)


@pytest.fixture(scope="module")
def small_model(minilm):
    """An EquivalenceRunner over a copy of the MiniLM with a seeded random head, top two layers trainable."""
    import torch

    from kpqa.models import checkpoint as ckpt
    from kpqa.models.equivalence import EquivalenceModel, EquivalenceRunner

    torch.manual_seed(0)
    model = EquivalenceModel(copy.deepcopy(minilm[0]), trained_layers=2)
    metadata = ckpt.Metadata.of({"kind": "equivalence", "backbone": {"name": "minilm"}, "max_length": 128,
                                 "use_question": True})
    return EquivalenceRunner(model, minilm[1], metadata, "test", torch.device("cpu"), batch_size=2, precision="fp32")


TRIPLES = [("Who wrote The Hobbit?", "J. R. R. Tolkien", "Tolkien wrote it in 1937."),
           ("Who wrote The Hobbit?", "Tolkien", "C. S. Lewis."),
           ("Is copper magnetic?", "No", "It isn't; a magnet will not pick it up."),
           ("What is the capital of Australia?", "Canberra", "The capital is Canberra, not Sydney, which is larger.")]


@pytest.mark.model
def test_logits_do_not_depend_on_the_batch(small_model):
    small_model.clear_cache()
    together = small_model.logits(TRIPLES)
    small_model.clear_cache()
    alone = np.array([small_model.logits([t])[0] for t in TRIPLES])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert len(set(np.round(together, 4))) == len(TRIPLES)  # a real model: different inputs, different logits


@pytest.mark.model
def test_each_distinct_triple_is_computed_once(small_model, monkeypatch):
    small_model.clear_cache()
    computed: list[int] = []
    real = small_model._compute

    def counting(triples):
        computed.append(len(triples))
        return real(triples)

    monkeypatch.setattr(small_model, "_compute", counting)
    first = small_model.logits(TRIPLES + TRIPLES[:2])
    again = small_model.logits(list(reversed(TRIPLES)))
    assert computed == [len(TRIPLES)]
    np.testing.assert_array_equal(first[:4], again[::-1])
    np.testing.assert_array_equal(first[4:], first[:2])


@pytest.mark.model
def test_best_is_the_largest_logit_over_references(small_model):
    q = "Who wrote The Hobbit?"
    refs = [["J. R. R. Tolkien", "Tolkien", "John Ronald Reuel Tolkien"], ["Tolkien"]]
    cands = ["Tolkien wrote it.", "Lewis wrote it."]
    best = small_model.best([q, q], refs, cands)
    each = small_model.logits([(q, r, cands[0]) for r in refs[0]])
    assert best[0] == each.max() and best[1] == small_model.logits([(q, "Tolkien", cands[1])])[0]


@pytest.mark.model
def test_checkpoint_holds_the_top_layers_and_head_and_loads_back(small_model, tmp_path):
    from kpqa.models import backbone
    from kpqa.models import checkpoint as ckpt
    from kpqa.models.equivalence import EquivalenceRunner

    state = small_model.model.trained_state()
    assert {k.split(".")[0] for k in state} == {"encoder", "head"}
    layers = {k.split("layer.")[1].split(".")[0] for k in state if "layer." in k}
    assert layers == {"4", "5"}
    metadata = {"kind": "equivalence", "backbone": backbone.describe("minilm"), "use_question": True, "lora": None,
                "max_length": 128, "trained_layers": 2}
    ckpt.save(tmp_path, state, metadata)
    loaded = EquivalenceRunner.load(tmp_path, device="cpu", precision="fp32")
    small_model.clear_cache()
    np.testing.assert_allclose(loaded.logits(TRIPLES), small_model.logits(TRIPLES), atol=0.05)  # fp16 storage


@pytest.mark.model
def test_one_typed_metadata_says_each_checkpoints_kind():
    from kpqa.models import metadata, shipped
    from kpqa.models.equivalence import KIND, default_folder
    from kpqa.models.weighter import Weighter

    weighter, model = metadata.read(shipped.resolve("default")), metadata.read(default_folder())
    assert (weighter.kind, model.kind, model.pooling) == (None, KIND, "mean") and weighter.lora is None
    with pytest.raises(CheckpointError, match="not a keyphrase weighter \\(metadata kind 'equivalence'\\)"):
        Weighter.load(default_folder(), device="cpu")


@pytest.mark.model
def test_a_weighter_checkpoint_is_refused():
    from kpqa.models import shipped
    from kpqa.models.equivalence import EquivalenceRunner

    with pytest.raises(CheckpointError, match="not an answer-equivalence model"):
        EquivalenceRunner.load(shipped.resolve("default"), device="cpu")


@pytest.mark.model
def test_training_writes_a_checkpoint_that_scores(tmp_path):
    from kpqa.metrics import get_metric
    from kpqa.context import Context
    from kpqa.rows import Rows
    from kpqa.train.equivalence import EquivalenceConfig, train

    rows = ["question,answer,reference1,reference2,scores,kind"]
    for i in range(24):
        rows.append(f"What is {i} plus one?,It is {i + 1}.,{i + 1},,1,clause")
        rows.append(f"What is {i} plus one?,It is {i + 7}.,{i + 1},the number {i + 1},0,swap")
    data = tmp_path / "train.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "model"
    metadata = train(EquivalenceConfig(data=[str(data)], output=str(out), trained_layers=1, epochs=1, batch_size=8,
                                 dev_share=0.25, precision="fp32", device="cpu"))
    saved = json.loads((out / "metadata.json").read_text())
    assert saved["kind"] == "equivalence" and saved["trained_layers"] == 1
    assert saved["data"]["train_rows"] + saved["data"]["dev_rows"] == 48
    assert metadata["dev"]["rows"] == saved["data"]["dev_rows"] > 0
    metric = get_metric(f"Equivalence:model={out}")
    batch = Rows(questions=["What is 2 plus one?"] * 2, candidates=["It is 3.", "It is 9."],
                 references=[["3"], ["3", "three"]])
    ctx = Context(device="cpu", precision="fp32")
    scores = metric.score(batch, ctx)[f"Equivalence:model={out}"]
    assert scores.shape == (2,) and np.isfinite(scores).all()
    assert str(metric.signature(ctx)).startswith(f"Equivalence|model:{saved['weights_sha256'][:12]}|backbone:minilm")


def _labelled_frame(n=12):
    import pandas as pd

    rows = []
    for i in range(n):
        rows.append({"question": f"Is {i} even?", "answer": "Yes." if i % 2 == 0 else "No.", "references": ["Yes"],
                     "scores": int(i % 2 == 0), "kind": "polar"})
        rows.append({"question": f"What is {i} plus one?", "answer": f"It is {i + 7}.", "references": [f"{i + 1}",
                     f"the number {i + 1}"], "scores": 0, "kind": "swap"})
    return pd.DataFrame(rows)


def test_read_examples_reads_every_input_format_alike(tmp_path):
    from kpqa.train.equivalence import read_examples

    frame = _labelled_frame()
    frame.to_parquet(tmp_path / "x.parquet")
    frame.to_json(tmp_path / "x.jsonl", orient="records", lines=True)
    flat = frame.drop(columns="references").assign(
        reference1=[r[0] for r in frame.references], reference2=[r[1] if len(r) > 1 else "" for r in frame.references])
    flat.to_csv(tmp_path / "x.csv", index=False)
    flat.to_csv(tmp_path / "x.tsv", index=False, sep="\t")
    read = {suffix: read_examples(tmp_path / f"x.{suffix}") for suffix in ("csv", "tsv", "jsonl", "parquet")}
    fields = {k: [(e.question, e.references, e.candidate, e.label, e.kind, e.row) for e in v] for k, v in read.items()}
    assert len(fields["csv"]) == 24 and all(v == fields["csv"] for v in fields.values())
    assert fields["csv"][1] == ("What is 0 plus one?", ["1", "the number 1"], "It is 7.", 0, "swap", 2)


def test_read_examples_names_a_bad_cell_as_the_input_layer_does(tmp_path):
    from kpqa.train.equivalence import read_examples

    frame = _labelled_frame()
    frame.loc[3, "scores"] = 2
    frame.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(InputError) as e:
        read_examples(tmp_path / "bad.parquet")
    assert str(e.value) == f"{tmp_path / 'bad.parquet'}, row 4, column 'scores': human label 2 is not 0 or 1"
    path = tmp_path / "labels.csv"
    path.write_text("question,answer,reference1,reference1_label,scores\nq?,yes,Yes,Maybe,1\n", encoding="utf-8")
    with pytest.raises(InputError, match="labels.csv, row 1, column 'reference1_label': opinion label 'Maybe'"):
        read_examples(path)


@pytest.mark.model
def test_train_equivalence_trains_on_a_parquet_file(tmp_path, capsys):
    from kpqa.cli import main

    data = tmp_path / "train.parquet"
    _labelled_frame().to_parquet(data)
    out = tmp_path / "model"
    assert main(["train-equivalence", "--data", str(data), "--output", str(out), "--trained-layers", "1", "--epochs",
                 "1", "--batch-size", "8", "--dev-share", "0.25", "--precision", "fp32", "--device", "cpu"]) == 0
    saved = json.loads((out / "metadata.json").read_text())
    assert saved["data"]["train_rows"] + saved["data"]["dev_rows"] == 24
    assert json.loads(capsys.readouterr().out)["output"] == str(out)


@pytest.mark.model
def test_a_csv_with_reference_label_columns_trains(tmp_path):
    from kpqa.train.equivalence import EquivalenceConfig, read_examples, train

    data = tmp_path / "yang.csv"  # Yang et al.'s opinion labels (docs/io.md): once a ValueError in int("1_label")
    data.write_text("question,answer,reference1,reference1_label,reference2,reference2_label,answer_label,scores\n" +
                    "".join(f"Is {i} even?,{'Yes' if i % 2 == 0 else 'No'}.,Yes,Yes,It is.,yes,Yes,{int(i % 2 == 0)}\n"
                            for i in range(16)), encoding="utf-8")
    assert read_examples(data)[1].references == ["Yes", "It is."]
    metadata = train(EquivalenceConfig(data=[str(data)], output=str(tmp_path / "model"), trained_layers=1, epochs=1,
                                       batch_size=8, dev_share=0.25, precision="fp32", device="cpu"))
    assert metadata["data"]["train_rows"] + metadata["data"]["dev_rows"] == 16


def test_cap_kinds_keeps_at_most_n_of_each_kind_in_order():
    from kpqa.train.equivalence import Example, cap_kinds

    examples = [Example("q", ["r"], f"c{i}", i % 2, kind="big" if i < 90 else "small") for i in range(100)]
    kept = cap_kinds(examples, 20, seed=1)
    kinds = [e.kind for e in kept]
    assert kinds.count("big") == 20 and kinds.count("small") == 10
    assert [int(e.candidate[1:]) for e in kept] == sorted(int(e.candidate[1:]) for e in kept)
    assert cap_kinds(examples, 20, seed=1) == kept


@pytest.mark.parametrize("text", ["", 'question,answer\n"unclosed,a\n'], ids=["empty", "unclosed-quote"])
def test_read_examples_names_an_unreadable_file_as_scoring_does(tmp_path, text):
    from kpqa.input import read_input
    from kpqa.train.equivalence import read_examples

    path = tmp_path / "broken.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as scoring:
        read_input(path)
    with pytest.raises(InputError, match="broken.csv") as training:
        read_examples(path)
    assert str(training.value) == str(scoring.value) and "\n" not in str(training.value)


def _toy_rows(path, questions=12):
    rows = ["question,answer,reference1,reference2,scores"]
    for i in range(questions):
        rows.append(f"What is {i} plus one?,It is {i + 1}.,{i + 1},,1")
        rows.append(f"What is {i} plus one?,It is {i + 7}.,{i + 1},the number {i + 1},0")
        rows.append(f"What is {i} plus one?,{i + 1} of course,{i + 1},,1")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_grouped_folds_keep_every_question_in_one_fold(tmp_path):
    from kpqa.train.equivalence import grouped_folds, read_examples

    examples = read_examples(_toy_rows(tmp_path / "t.csv", questions=20))
    fold = grouped_folds(examples, 5, seed=13)
    assert sorted(set(fold.tolist())) == [0, 1, 2, 3, 4]
    by_question: dict[str, set[int]] = {}
    for e, f in zip(examples, fold):
        by_question.setdefault(e.question, set()).add(int(f))
    assert all(len(s) == 1 for s in by_question.values())  # no question on both sides of any split
    assert [len([f for f in fold if f == k]) for k in range(5)] == [12] * 5  # 4 questions (12 rows) a fold
    assert (grouped_folds(examples, 5, seed=13) == fold).all() and not (grouped_folds(examples, 5, seed=14) == fold).all()
    with pytest.raises(InputError, match="6 folds need at least 6 distinct questions"):
        grouped_folds(examples[:15], 6, seed=13)


@pytest.mark.model
@pytest.mark.slow
def test_cross_validation_scores_every_row_held_out_and_init_goes_on(tmp_path):
    import pandas as pd

    from kpqa.train.equivalence import HELDOUT_COLUMNS, EquivalenceConfig, cross_validate, grouped_folds, read_examples, train

    data = _toy_rows(tmp_path / "t.csv", questions=6)
    config = EquivalenceConfig(data=[str(data)], output=str(tmp_path / "cv"), trained_layers=1, epochs=1, batch_size=8,
                         dev_share=0.2, precision="fp32", device="cpu", folds=3)
    held = pd.read_csv(cross_validate(config), keep_default_na=False)
    assert tuple(held.columns) == HELDOUT_COLUMNS and len(held) == 18 and np.isfinite(held.logit).all()
    assert list(held.row) == list(range(1, 19))  # every data row once, in file order
    expected = grouped_folds(read_examples(data), 3, seed=13)
    assert list(held.fold) == expected.tolist()
    for k in range(3):  # each fold's model never saw its held-out questions
        saved = json.loads((tmp_path / "cv" / f"fold-{k}" / "metadata.json").read_text())
        assert saved["data"]["train_rows"] + saved["data"]["dev_rows"] == 18 - (held.fold == k).sum()
    # a run that goes on from a checkpoint records it, and refuses one of another shape
    first = tmp_path / "cv" / "fold-0"
    metadata = train(EquivalenceConfig(data=[str(data)], output=str(tmp_path / "next"), trained_layers=1, epochs=1,
                                 batch_size=8, dev_share=0.2, precision="fp32", device="cpu", init=str(first)))
    assert metadata["init"]["path"] == str(first) and len(metadata["init"]["weights_sha256"]) == 64
    with pytest.raises(CheckpointError, match="trained with pooling 'mean' and 1 layers, not 'mean' and 2"):
        train(EquivalenceConfig(data=[str(data)], output=str(tmp_path / "bad"), trained_layers=2, epochs=1,
                          device="cpu", init=str(first)))


def test_fold_needs_folds(capsys):
    from kpqa.cli import main

    assert main(["train-equivalence", "--data", "x.csv", "--output", "o", "--fold", "1"]) == 2
    err = capsys.readouterr().err
    assert "--fold" in err and "deprecated" not in err


def test_train_judge_is_train_equivalence_with_a_deprecation_note(capsys):
    from kpqa.cli import main

    assert main(["train-judge", "--data", "x.csv", "--output", "o", "--fold", "1"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("kpqa: warning: `kpqa train-judge` is deprecated and will be removed in the next release; "
                        "use `kpqa train-equivalence` (the same command)")
    assert len(lines) == 2 and "--fold" in lines[1]


@pytest.mark.model
def test_the_candidate_trained_on_peoples_judgments_loads_and_ranks_the_right_answer_first():
    from kpqa.models import shipped
    from kpqa.models.equivalence import EquivalenceRunner

    model = EquivalenceRunner.load(CANDIDATES / "equivalence-human", device="cpu")
    files = [f["path"].rsplit("/", 1)[-1] for f in model.metadata.raw["data"]["files"]]
    assert files == ["evouna_nq_train.csv", "evouna_tq_dev.csv"] and model.metadata.raw["init"]["weights_sha256"]
    right, wrong = model.best(["What is the capital of Australia?"] * 2, [["Canberra"]] * 2,
                              ["It is Canberra.", "It is Sydney."])
    assert right > 0 and right > wrong  # (the wrong one still scores above 0: docs/decisions.md, issue 48)


def test_fold_of_is_a_hash_of_seed_and_question_alone():
    import hashlib

    from kpqa.train.equivalence import Example, fold_of, hash_folds

    q = "Who wrote The Hobbit?"
    digest = hashlib.sha256(b"13|Who wrote The Hobbit?").digest()
    assert fold_of(q, 5, 13) == int.from_bytes(digest[:8], "big") % 5 == fold_of(f"  {q}\n", 5, 13)
    questions = [f"question {i}?" for i in range(1000)]
    folds = [fold_of(x, 5, 13) for x in questions]
    assert all(160 <= folds.count(k) <= 240 for k in range(5))
    assert sum(a != b for a, b in zip(folds, (fold_of(x, 5, 14) for x in questions))) > 700  # the seed moves them
    # a row's fold does not depend on the other rows loaded beside it
    alone = hash_folds([Example(q, ["r"], "c", 1)] * 5 + [Example(x, ["r"], "c", 0) for x in questions[:5]], 5, 13)
    mixed = hash_folds([Example(x, ["r"], "c", 0) for x in questions[:300]] + [Example(q, ["r"], "c", 1)], 5, 13)
    assert alone[0] == mixed[-1] == fold_of(q, 5, 13)
    with pytest.raises(InputError, match="5 folds need at least 5 distinct questions"):
        hash_folds([Example(q, ["r"], "c", 1)] * 9, 5, 13)


def test_mixed_batches_draw_each_source_in_proportion_from_cyclic_shuffles():
    from collections import Counter

    from kpqa.train.equivalence import MixedSampler

    sources = [list(range(0, 10)), list(range(100, 200)), list(range(1000, 1003))]
    sampler = MixedSampler(sources, [1, 1, 0.5], seed=13)
    batches = [sampler.batch(10) for _ in range(40)]
    owner = [0 if i < 100 else 1 if i < 1000 else 2 for b in batches for i in b]
    assert Counter(owner) == {0: 160, 1: 160, 2: 80}
    for b in batches:  # each batch: 4, 4 and 2 rows, give or take one
        counts = Counter(0 if i < 100 else 1 if i < 1000 else 2 for i in b)
        assert abs(counts[0] - 4) <= 1 and abs(counts[1] - 4) <= 1 and abs(counts[2] - 2) <= 1
    small = [i for b in batches for i in b if i < 100]
    for k in range(0, 160, 10):  # a cyclic stream: every pass is a permutation, shuffled anew
        assert sorted(small[k:k + 10]) == list(range(10))
    assert small[:10] != small[10:20] and small[:10] != list(range(10))
    again = MixedSampler(sources, [1, 1, 0.5], seed=13)
    assert [again.batch(10) for _ in range(40)] == batches
    other = MixedSampler(sources, [1, 1, 0.5], seed=14)
    assert [other.batch(10) for _ in range(40)] != batches
    with pytest.raises(ValueError):
        MixedSampler([[1], []], [1, 1], seed=1)


def test_some_references_keeps_the_first_and_a_seeded_sample_in_order():
    import random

    from kpqa.train.equivalence import Example
    from kpqa.train.equivalence.mix import some_references

    e = Example("q", [f"r{i}" for i in range(12)], "c", 1)
    rng = random.Random(5)
    picks = [some_references(e, 3, rng).references for _ in range(50)]
    assert all(len(p) == 3 and p[0] == "r0" and p == sorted(p, key=lambda r: int(r[1:])) for p in picks)
    assert len({tuple(p) for p in picks}) > 20 and {r for p in picks for r in p} == set(e.references)
    assert some_references(Example("q", ["a", "b"], "c", 1), 3, rng).references == ["a", "b"]
    assert [p.references for p in (some_references(e, 3, random.Random(5)) for _ in range(1))] == [picks[0]]


def test_some_references_can_lead_with_the_reference_closest_to_the_answer():
    import random

    from kpqa.train.equivalence import Example
    from kpqa.train.equivalence.mix import some_references

    refs = ["Bill Clinton", "William Jefferson Clinton", "the 42nd president", "Clinton", "WJC"]
    e = Example("q", refs, "William J. Clinton", 1)
    picks = [some_references(e, 2, random.Random(s), "closest").references for s in range(40)]
    assert all(p[0] == "William Jefferson Clinton" and p[1] != p[0] for p in picks)
    assert {p[1] for p in picks} == set(refs) - {"William Jefferson Clinton"}
    # a tie goes to the earlier reference; no overlap at all leads with the first
    tie = Example("q", ["a b", "b c", "x"], "b", 1)
    assert some_references(tie, 1, random.Random(0), "closest").references == ["a b"]
    assert some_references(Example("q", ["x", "y"], "z", 0), 1, random.Random(0), "closest").references == ["x"]
    # "first" draws exactly what the option did before it had a choice
    before = [sorted(random.Random(s).sample(range(1, 5), 2)) for s in range(20)]
    after = [some_references(e, 3, random.Random(s), "first").references for s in range(20)]
    assert after == [[refs[0], *(refs[i] for i in b)] for b in before]


@pytest.mark.parametrize("argv, message", [
    (["--mix", "1,2"], "--mix 1,2 gives 2 weights for 1 --data files"),
    (["--mix", "0"], "--mix 0 needs weights >= 0, one of them > 0, and caps >= 1"),
    (["--mix", "1:x"], "--mix 1:x: '1:x' is not W or W:N"),
    (["--mix", "1", "--max-per-kind", "5"], "--max-per-kind 5 with --mix: cap a file as W:N in --mix"),
    (["--steps-per-epoch", "5"], "--steps-per-epoch 5 needs --mix"),
    (["--max-references", "0"], "--max-references 0 must be 1 or more"),
    (["--keep-reference", "closest"], "--keep-reference closest needs --max-references")])
def test_mix_options_are_checked(capsys, argv, message):
    from kpqa.cli import main

    assert main(["train-equivalence", "--data", "x.csv", "--output", "o", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.model
@pytest.mark.slow
def test_mixed_cross_validation_uses_hash_folds_and_records_the_mix(tmp_path):
    import pandas as pd

    from kpqa.train.equivalence import HELDOUT_COLUMNS, EquivalenceConfig, cross_validate, fold_of

    people = _toy_rows(tmp_path / "people.csv", questions=10)
    swaps = tmp_path / "swaps.csv"  # generated rows keep their source's question
    swaps.write_text("question,answer,reference1,scores,kind\n" + "".join(
        f"What is {i} plus one?,It is {i + 30}.,{i + 1},0,swap\n" for i in range(10)), encoding="utf-8")
    config = EquivalenceConfig(data=[str(people), str(swaps)], output=str(tmp_path / "cv"), trained_layers=1,
                               epochs=1, batch_size=6, dev_share=0.2, precision="fp32", device="cpu", folds=3,
                               fold=0, mix=[1.0, 0.5], mix_caps=[None, 4], steps_per_epoch=3, max_references=1)
    held = pd.read_csv(cross_validate(config), keep_default_na=False)
    assert tuple(held.columns) == HELDOUT_COLUMNS and set(held.fold) == {0}
    assert all(fold_of(q, 3, 13) == 0 for q in held.question)
    expected = {f"What is {i} plus one?" for i in range(10) if fold_of(f"What is {i} plus one?", 3, 13) == 0}
    assert expected and (held.source == str(people)).sum() == 3 * len(expected)  # every answer of those questions
    assert set(held[held.source == str(people)].question) == expected
    assert set(held[held.source == str(swaps)].question) <= expected  # (the swaps capped at 4 before the folds)
    saved = json.loads((tmp_path / "cv" / "fold-0" / "metadata.json").read_text())
    sources = saved["mix"]["sources"]
    assert saved["mix"]["steps_per_epoch"] == 3 and [s["weight"] for s in sources] == [1.0, 0.5]
    assert [s["cap_per_kind"] for s in sources] == [None, 4] and saved["config"]["max_references"] == 1
    assert sources[1]["train_rows"] <= 4 and sources[0]["train_rows"] == saved["data"]["train_rows"] - sources[1][
        "train_rows"]


@pytest.mark.model
def test_the_mixed_candidate_puts_every_swapped_key_fact_below_the_right_answer():
    from kpqa.models import shipped
    from kpqa.models.equivalence import EquivalenceRunner

    model = EquivalenceRunner.load(CANDIDATES / "equivalence-mixed", device="cpu", precision="fp32")
    files = [f["path"].rsplit("/", 1)[-1] for f in model.metadata.raw["data"]["files"]]
    assert files == ["evouna_nq_train.csv", "evouna_tq_dev.csv", "truthfulqa_train.csv", "swaps.csv", "train.csv"]
    assert model.metadata.raw["mix"]["sources"][3]["weight"] == 0.5 and model.metadata.raw["config"]["fold"] is None
    # the swap test's sentences (tests/test_calibration.py): every swapped answer below its right one, 10 of 12
    # under logit 0 (equivalence-human: 11 of 12 below, 8 under 0; docs/equivalence-cv/README.md)
    from test_calibration import SWAPS

    below, under = 0, 0
    for question, reference, answer, key, others in SWAPS:
        answers = [answer, *(answer.replace(key, o) for o in others)]
        logits = model.best([question] * len(answers), [[reference]] * len(answers), answers)
        below += int((logits[1:] < logits[0]).sum())
        under += int((logits[1:] < 0).sum())
    assert (below, under) == (12, 10)


@pytest.mark.model
@pytest.mark.parametrize("candidate, rejected, ranked, accepted", [("equivalence-nearmiss", 13, 12, 11),
                                                                   ("equivalence-closest", 13, 13, 9)])
def test_the_near_miss_candidates_reject_hand_written_near_misses_and_rank_them_below_the_right_answer(
        candidate, rejected, ranked, accepted):
    """The 14 pairs of docs/equivalence-cv/near_misses_handwritten.csv: a right answer in other words and the
    reference's sentence with one part of the key fact changed (a year, a name, a number, a negation, the other
    option). Measured 2026-11-29 (fp32): both leave "World War II ended in 1946." over logit 0; equivalence-nearmiss
    ranks "vitamin D" and the Atlantic over their right answers and rejects three right answers ("vitamin C" in
    other words, "the bigger of the two", "counts as a fruit"), equivalence-closest ranks the 1946 one over and
    rejects five."""
    import pandas as pd

    from kpqa.models.equivalence import EquivalenceRunner

    model = EquivalenceRunner.load(CANDIDATES / candidate, device="cpu", precision="fp32")
    pairs = pd.read_csv(Path(__file__).resolve().parents[1] / "docs" / "equivalence-cv" /
                        "near_misses_handwritten.csv", keep_default_na=False)
    logits = model.best(pairs["question"].tolist(), [[r] for r in pairs["reference1"]], pairs["answer"].tolist())
    wrong = (pairs["scores"] == 0).to_numpy()
    right_logits, wrong_logits = logits[~wrong], logits[wrong]
    assert wrong.sum() == 14 and (pairs.loc[wrong, "original"].to_numpy() == pairs.loc[~wrong, "answer"]).all()
    assert int((wrong_logits < 0).sum()) == rejected and int((wrong_logits < right_logits).sum()) == ranked
    assert int((right_logits > 0).sum()) == accepted
    assert pairs.loc[wrong, "answer"].to_numpy()[wrong_logits >= 0].tolist() == ["World War II ended in 1946."]


@pytest.mark.model
def test_an_interrupted_run_resumes_to_the_weights_of_an_unbroken_one(tmp_path, monkeypatch):
    import torch
    from safetensors.torch import load_file

    from kpqa.train.equivalence import EquivalenceConfig, train
    from kpqa.train.equivalence import training

    config = _resumable(tmp_path)
    train(config("whole"))
    real_step, calls = training.step, {"n": 0}

    def interrupt_at_the_fifth(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real_step(*args, **kwargs)

    monkeypatch.setattr(training, "step", interrupt_at_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        train(config("broken"))
    assert (tmp_path / "broken" / "resume.pt").exists()
    monkeypatch.setattr(training, "step", real_step)
    train(config("broken"))
    assert not (tmp_path / "broken" / "resume.pt").exists()
    whole, resumed = (load_file(str(tmp_path / d / "weights.safetensors")) for d in ("whole", "broken"))
    assert whole.keys() == resumed.keys()
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)
    _save_state_of(config("broken"))  # a state left by a run with lr 1e-4 is not taken by one with 1e-3
    with pytest.raises(CheckpointError, match="other options or data"):
        train(EquivalenceConfig(**{**config("broken").__dict__, "lr": 1e-3}))


@pytest.mark.model
def test_ctrl_c_lets_the_step_finish_and_the_resumed_run_ends_as_an_unbroken_one(tmp_path, monkeypatch, capsys):
    """The equivalence trainer defers Ctrl-C as the weighter's does (:mod:`kpqa.train.skeleton`): the step under way
    finishes, its state is saved after it, and the same command ends with the unbroken run's weights."""
    import os
    import signal

    import torch
    from safetensors.torch import load_file

    from kpqa.train.equivalence import train
    from kpqa.train.equivalence import training

    config = _resumable(tmp_path)
    train(config("whole"))
    real_step, calls = training.step, {"n": 0}

    def ctrl_c_in_the_fourth(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 4:
            os.kill(os.getpid(), signal.SIGINT)
        return real_step(*args, **kwargs)

    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(training, "step", ctrl_c_in_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        train(config("broken"))
    state = torch.load(tmp_path / "broken" / "resume.pt", weights_only=False)
    assert (state["epoch"], state["step"]) == (1, 1)  # the fourth step (epoch 2's first) done and saved
    assert "saved a resumable state" in capsys.readouterr().err and signal.getsignal(signal.SIGINT) is before
    monkeypatch.setattr(training, "step", real_step)
    train(config("broken"))
    whole, resumed = (load_file(str(tmp_path / d / "weights.safetensors")) for d in ("whole", "broken"))
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)


def _resumable(tmp_path):
    """The config of a short mixed run on toy rows that saves a resumable state every 2 steps, by output folder."""
    from kpqa.train.equivalence import EquivalenceConfig

    people = _toy_rows(tmp_path / "people.csv", questions=8)

    def config(out: str) -> EquivalenceConfig:
        return EquivalenceConfig(data=[str(people)], output=str(tmp_path / out), trained_layers=1, epochs=2,
                                 batch_size=4, dev_share=0.25, precision="fp32", device="cpu", mix=[1.0],
                                 steps_per_epoch=3, max_references=1, save_every=2)

    return config


def _save_state_of(config):
    import torch

    from kpqa.train.equivalence import training

    resume = training.Resume(config)
    torch.save({"key": resume.key}, resume.path)
