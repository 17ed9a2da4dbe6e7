"""Weighter trainer: labelling, split, a few training steps that lower the loss, resume, bad runs."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
import pandas as pd
import torch

from kpqa.train import trainer
from kpqa.models import checkpoint as ckpt
from kpqa.errors import InputError, UsageError
from kpqa.models.device import training_precision
from kpqa.models.tagger import KeyphraseTagger
from kpqa.models.weighter import Weighter, load_encoder
from kpqa.train.cli import build_parser, config_from_args
from kpqa.train.examples import TaggedExample
from kpqa.train.trainer import IGNORE, TrainConfig, _loss_and_counts, label_windows, split, train

NAMES = ["anna", "boris", "clara", "dmitri", "elena", "felix", "greta", "hugo", "irene", "jonas", "karla", "lukas"]


def squad_file(path, n=12, answers=True):
    """A SQuAD v1.1 JSON file of ``n`` questions whose answer is always the name after 'is'."""
    qas, paragraphs = [], []
    for i, name in enumerate(NAMES[:n]):
        context = f"The city hall opened in spring. The mayor of the town is {name}. Everyone came."
        qa = {"id": f"q{i}", "question": "Who is the mayor of the town?",
              "answers": [{"text": name, "answer_start": context.index(name)}] if answers else []}
        paragraphs.append({"context": context, "qas": [qa]})
    path.write_text(json.dumps({"version": "1.1", "data": [{"title": "t", "paragraphs": paragraphs}]}))
    return f"squad:{path}"


def small_config(spec, output, lora_rank=4, **kw):
    return TrainConfig(data=[spec], output=str(output), epochs=2, batch_size=4, lr=1e-3, max_length=40,
                       lora_rank=lora_rank, save_every=2, **kw)


@pytest.mark.model
def test_labels_mark_the_answer_pieces_only(tokenizer):
    ex = TaggedExample("Who is the mayor?", "The mayor is Anna Schmidt-Lee.", ((13, 29),), "squad", "x")
    [[f]] = label_windows(tokenizer, [ex], True, 64)
    ids = f.window.inputs["input_ids"]
    k = [tokenizer.convert_ids_to_tokens(i) for i, lab in zip(ids, f.labels) if lab == 1]
    assert "".join(t.removeprefix("##") for t in k) == "annaschmidt-lee"
    n_question = len(tokenizer("Who is the mayor?", add_special_tokens=False)["input_ids"])
    assert f.labels[: n_question + 2] == [IGNORE] * (n_question + 2)  # [CLS] question [SEP]
    assert f.labels[-1] == IGNORE and f.labels.count(0) == 4  # the, mayor, is, the final period
    [[g]] = label_windows(tokenizer, [ex], False, 64)
    assert g.labels[0] == IGNORE and g.labels[1:-1].count(1) == len(k)


@pytest.mark.model
def test_long_training_texts_become_windows_not_cuts(tokenizer):
    text = "filler words here . " * 60 + "The answer is Zanzibar."
    ex = TaggedExample("Where?", text, ((text.index("Zanzibar"), len(text) - 1),), "squad", "x")
    [windows] = label_windows(tokenizer, [ex], True, 64)
    assert len(windows) > 4 and sum(f.labels.count(1) for f in windows) >= 1
    assert windows[-1].labels.count(1) >= 1


def test_split_is_seeded_nine_to_one():
    train_idx, dev_idx = split(1000, 13, 0.1, None)
    assert len(dev_idx) == 100 and len(train_idx) == 900 and not set(train_idx) & set(dev_idx)
    assert split(1000, 13, 0.1, None) == (train_idx, dev_idx) and split(1000, 14, 0.1, None) != (train_idx, dev_idx)
    assert sum(map(len, split(1000, 13, 0.1, 50))) == 50


def _mean_loss(tokenizer, model, spec):
    examples, _ = trainer.load_examples([spec])
    batch_items = [f for fs in label_windows(tokenizer, examples, True, 40) for f in fs]
    batch = trainer._collate(tokenizer)(batch_items)
    labels = batch.pop("labels")
    model.eval()
    with torch.no_grad():
        return _loss_and_counts(model(**batch), labels)[0].item()


@pytest.mark.model
def test_a_few_steps_lower_the_loss_and_write_a_checkpoint(tmp_path, tokenizer, capsys):
    spec = squad_file(tmp_path / "s.json")
    torch.manual_seed(0)
    before = _mean_loss(tokenizer, KeyphraseTagger(load_encoder("minilm")[0], 4), spec)
    meta = train(small_config(spec, tmp_path / "out", command="kpqa train ..."))
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [ckpt.METADATA, ckpt.WEIGHTS]  # state folder removed
    w = Weighter.load(out, device="cpu")
    after = _mean_loss(tokenizer, w.model, spec)
    assert after < before * 0.7
    saved = json.loads((out / ckpt.METADATA).read_text())
    assert saved["status"] == "finished" and saved["examples"] == {
        "total": 12, "train": 10, "dev": 2, "train_windows": 10, "dev_windows": 2}  # by passage: 12 passages
    assert saved["split"] == {"by": "passage", "seed": 13, "dev_fraction": 0.1, "max_examples": None}
    assert saved["sources"] == [{"spec": spec, "counts": {"kept": 12}}]
    assert saved["lora"] == {"rank": 4, "alpha": 8.0, "dropout": 0.0, "layers": "all", "targets": [
        "attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
        "intermediate.dense", "output.dense"]}
    tensors, _, _ = ckpt.load(out)
    assert len(tensors) == 2 + 6 * 6 * 2 and all(".lora_" in k or k.startswith("head.") for k in tensors)
    assert set(saved["dev"]) == {"loss", "k_precision", "k_recall", "k_f1", "k_spread"}
    assert saved["command"] == "kpqa train ..."
    assert len(saved["history"]) == 2 and saved["best_epoch"] in (1, 2) and meta["dev"] == saved["dev"]
    with pytest.raises(UsageError, match="already holds a finished checkpoint"):
        train(small_config(spec, out))


@pytest.mark.model
def test_rank_zero_fine_tunes_the_layers(tmp_path, tokenizer):
    spec = squad_file(tmp_path / "s.json")
    torch.manual_seed(0)
    before = _mean_loss(tokenizer, KeyphraseTagger(load_encoder("minilm")[0], 0), spec)
    train(small_config(spec, tmp_path / "out", lora_rank=0))
    saved = json.loads((tmp_path / "out" / ckpt.METADATA).read_text())
    assert saved["lora"] is None
    tensors, _, _ = ckpt.load(tmp_path / "out")
    assert len(tensors) == 2 + 6 * 16  # head + 16 tensors per transformer layer
    assert _mean_loss(tokenizer, Weighter.load(tmp_path / "out", device="cpu").model, spec) < before * 0.7


@pytest.mark.model
def test_top_layer_training_stores_that_layer_and_init_must_match_it(tmp_path, tokenizer):
    spec = squad_file(tmp_path / "s.json")
    torch.manual_seed(0)
    before = _mean_loss(tokenizer, KeyphraseTagger(load_encoder("minilm")[0], 0), spec)
    train(small_config(spec, tmp_path / "top", lora_rank=0, train_layers=1))
    assert json.loads((tmp_path / "top" / ckpt.METADATA).read_text())["trained_layers"] == 1
    tensors, _, _ = ckpt.load(tmp_path / "top")
    assert len(tensors) == 2 + 16 and all(k.startswith(("head.", "encoder.encoder.layer.5.")) for k in tensors)
    assert _mean_loss(tokenizer, Weighter.load(tmp_path / "top", device="cpu").model, spec) < before * 0.7
    with pytest.raises(UsageError, match="'trained_layers': 1.*'trained_layers': None"):
        train(small_config(spec, tmp_path / "all", lora_rank=0, init=str(tmp_path / "top")))


@pytest.mark.model
def test_an_interrupted_run_resumes(tmp_path, monkeypatch, capsys):
    spec = squad_file(tmp_path / "s.json")
    real = trainer.evaluate
    calls: list[int] = []

    def dies_after_the_starting_point(*a):  # the first evaluation measures the starting point (dev_start)
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(*a)

    monkeypatch.setattr(trainer, "evaluate", dies_after_the_starting_point)
    with pytest.raises(KeyboardInterrupt):  # dies at the end of epoch 1, after a state save at step 2
        train(small_config(spec, tmp_path / "resumed"))
    assert (tmp_path / "resumed" / trainer.STATE / trainer.PROGRESS).exists()
    with pytest.raises(UsageError, match="other options"):
        train(small_config(spec, tmp_path / "resumed", seed=99))
    monkeypatch.setattr(trainer, "evaluate", real)
    train(small_config(spec, tmp_path / "resumed"))
    assert "resuming at epoch 1, step 2" in capsys.readouterr().out
    _, meta, _ = ckpt.load(tmp_path / "resumed")
    assert meta.raw["status"] == "finished" and [h["epoch"] for h in meta.raw["history"]] == [1, 2]
    assert not (tmp_path / "resumed" / trainer.STATE).exists()


@pytest.mark.model
def test_no_usable_examples_is_an_input_error(tmp_path):
    spec = squad_file(tmp_path / "s.json", answers=False)
    with pytest.raises(InputError, match="no usable training examples"):
        train(small_config(spec, tmp_path / "out"))


def test_cli_options_make_the_config():
    argv = ["--data", "squad:a.json", "--data", "hotpotqa:b.json", "--output", "o", "--no-question",
            "--epochs", "3", "--lora-rank", "16", "--max-examples", "10", "--train-layers", "2"]
    config = config_from_args(build_parser().parse_args(argv), argv)
    assert config.data == ["squad:a.json", "hotpotqa:b.json"] and not config.use_question
    assert (config.epochs, config.lora_rank, config.max_examples, config.train_layers) == (3, 16, 10, 2)
    assert config.command.startswith("kpqa train --data squad:a.json")


@pytest.mark.parametrize("left", [("state", "state.new"), ("state.old",), ("state", "state.old"), ("state.old", "state.new")])
def test_a_kill_during_a_state_save_leaves_a_resumable_state(tmp_path, left):
    """Saves go to state.new, then state -> state.old, state.new -> state, state.old removed; a kill at any point
    leaves one complete state to resume from."""
    for name in left:
        (tmp_path / name).mkdir()
        (tmp_path / name / "marker").write_text(name)
    trainer._recover_state(tmp_path / "state")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state"]
    assert (tmp_path / "state" / "marker").read_text() == ("state" if "state" in left else "state.old")


@pytest.mark.model
def test_warm_start_begins_where_the_init_checkpoint_ended(tmp_path, tokenizer):
    spec = squad_file(tmp_path / "s.json")
    train(replace(small_config(spec, tmp_path / "first", lora_rank=0), epochs=1))
    trained = _mean_loss(tokenizer, Weighter.load(tmp_path / "first", device="cpu").model, spec)
    torch.manual_seed(0)
    fresh = _mean_loss(tokenizer, KeyphraseTagger(load_encoder("minilm")[0], 0), spec)
    config = replace(small_config(spec, tmp_path / "second", lora_rank=0, init=str(tmp_path / "first"),
                                  yes_no="mixed", short_answers=0.5), epochs=1, lr=1e-12)
    meta = train(config)
    again = _mean_loss(tokenizer, Weighter.load(tmp_path / "second", device="cpu").model, spec)
    assert trained < fresh * 0.7 and again == pytest.approx(trained, rel=2e-2)  # lr ~0: the init's weights
    assert meta["init"]["hash"] == ckpt.load(tmp_path / "first")[2]
    # the starting point measured on the run's dev rows before any step: with lr ~0, where the run ends
    assert meta["dev_start"]["loss"] == pytest.approx(meta["dev"]["loss"], rel=1e-2)
    assert meta["answer_forms"]["short"] == 0.5 and meta["answer_forms"]["yes_no"] == "mixed"
    assert sum(meta["answer_forms"]["counts"].values()) == 12
    with pytest.raises(UsageError, match="this run needs"):
        train(small_config(spec, tmp_path / "third", lora_rank=0, init=str(tmp_path / "first"), use_question=False))


def test_cli_answer_form_options():
    argv = ["--data", "squad@100:a.json", "--output", "o", "--short-answers", "0.3", "--yes-no", "bare",
            "--max-answer-share", "0.6", "--init", "ck", "--precision", "bf16", "--choice-questions", "4",
            "--bare-answers", "0.2", "--teacher", "t", "--hard-weight", "0.25", "--temperature", "2", "--polar-floor", "0.3"]
    config = config_from_args(build_parser().parse_args(argv), argv)
    assert (config.short_answers, config.yes_no, config.max_answer_share) == (0.3, "bare", 0.6)
    assert config.choice_questions == 4 and config.bare_answers == 0.2
    assert (config.teacher, config.hard_weight, config.temperature, config.polar_floor) == ("t", 0.25, 2.0, 0.3)
    assert (config.init, config.precision, config.data) == ("ck", "bf16", ["squad@100:a.json"])


def test_choice_copies_join_the_training_split_only():
    text = "Dinner was leftover from home."
    examples = [TaggedExample(f"Was dinner from home or takeout? ({i})", text, ((text.index("home"), len(text) - 1),),
                              "squad", f"c{i}") for i in range(20)]
    config = TrainConfig(data=[], output="", choice_questions=3, dev_split="example")
    forms = trainer.AnswerForms(choice=3)
    out, train_idx, dev_idx, copied = trainer.split_examples(examples, forms, config)
    plain_train, plain_dev = split(20, config.seed, config.dev_fraction, None)
    assert (train_idx[:18], dev_idx) == (plain_train, plain_dev) and copied == 2 * 18
    assert out[:20] == examples and len(out) == len(train_idx) + len(dev_idx) == 20 + 36
    dev_questions = {examples[i].question for i in dev_idx}
    assert all(out[i].question not in dev_questions for i in train_idx)  # no copy of a dev example


def test_the_passage_split_keeps_a_passage_on_one_side_and_the_example_split_is_the_old_one():
    """``--dev-split passage`` (the default): every example of a passage on one side, seeded, both sides kept;
    ``--dev-split example`` gives :func:`split`'s indices, as the shipped checkpoints were made."""
    examples = [TaggedExample(f"q{i}", f"sentence {i}", ((0, 8),), "squad", f"e{i}", passage=f"passage {i % 40}")
                for i in range(400)]
    train_idx, dev_idx = trainer.passage_split(examples, 13, 0.1, None)
    passages = lambda idx: {examples[i].passage for i in idx}  # noqa: E731
    assert sorted(train_idx + dev_idx) == list(range(400)) and not passages(train_idx) & passages(dev_idx)
    assert 1 <= len(passages(dev_idx)) <= 10 and trainer.passage_split(examples, 13, 0.1, None) == (train_idx, dev_idx)
    assert trainer.passage_split(examples, 14, 0.1, None) != (train_idx, dev_idx)
    assert sum(map(len, trainer.passage_split(examples, 13, 0.1, 50))) == 50
    one = [examples[0], examples[40]]  # two examples of one passage: no split by passage
    with pytest.raises(InputError, match="passage"):
        trainer.passage_split(one, 13, 0.1, None)
    few = examples[:2]  # two passages: whatever the hash, one on each side
    assert sorted(map(len, trainer.passage_split(few, 13, 0.1, None))) == [1, 1]
    forms = trainer.AnswerForms()
    by_example = trainer.split_examples(examples, forms, TrainConfig(data=[], output="", dev_split="example"))
    assert by_example[1:3] == split(400, 13, 0.1, None)


