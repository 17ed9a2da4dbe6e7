"""Where ``kpqa`` writes: one mechanism (:class:`kpqa.output.Destination`) for every command that writes a file.

Regular files are replaced atomically; ``-`` is stdout; character devices and FIFOs are written through, never
replaced; a symlink is followed; an output naming an input is refused unless forced.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading

import pandas as pd
import pytest

from kpqa.cli import main
from kpqa.errors import InputError, UsageError
from kpqa.output import OutputWriter, write_output, write_text

CSV = "question,answer,reference1\nwho wrote hamlet,shakespeare wrote it,william shakespeare\n"
LEXICAL = ["--metrics", "BLEU-1,ROUGE-L", "--quiet"]


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(CSV)
    return path


@pytest.mark.model
def test_dash_writes_the_table_to_stdout_and_the_summary_to_stderr(source, tmp_path, capsys):
    assert main(["score", str(source), "-o", "-", *LEXICAL]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "question,answer,reference1,BLEU-1,ROUGE-L"
    assert len(out.splitlines()) == 2 and "1 rows from" in err and re.search(r"^BLEU-1 +\d\.\d{4}  [0-9a-f]{8}$", err, re.M)
    assert not (tmp_path / "-").exists() and not list(tmp_path.glob("*.signatures.json"))  # no file: no signatures file


@pytest.mark.model
def test_no_output_on_a_pipe_writes_the_table_to_stdout(source, capsys):
    assert main(["score", str(source), *LEXICAL]) == 0  # capsys: stdout is not a terminal
    out, err = capsys.readouterr()
    assert out.startswith("question,answer,reference1,BLEU-1,ROUGE-L\n") and "\nBLEU-1  " in err


@pytest.mark.model
def test_a_file_output_gets_every_signature_beside_it_and_the_terminal_their_hashes(source, tmp_path, capsys):
    out = tmp_path / "scored.parquet"
    assert main(["score", str(source), "-o", str(out), *LEXICAL]) == 0
    printed, err = capsys.readouterr()
    record = json.loads((tmp_path / "scored.parquet.signatures.json").read_text())
    assert record["signatures"]["ROUGE-L"].startswith("ROUGE-L|tok:ptb|") and "calibration" not in record
    rows = {line.split()[0]: line.split()[-1] for line in printed.splitlines()[2:]}
    assert rows == record["short_hashes"] == {
        c: hashlib.sha256(s.encode()).hexdigest()[:8] for c, s in record["signatures"].items()}
    assert f"wrote {out}.signatures.json" in err and not list(tmp_path.glob(".*.tmp"))
    assert main(["score", str(source), "-o", str(out), "-v", *LEXICAL]) == 0  # -v: the full signatures, as sacrebleu
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"{c:<7}  {pd.read_parquet(out)[c].mean():.4f}  {s}" for c, s in record["signatures"].items()]


@pytest.mark.model
def test_character_device_is_written_through_not_replaced(source, capsys):
    before = os.stat("/dev/null")
    assert main(["score", str(source), "-o", "/dev/null", *LEXICAL]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert "wrote /dev/null" in capsys.readouterr().err and not os.path.exists("/dev/null.signatures.json")


@pytest.mark.model
def test_fifo_is_written_through(source, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    assert main(["score", str(source), "-o", str(fifo), *LEXICAL]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0].startswith("question,answer,reference1,BLEU-1,ROUGE-L")


@pytest.mark.model
def test_symlink_is_followed_and_its_target_replaced(source, tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["score", str(source), "-o", str(link), *LEXICAL]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert list(pd.read_csv(target).columns)[-2:] == ["BLEU-1", "ROUGE-L"]
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # an existing file keeps its mode


@pytest.mark.model
def test_output_naming_the_input_is_refused_unless_forced(source, capsys):
    assert main(["score", str(source), "-o", str(source), *LEXICAL]) == 2
    err = capsys.readouterr().err
    assert "is the input file" in err and "--force" in err and "force=True" not in err
    assert source.read_text() == CSV
    assert main(["score", str(source), "-o", str(source), "--force", *LEXICAL]) == 0
    assert list(pd.read_csv(source).columns)[-2:] == ["BLEU-1", "ROUGE-L"]


def test_library_speaks_of_force_true(source):
    with pytest.raises(UsageError, match=r"is the input file .*force=True"):
        OutputWriter(source, inputs=[source])


def test_meta_eval_and_write_text_refuse_to_overwrite_an_input(tmp_path, capsys):
    data = tmp_path / "h.csv"
    data.write_text("question,answer,reference1,scores\nq,a b,a b,5\nq,c d,a b,1\nq,a d,a b,3\n")
    assert main(["meta-eval", str(data), "--metrics", "BLEU-1", "--bootstrap", "0", "--quiet", "-o", str(data)]) == 2
    assert "is the input file" in capsys.readouterr().err
    with pytest.raises(UsageError):
        write_text(data, "x", inputs=[data])
    assert data.read_text().startswith("question,answer")


@pytest.mark.model
def test_unknown_output_extension_is_refused_before_scoring(source, tmp_path, capsys):
    assert main(["score", str(source), "-o", str(tmp_path / "out.xlsx"), *LEXICAL]) == 2
    err = capsys.readouterr().err
    assert "unknown format '.xlsx'" in err and ".parquet" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


@pytest.mark.model
def test_score_says_where_it_wrote(source, tmp_path, capsys):
    out = tmp_path / "o.tsv"
    assert main(["score", str(source), "-o", str(out), *LEXICAL]) == 0
    assert f"wrote {out} (1 rows, TSV)" in capsys.readouterr().err


def test_write_output_is_atomic_and_leaves_nothing_on_failure(tmp_path):
    frame = pd.DataFrame({"a": [1, 2]})
    out = tmp_path / "out.csv"
    old_mask = os.umask(0o022)
    try:
        write_output(frame, out)
    finally:
        os.umask(old_mask)
    assert out.read_text().splitlines() == ["a", "1", "2"]
    assert out.stat().st_mode & 0o777 == 0o644  # as an ordinary file, not mkstemp's 0600
    with pytest.raises(InputError, match="output folder does not exist"):
        write_output(frame, tmp_path / "missing" / "out.csv")

    class Boom(pd.DataFrame):
        def to_csv(self, *a, **k):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_output(Boom({"a": [1]}), tmp_path / "new.csv")
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]
