"""The console script's process (:func:`kpqa.cli.console`): the garbage collector paused while a command imports and
loads, running while it scores, frozen at the end; a caller of :func:`kpqa.cli.main` keeps its collector as it is."""
from __future__ import annotations

import gc
import subprocess
import sys

from kpqa.cli import main

ROWS = "question,answer,reference1\nwho wrote hamlet,shakespeare wrote it,william shakespeare\n"

# records whether the collector runs when the scorer is built, when scoring starts and when another command
# runs, then runs the console script
PROBE = """
import gc, sys
from kpqa import scoring
from kpqa.cli import console, metrics
seen = []
score_file = scoring.Scorer.score_file
def recorded(self, *args, **kwargs):
    seen.append(gc.isenabled())
    return score_file(self, *args, **kwargs)
scoring.Scorer.score_file = recorded
build = scoring.build
def building(*args, **kwargs):
    seen.append(gc.isenabled())
    return build(*args, **kwargs)
scoring.build = building
listed = metrics.run
def listing(args):
    seen.append(gc.isenabled())
    return listed(args)
metrics.run = listing
sys.argv = ["kpqa", *sys.argv[1:]]
code = console()
print("RESULT", code, seen, gc.isenabled(), gc.get_freeze_count() > 0)
"""


def probe(*argv: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[-1]


def test_console_scores_with_the_collector_running_and_freezes_at_the_end(tmp_path):
    rows = tmp_path / "rows.csv"
    rows.write_text(ROWS)
    assert probe("score", str(rows), "--metrics", "BLEU-1", "-o", str(tmp_path / "out.csv"), "--quiet") == \
        "RESULT 0 [False, True] True True"
    assert (tmp_path / "out.csv").read_text().startswith("question,answer,reference1,BLEU-1")


def test_console_resumes_collection_for_the_other_commands():
    assert probe("metrics") == "RESULT 0 [True] True True"


def test_main_leaves_the_callers_collector_as_it_is(tmp_path, capsys):
    rows = tmp_path / "rows.csv"
    rows.write_text(ROWS)
    frozen = gc.get_freeze_count()
    assert main(["score", str(rows), "--metrics", "BLEU-1", "-o", str(tmp_path / "out.csv"), "--quiet"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