def test_an_example_given_by_two_specs_is_kept_once(tmp_path):
    spec = squad_file(tmp_path / "s.json")
    examples, sources = trainer.load_examples([spec, spec.replace("squad:", "squad@5:")])
    assert len(examples) == 12 and len({e.id for e in examples}) == 12
    assert sources[1]["counts"]["already given by an earlier --data"] == 5


def test_questions_of_an_excluded_file_are_not_trained_on(tmp_path):
    context = "The mayor of the town is Ada. The river is the Avon. The hall opened in 1990."
    qas = [{"id": f"q{i}", "question": q, "answers": [{"text": a, "answer_start": context.index(a)}]}
           for i, (q, a) in enumerate([("Who is the mayor?", "Ada"), ("Which river is it?", "the Avon"),
                                       ("When did the hall open?", "1990"), ("What is the river?", "the Avon")])]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}))
    spec = f"squad:{path}"
    examples, _ = trainer.load_examples([spec])
    judged = tmp_path / "judged.csv"  # two of the questions, as a human-judgment file has them: other case, spacing
    pd.DataFrame({"question": [examples[0].question.upper() + "  ", examples[3].question.rstrip("?")],
                  "answer": ["a", "b"], "reference1": ["a", "b"]}).to_csv(judged, index=False)
    kept, sources = trainer.load_examples([spec], [str(judged)])
    assert [e.id for e in kept] == [e.id for i, e in enumerate(examples) if i not in (0, 3)]
    assert sources[0]["counts"]["question in an --exclude-questions file"] == 2
    assert trainer.question_key("  What  is IT? ") == trainer.question_key("what is it")
    no_question = tmp_path / "answers.csv"  # nothing to leave out: an error, not a silent no-op
    pd.DataFrame({"answer": ["a"], "reference1": ["a"]}).to_csv(no_question, index=False)
    with pytest.raises(InputError, match=r"answers\.csv: no 'question' column"):
        trainer.load_examples([spec], [str(no_question)])


