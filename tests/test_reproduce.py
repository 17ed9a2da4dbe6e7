"""experiments/reproduce.py: where it writes, and its Table 4 (rows the paper lacks, missing checkpoints named)."""
from __future__ import annotations


def _reproduce_module():
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "experiments" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce", script)
    reproduce = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reproduce)
    return reproduce, script


def test_reproduce_writes_to_the_folder_it_is_given(tmp_path):
    reproduce, script = _reproduce_module()
    args = reproduce.parse_args([str(tmp_path / "out")])
    assert (args.out, args.figures) == (tmp_path / "out" / "results.md", tmp_path / "out" / "figures")
    defaults = reproduce.parse_args([])
    assert defaults.out == script.parents[1] / "docs" / "results.md"
    ablations = script.parents[1] / "ablations"
    assert (defaults.no_marco_checkpoint, defaults.squad_only_checkpoint) == (ablations / "no-marco",
                                                                             ablations / "squad-only")


def test_reproduce_table4_gives_rows_the_paper_lacks_no_paper_figure():
    reproduce, _ = _reproduce_module()
    value = lambda r: {"pearson": {"value": r}, "spearman": {"value": r - 0.1}}  # noqa: E731
    report = {"correlations": {"BLEU-1-KPQA": value(0.7), "ROUGE-L-KPQA": value(0.6), "BERTScore-KPQA": value(0.5),
                               "BLEU-1-KPQA/MARCO": value(0.4), "BLEU-1-KPQA/SQuAD": value(0.3)}}
    lines = reproduce.table4(report, [], {"BLEU-1-KPQA/MARCO": "BLEU-1-KPQA/MARCO",
                                          "BLEU-1-KPQA/SQuAD": "BLEU-1-KPQA/SQuAD"}, ["a note"])
    assert "| BLEU-1-KPQA | 0.700 | 0.600 | 0.675 | 0.634 |" in lines
    assert "| BLEU-1-KP | — | — | 0.629 | 0.589 |" in lines
    assert "| BLEU-1-KPQA/MARCO | 0.400 | 0.300 | 0.573 | 0.529 |" in lines  # the paper's /MARCO figures
    assert "| BLEU-1-KPQA/SQuAD | 0.300 | 0.200 | n/a | n/a |" in lines  # not in the paper
    assert lines[-1] == "- a note"


def test_reproduce_table4_without_checkpoints_says_which_rows_are_missing(tmp_path):
    reproduce, _ = _reproduce_module()
    args = reproduce.parse_args([str(tmp_path), "--kp-checkpoint", str(tmp_path / "kp"),
                                 "--no-marco-checkpoint", str(tmp_path / "nm"),
                                 "--squad-only-checkpoint", str(tmp_path / "sq"),
                                 "--mpnet-checkpoint", str(tmp_path / "mp")])
    checkpoint = {"sources": [{"spec": "squad:train.json"}, {"spec": "hotpotqa:x.json"}]}
    marco = {"correlations": {}}
    report, kp_metrics, columns, notes = reproduce.table4_data(args, {}, tmp_path / "m.csv", None, marco, checkpoint)
    assert report is marco and kp_metrics == []  # nothing scored
    assert columns == {f"{m}/MARCO": m for m in reproduce.KPQA}  # a weighter that never saw MS-MARCO: our rows
    assert [n.split(":")[0] for n in notes] == ["-KP rows not computed", "-KPQA/MARCO rows",
                                                "-KPQA/SQuAD rows not computed", "-KPQA/MPNet rows not computed"]
