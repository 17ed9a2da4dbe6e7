"""Data-parallel scoring under ``accelerate launch``: two CPU processes, each scoring its shard of every chunk."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.slow

ROWS = 11  # chunks of 5, 5 and 1 rows: the last gives process 0 an empty shard


def _launch(args: list[str], cwd) -> subprocess.CompletedProcess:
    with socket.socket() as s:  # a free port, so that concurrent runs do not collide on accelerate's default
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # accelerate's --cpu flag starts one process unless given an MPI hostfile; --multi_gpu starts N processes through
    # torch.distributed.run, and on a machine without a GPU the scorer joins them over gloo on the CPU
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines",
           "1", "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", str(port), *args]
    env = dict(os.environ)
    import torch

    if torch.cuda.device_count() < 2:  # two processes on one GPU is not a setup NCCL takes: shard over CPU processes
        env["CUDA_VISIBLE_DEVICES"] = ""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _input(tmp_path):
    words = "the cat sat on a mat while four dogs ran far away".split()
    rng = np.random.default_rng(0)
    records = [
        {"question": f"question {i}", "answer": " ".join(rng.choice(words, 3 + i % 5)) + f" {i}",
         "reference1": " ".join(rng.choice(words, 6)), "reference2": " ".join(rng.choice(words, 2 + i % 3))}
        for i in range(ROWS)
    ]
    path = tmp_path / "in.csv"
    pd.DataFrame(records).to_csv(path, index=False)
    return path


@pytest.mark.model
def test_each_process_scores_its_shard_and_the_output_keeps_input_order(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        from accelerate import PartialState
        from kpqa.output import OutputWriter
        from kpqa.input import iter_input
        from kpqa.metrics.base import Metric, Totals, register
        from kpqa.scoring import Scorer

        @register("Who")
        class Who(Metric):
            name = "Who"
            def columns(self):
                return ["rank", "row"]
            def stats(self, rows, ctx):  # the process that scored each row, and the row's number from its text
                return np.stack([np.full(len(rows), PartialState().process_index, dtype=float),
                                 np.array([float(c.split()[-1]) for c in rows.candidates])], axis=1)
            def per_row(self, stats):
                return {"rank": stats[:, 0], "row": stats[:, 1]}
            def corpus(self, totals):
                return {"rank": totals.mean(0), "row": totals.mean(1)}

        scorer = Scorer(["Who", "BLEU-4"], data_parallel=True)
        assert scorer.parallel.world == 2
        plan = scorer.plan_for(sys.argv[1])
        writer = OutputWriter(sys.argv[2], last_columns=scorer.columns(plan)) if scorer.is_main else None
        result = scorer.score_stream(iter_input(sys.argv[1], 5), writer.write if writer else None)
        if writer:
            writer.close()
            print("corpus", repr(result.corpus["BLEU-4"]))
        else:
            assert result.corpus == {}
    """))
    path = _input(tmp_path)
    done = _launch([str(script), str(path), str(tmp_path / "out.csv")], tmp_path)
    out = pd.read_csv(tmp_path / "out.csv", float_precision="round_trip")
    assert out["row"].tolist() == list(range(ROWS))
    # contiguous shards of each chunk: 5 rows -> 2 + 3, the last chunk of 1 row -> 0 + 1
    assert out["rank"].tolist() == [0, 0, 1, 1, 1] * 2 + [1]
    from kpqa.scoring import Scorer

    whole = Scorer(["BLEU-4"]).score(path)
    assert f"corpus {whole.corpus['BLEU-4']!r}" in done.stdout  # corpus BLEU over all rows, not per shard
    np.testing.assert_array_equal(out["BLEU-4"], whole.frame["BLEU-4"])


@pytest.mark.model
def test_kpqa_score_under_accelerate_launch_matches_one_process(tmp_path):
    path = _input(tmp_path)
    metrics = "BLEU-1,BLEU-4,ROUGE-L,AEv-0.3-2,CIDEr"  # CIDEr: its idf from a corpus pass reduced over processes
    done = _launch(["-m", "kpqa.cli", "score", str(path), "--metrics", metrics, "--chunk-rows", "4", "--quiet",
                    "-o", str(tmp_path / "parallel.csv")], tmp_path)
    from kpqa.scoring import Scorer

    whole = Scorer(metrics.split(",")).score(path)
    assert done.stdout.count("rows from") == 1  # only the main process prints
    assert done.stdout.splitlines()[1:] == whole.summary().splitlines()
    parallel = pd.read_csv(tmp_path / "parallel.csv", float_precision="round_trip")
    assert list(parallel.columns) == list(whole.frame.columns)
    for column in metrics.split(","):
        np.testing.assert_array_equal(parallel[column], whole.frame[column].astype(float))
