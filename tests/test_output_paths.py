"""Where ``kpqa`` writes: one mechanism (:class:`kpqa.io.Destination`) for every command that writes a file.

Regular files are replaced atomically; ``-`` is stdout; character devices and FIFOs are written through, never
replaced; a symlink is followed; an output naming an input is refused unless forced.
"""
from __future__ import annotations

import os
import stat
import threading

import pandas as pd
import pytest

from kpqa.cli import main
from kpqa.errors import UsageError
from kpqa.io import OutputWriter, write_text

CSV = "question,answer,reference1\nwho wrote hamlet,shakespeare wrote it,william shakespeare\n"
LEXICAL = ["--metrics", "BLEU-1,ROUGE-L", "--quiet"]


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(CSV)
    return path


def test_dash_writes_the_table_to_stdout_and_the_summary_to_stderr(source, tmp_path, capsys):
    assert main(["score", str(source), "-o", "-", *LEXICAL]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "question,answer,reference1,BLEU-1,ROUGE-L"
    assert len(out.splitlines()) == 2 and "1 rows from" in err and "BLEU-1|" in err
    assert not (tmp_path / "-").exists()


def test_no_output_on_a_pipe_writes_the_table_to_stdout(source, capsys):
    assert main(["score", str(source), *LEXICAL]) == 0  # capsys: stdout is not a terminal
    out, err = capsys.readouterr()
    assert out.startswith("question,answer,reference1,BLEU-1,ROUGE-L\n") and "BLEU-1|" in err


def test_character_device_is_written_through_not_replaced(source, capsys):
    before = os.stat("/dev/null")
    assert main(["score", str(source), "-o", "/dev/null", *LEXICAL]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    assert "wrote /dev/null" in capsys.readouterr().err


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


def test_unknown_output_extension_is_refused_before_scoring(source, tmp_path, capsys):
    assert main(["score", str(source), "-o", str(tmp_path / "out.xlsx"), *LEXICAL]) == 2
    err = capsys.readouterr().err
    assert "unknown format '.xlsx'" in err and ".parquet" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_score_says_where_it_wrote(source, tmp_path, capsys):
    out = tmp_path / "o.tsv"
    assert main(["score", str(source), "-o", str(out), *LEXICAL]) == 0
    assert f"wrote {out} (1 rows, TSV)" in capsys.readouterr().err
