"""Training resume: ``kpqa train`` killed mid-epoch and re-run with the same command ends where an uninterrupted
run ends (same best dev loss, same best epoch, same history), and refuses a state folder written with other options.

The training set is a small SQuAD-layout file written here (so the test needs no shared data); the run is a couple of
tiny epochs on the pip-shipped MiniLM backbone.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
ANIMALS = ["zebra", "otter", "falcon", "badger", "lynx", "heron", "bison", "gecko", "walrus", "koala", "moose", "ibis"]
PLACES = ["the northern marsh", "a quiet valley", "the old harbour", "the pine forest", "a sandy island",
          "the river delta", "the high plateau", "a coral reef", "the city park", "the frozen lake"]
FOODS = ["berries", "small fish", "beetles", "grass seeds", "clams", "mushrooms", "reeds", "snails"]
N_QUESTIONS = 40
EPOCHS = 2
BATCH = 4
STEPS = 9  # 36 train examples (4 go to dev) / 4 a batch
SAVE_EVERY = 5  # one mid-epoch save (step 5), then the epoch's end


def _squad_file(path: Path) -> None:
    rng = random.Random(5)
    paragraphs = []
    for i in range(N_QUESTIONS):
        animal, place, food = rng.choice(ANIMALS), rng.choice(PLACES), rng.choice(FOODS)
        context = (f"Record {i} describes an animal. The {animal} lives in {place}. "
                   f"Every morning it eats {food} near the water. Visitors often photograph it.")
        asks_place = i % 2 == 0
        answer = place if asks_place else food
        question = f"Where does the {animal} of record {i} live?" if asks_place else f"What does the {animal} eat?"
        paragraphs.append({"context": context, "qas": [{"id": f"q{i}", "question": question,
                                                        "answers": [{"text": answer,
                                                                     "answer_start": context.index(answer)}]}]})
    path.write_text(json.dumps({"version": "1.1", "data": [{"title": "animals", "paragraphs": paragraphs}]}))


def _command(data: Path, output: Path, lr: str = "5e-4") -> list[str]:
    return [sys.executable, "-m", "kpqa.cli", "train", "--data", f"squad:{data}", "--output", str(output),
            "--max-examples", str(N_QUESTIONS), "--epochs", str(EPOCHS), "--batch-size", str(BATCH), "--lr", lr,
            "--max-length", "64", "--save-every", str(SAVE_EVERY), "--seed", "3"]


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONHASHSEED": "0"}


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=_env(), timeout=300)


def _progress(output: Path) -> dict | None:
    try:
        return json.loads((output / "state" / "trainer_state.json").read_text())["progress"]
    except (OSError, ValueError, KeyError):
        return None


def _kill_after_first_mid_epoch_save(cmd: list[str], output: Path) -> dict:
    """Start training, kill it as soon as the state of a mid-epoch step is saved; the saved progress."""
    proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            progress = _progress(output)
            if progress and progress["global_step"] > 0:
                break
            time.sleep(0.01)
        else:
            pytest.fail(f"training ended or hung before its first mid-epoch save: {proc.stderr.read()[-2000:]}")
    finally:
        proc.kill()
        proc.wait()
    return _progress(output)


def test_killed_training_resumes_to_the_same_best_dev_loss(tmp_path):
    data = tmp_path / "squad.json"
    _squad_file(data)

    full = _run(_command(data, tmp_path / "full"))
    assert full.returncode == 0, full.stderr[-3000:]
    reference = json.loads((tmp_path / "full" / "metadata.json").read_text())
    assert not (tmp_path / "full" / "state").exists()
    assert reference["best_epoch"] in range(1, EPOCHS + 1) and len(reference["history"]) == EPOCHS

    out = tmp_path / "resumed"
    saved = _kill_after_first_mid_epoch_save(_command(data, out), out)
    assert saved["epoch"] == 0 and saved["step_in_epoch"] == SAVE_EVERY < STEPS, saved
    assert not (out / "metadata.json").exists() or json.loads((out / "metadata.json").read_text())["status"] != "finished"

    other = _run(_command(data, out, lr="1e-3"))  # other options must not silently continue this state
    assert other.returncode == 2 and "other options" in other.stderr and "Traceback" not in other.stderr

    resumed = _run(_command(data, out))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"resuming at epoch 1, step {saved['step_in_epoch']}" in resumed.stdout + resumed.stderr
    result = json.loads((out / "metadata.json").read_text())
    assert result["status"] == "finished" and not (out / "state").exists()
    assert result["best_epoch"] == reference["best_epoch"]
    assert result["dev"]["loss"] == pytest.approx(reference["dev"]["loss"], abs=1e-4)
    for got, want in zip(result["history"], reference["history"], strict=True):
        assert got["dev_loss"] == pytest.approx(want["dev_loss"], abs=1e-4)
    assert result["examples"] == reference["examples"]