@pytest.mark.model
def test_ctrl_c_saves_a_resumable_state_at_the_step_it_came(tmp_path, monkeypatch, capsys):
    import os
    import signal

    spec = squad_file(tmp_path / "s.json")
    real, calls = trainer._loss_and_counts, []

    def step(*args):
        calls.append(1)
        if len(calls) == 1:  # Ctrl-C in the middle of the first step (states are saved every 2)
            os.kill(os.getpid(), signal.SIGINT)
        return real(*args)

    monkeypatch.setattr(trainer, "_loss_and_counts", step)
    config = small_config(spec, tmp_path / "out")
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the tests run in a background job
    with pytest.raises(KeyboardInterrupt):
        train(config)
    state = json.loads((tmp_path / "out" / trainer.STATE / trainer.PROGRESS).read_text())["progress"]
    assert state["global_step"] == 1  # the step it was in finished and was saved (not the state of step 0)
    assert "saved a resumable state" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before  # the trainer's handler is gone again
    monkeypatch.setattr(trainer, "_loss_and_counts", real)
    train(config)
    assert "resuming at epoch 1, step 1" in capsys.readouterr().out


def test_a_weighter_that_learned_nothing_warns():
    from kpqa.errors import KpqaWarning

    with pytest.warns(KpqaWarning) as caught:
        trainer._warn_if_untrained(0.0, 0.001)
    assert [str(w.message).split(":")[0] for w in caught] == [
        "dev K-F1 is 0.0000", "the weighter's K-probabilities are nearly uniform on the dev set (std 0.0010)"]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trainer._warn_if_untrained(0.6, 0.3)


def test_train_help_shows_every_default():
    text = " ".join(build_parser().format_help().split())
    for fragment in ("--epochs EPOCHS passes over the training examples (default: 5)", "(default: 16)",
                     "(default: 0.0001)", "(default: 128)", "(default: minilm)", "(default: 13)", "(default: 200)"):
        assert fragment in text


def test_checkpoint_files_get_the_umask_mode(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        ckpt.save(tmp_path / "c", {"head.weight": torch.zeros(2, 2)}, {"x": 1})
    finally:
        os.umask(old)
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in (tmp_path / "c").iterdir()} == {
        ckpt.WEIGHTS: "0o644", ckpt.METADATA: "0o644"}


@pytest.mark.model
def test_a_hub_name_offline_fails_fast(monkeypatch):
    import socket
    import time

    from huggingface_hub import constants

    from kpqa.errors import CheckpointError

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: (_ for _ in ()).throw(OSError("no network")))
    started = time.monotonic()
    with pytest.raises(CheckpointError, match="cannot load backbone 'some-org/no-such-model'"):
        load_encoder("some-org/no-such-model")
    assert time.monotonic() - started < 15
    assert constants.HF_HUB_OFFLINE is True


@pytest.mark.parametrize("avx512_bf16, amx, expected", [(True, False, "bf16"), (False, True, "bf16"),
                                                        (False, False, "fp32")])
def test_auto_precision_is_bf16_only_where_the_cpu_has_bf16_instructions(monkeypatch, avx512_bf16, amx, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    assert training_precision("auto") == expected
    assert [training_precision(p) for p in ("fp32", "bf16")] == ["fp32", "bf16"]  # explicit choices stay


def test_train_help_works_without_the_train_extra():
    """`kpqa train --help` with accelerate, datasets, pysbd and peft absent (imported on first use only)."""
    import subprocess
    import sys

    code = ("import sys\nfor m in ('accelerate', 'datasets', 'pysbd', 'peft', 'wn'): sys.modules[m] = None\n"
            "from kpqa.cli import main\nmain(['train', '--help'])")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and "--data NAME[@N]:PATH" in run.stdout and run.stderr == ""


def test_the_shared_loop_warms_up_decays_and_clips_every_step():
    """train/loop.py, what both trainers use: AdamW without decay on biases, a linear warm-up then decay, and a step
    that clips the gradients to MAX_GRAD_NORM before the optimizer sees them, then zeroes them."""
    from kpqa.train.loop import MAX_GRAD_NORM, optimizer_and_schedule, step

    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    params = list(layer.parameters())
    optimizer, scheduler = optimizer_and_schedule(params, lr=1.0, weight_decay=0.1, steps=10, warmup=0.2)
    assert [(g["params"], g["weight_decay"]) for g in optimizer.param_groups] == [([layer.weight], 0.1),
                                                                                   ([layer.bias], 0.0)]
    rates = []
    for _ in range(10):
        rates.append(scheduler.get_last_lr()[0])
        step((layer(torch.full((1, 3), 100.0)) ** 2).sum(), params, optimizer, scheduler)
    assert rates == pytest.approx([0.0, 0.5, 1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125])
    assert all(p.grad is None or not p.grad.any() for p in params)

    class Probe:  # an optimizer that records the gradients' norm it is handed
        norms: list[float] = []

        def step(self) -> None:
            self.norms.append(float(torch.linalg.vector_norm(torch.cat([p.grad.flatten() for p in params]))))

        def zero_grad(self) -> None:
            for p in params:
                p.grad = None

    probe = Probe()
    step((layer(torch.full((1, 3), 100.0)) ** 2).sum(), params, probe, scheduler)
    step(layer(torch.full((1, 3), 1e-4)).sum() * 0, params, probe, scheduler)
    assert probe.norms == pytest.approx([MAX_GRAD_NORM, 0.0]) and MAX_GRAD_NORM == 1.0
    assert all(p.grad is None for p in params)
