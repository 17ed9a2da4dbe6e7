"""Regenerate docs/results.md: our figures on the shared human-judgment sets beside the papers' own.

- KPQA paper (Lee et al. 2021) Table 3 (Pearson r / Spearman rho on MS-MARCO and NarrativeQA), Table 4 (-KP: the
  question-free weighter; -KPQA/MARCO and -KPQA/SQuAD: the weighters in ``ablations/``, trained without MS-MARCO
  and on SQuAD alone with the MPNet recipe, beside -KPQA/MPNet, that recipe on the whole mix), Table 7 (rank-pair
  agreement on MS-MARCO);
- Yang et al. (2018)'s overall level on MS-MARCO (two systems), and their adapted BLEU-4 / ROUGE-L on DuReader
  (``experiments/dureader_yang.py``, run as a subprocess and quoted verbatim);
- Soricut & Brill (2004)'s AEv(alpha, N) grid (Pearson r and R^2) on both human sets, as tables and heat maps.

Every table names the command that recomputes it. The KPQA metrics need the weighter checkpoint
(``checkpoints/default/metadata.json``); without it they are left out and the document says so.

    python experiments/reproduce.py [FOLDER (default docs/)] [--data ../shared/data] [--out FOLDER/results.md]
        [--figures FOLDER/figures]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from kpqa import __version__, metaeval, plots
from kpqa.metaeval import statistics
from kpqa.errors import KpqaError

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SETS = {"MS-MARCO": "human_eval/marco_all.csv", "NarrativeQA": "human_eval/nrqa_mhpgm.csv"}

# Lee et al. 2021, Table 3: (Pearson r, Spearman rho) per data set; AVSD and SemEval have no released file here.
PAPER_TABLE3 = {
    "BLEU-1": {"MS-MARCO": (0.349, 0.329), "NarrativeQA": (0.634, 0.643)},
    "BLEU-4": {"MS-MARCO": (0.193, 0.244), "NarrativeQA": (0.258, 0.570)},
    "ROUGE-L": {"MS-MARCO": (0.309, 0.301), "NarrativeQA": (0.707, 0.708)},
    "METEOR": {"MS-MARCO": (0.423, 0.413), "NarrativeQA": (0.735, 0.755)},
    "CIDEr": {"MS-MARCO": (0.275, 0.278), "NarrativeQA": (0.648, 0.710)},
    "BERTScore": {"MS-MARCO": (0.463, 0.456), "NarrativeQA": (0.785, 0.767)},
    "BLEU-1-KPQA": {"MS-MARCO": (0.675, 0.634), "NarrativeQA": (0.716, 0.699)},
    "ROUGE-L-KPQA": {"MS-MARCO": (0.698, 0.642), "NarrativeQA": (0.774, 0.750)},
    "BERTScore-KPQA": {"MS-MARCO": (0.673, 0.655), "NarrativeQA": (0.782, 0.770)},
    # our alternative token choice for the lexical KPQA metrics (PTB words, not word pieces); not in the paper
    "BLEU-1-KPQA:tok=words": {},
    "ROUGE-L-KPQA:tok=words": {},
    # the paper's subsequence for ROUGE-L-KPQA (a longest one; ours counts the heaviest)
    "ROUGE-L-KPQA:lcs=longest": {},
}
# Table 4, MS-MARCO only.
PAPER_TABLE4 = {
    "BLEU-1-KP": (0.629, 0.589), "ROUGE-L-KP": (0.671, 0.640), "BERTScore-KP": (0.657, 0.649),
    "BLEU-1-KPQA/MARCO": (0.573, 0.529), "ROUGE-L-KPQA/MARCO": (0.598, 0.564), "BERTScore-KPQA/MARCO": (0.602, 0.595),
}
# Table 7, MS-MARCO: % of the 93 pairs ordered as the humans order them.
PAPER_TABLE7 = {"BLEU-1": 63.44, "ROUGE-L": 61.29, "BERTScore": 67.74, "BLEU-1-KPQA": 74.19, "ROUGE-L-KPQA": 76.34,
                "BERTScore-KPQA": 76.34}
PAPER_PAIRS = 93
# Soricut & Brill 2004: best cells of their QA grids (R^2 x 100, one point per system, 11 systems).
SB_BEST = {"Table 5 (first QA evaluation)": ("AEv(0, 2)", 91.72), "Table 6 (second QA evaluation)": ("AEv(0.3, 2)", 86.26)}

LEXICAL = ["BLEU-1", "BLEU-4", "ROUGE-L", "METEOR", "CIDEr"]
ENCODER = ["BERTScore"]
KPQA = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"]
WORDS = ["BLEU-1-KPQA:tok=words", "ROUGE-L-KPQA:tok=words", "ROUGE-L-KPQA:lcs=longest"]
KP = ["BLEU-1-KP", "ROUGE-L-KP", "BERTScore-KP"]


def _metadata(folder: Path) -> dict | None:
    """The checkpoint's metadata once training has finished (a checkpoint still training counts as absent)."""
    path = folder / "metadata.json"
    if not path.exists():
        return None
    metadata = json.loads(path.read_text())
    return metadata if metadata.get("status", "finished") == "finished" else None


def _sources(metadata: dict) -> list[str]:
    return [s["spec"].split(":", 1)[0] for s in metadata.get("sources", [])]


def _available(names: list[str]) -> tuple[list[str], dict[str, str]]:
    """Registered metric names, and why the others are left out."""
    from kpqa.scoring import Scorer

    ok, missing = [], {}
    for name in names:
        try:
            Scorer([name])
        except KpqaError as e:
            missing[name] = str(e)
        else:
            ok.append(name)
    return ok, missing


def _show(path: Path) -> str:
    """A path as a reader of the repository sees it."""
    return os.path.relpath(path, REPO)


def _cmd(args: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in args)


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _corr(report: dict, metric: str, statistic: str) -> float | None:
    return report["correlations"].get(metric, {}).get(statistic, {}).get("value")


def table3(reports: dict[str, dict], metrics: list[str], left_out: dict[str, str]) -> list[str]:
    head = " | ".join(f"{s} r (paper) | {s} ρ (paper)" for s in reports)
    lines = [f"| metric | {head} |", "| --- |" + " --- | --- |" * len(reports)]
    for metric in list(PAPER_TABLE3):
        cells = []
        for name, report in reports.items():
            paper = PAPER_TABLE3[metric].get(name, (None, None))
            if metric in metrics:
                cells += [f"{_num(_corr(report, metric, s))} ({_num(p)})" for s, p in zip(("pearson", "spearman"), paper)]
            else:
                cells += [f"— ({_num(p)})" for p in paper]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    notes = [f"- {m}: left out: {why}" for m, why in left_out.items() if m in PAPER_TABLE3]
    return lines + ([""] + notes if notes else [])


def table4(report: dict, kp_metrics: list[str], ablation_metrics: dict[str, str], notes: list[str]) -> list[str]:
    lines = ["| metric | r | ρ | paper r | paper ρ |", "| --- | --- | --- | --- | --- |"]
    for metric in KPQA:
        lines.append(f"| {metric} | {_num(_corr(report, metric, 'pearson'))} | {_num(_corr(report, metric, 'spearman'))}"
                     f" | {PAPER_TABLE3[metric]['MS-MARCO'][0]:.3f} | {PAPER_TABLE3[metric]['MS-MARCO'][1]:.3f} |")
    for metric in KP:
        ours = (_num(_corr(report, metric, "pearson")), _num(_corr(report, metric, "spearman"))) \
            if metric in kp_metrics else ("—", "—")
        lines.append(f"| {metric} | {ours[0]} | {ours[1]} | {PAPER_TABLE4[metric][0]:.3f} | {PAPER_TABLE4[metric][1]:.3f} |")
    for paper_name, column in ablation_metrics.items():
        ours = (_num(_corr(report, column, "pearson")), _num(_corr(report, column, "spearman"))) if column else ("—", "—")
        paper = [f"{v:.3f}" for v in PAPER_TABLE4[paper_name]] if paper_name in PAPER_TABLE4 else ["n/a", "n/a"]
        lines.append(f"| {paper_name} | {ours[0]} | {ours[1]} | {paper[0]} | {paper[1]} |")
    return lines + [""] + [f"- {n}" for n in notes]


def table7(report: dict) -> list[str]:
    rp = report["rank_pairs"]
    lines = [f"Pairs: {rp['pairs']} of {rp['same_item_pairs']} questions answered by both systems have a "
             f"{rp['rule']} (paper: {PAPER_PAIRS}); a metric tie counts as a miss.", "",
             "| metric | matches | ties | % | paper % |", "| --- | --- | --- | --- | --- |"]
    gaps = []
    for r in rp["results"]:
        paper = PAPER_TABLE7.get(r["metric"])
        lines.append(f"| {r['metric']} | {r['matches']}/{r['pairs']} | {r['ties']} | {_num(r['percent'], 2)} | "
                     f"{_num(paper, 2)} |")
        if paper is not None and r["percent"] is not None:
            gaps.append((r["metric"], r["percent"] - paper))
    if gaps:
        lines += ["", "Ours minus the paper's, in points: " + ", ".join(f"{m} {g:+.2f}" for m, g in gaps) + ". "
                  "The paper states only the threshold and the pair count, not how metric ties were counted; "
                  "where our Table 3 correlations equal the paper's to three decimals (BLEU-1, ROUGE-L on MS-MARCO), "
                  "the per-answer scores are very likely the same, so such a gap comes from how the pairs were "
                  "formed or counted, which we could not recover from the released file."]
    return lines


def grid_section(name: str, grid: dict, figure: Path, out: Path) -> list[str]:
    typed = statistics.Grid(**grid)
    best = typed.best()
    lines = [f"#### {name}", ""]
    if best is not None:
        lines += [f"Best cell: AEv({best[0]:g}, {best[1]}) with R² = {100 * best[2]:.2f} (× 100).", ""]
    lines += ["R² × 100:", ""] + metaeval.grid_table(typed, "r2", True) + ["", "Pearson r:", ""]
    lines += metaeval.grid_table(typed, "pearson", False)
    lines += ["", f"![AEv grid, {name}]({figure.relative_to(out.parent).as_posix()})", ""]
    return lines


def _run_script(name: str, path: Path, args: list[str], shown: list[str]) -> tuple[str, str]:
    """(command as shown, output) of ``experiments/NAME`` run with ``args`` on the shared file ``path``."""
    script = REPO / "experiments" / name
    if not script.exists() or not path.exists():
        return _cmd(shown), f"not run: {script if not script.exists() else path} is missing"
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        return _cmd(shown), f"failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
    return _cmd(shown), done.stdout.strip()


def dureader(data: Path) -> tuple[str, str]:
    """(command, output) of experiments/dureader_yang.py on the shared DuReader dev file."""
    path = data / "dureader" / "search.dev.jsonl"
    return _run_script("dureader_yang.py", path, ["--data", str(path)],
                       ["python", "experiments/dureader_yang.py", "--data", f"../shared/data/dureader/{path.name}"])


def yang_auto(data: Path, device: str) -> tuple[str, str]:
    """(command, output) of experiments/yang_auto.py: Yang's metrics with automatic labels on the shared sets."""
    return _run_script("yang_auto.py", data / "human_eval" / "marco_all.csv",
                       ["--data", str(data), "--device", device], ["python", "experiments/yang_auto.py"])


def yang_auto_section(command: str, output: str) -> list[str]:
    """The section on ``BLEU-4-adapted:labels=auto`` / ``ROUGE-L-adapted:labels=auto`` (issue 46)."""
    return [
        "## Yang et al. (2018) on any data: labels found automatically",
        "",
        "`BLEU-4-adapted:labels=auto` / `ROUGE-L-adapted:labels=auto` need no label columns: the question's type, "
        "the opinion (Yes / No / Depends) of the answers to yes-no questions and, for entity questions, the "
        "references' keyphrase spans as entities are found by `kpqa/metrics/labels.py` (gold labels win where a "
        "row has them). " + (f"Command: `{command}`; its output verbatim:" if command else ""),
        "",
        output,
    ]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options; ``--out`` and ``--figures`` default to FOLDER/results.md and FOLDER/figures."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", nargs="?", type=Path, default=REPO / "docs",
                   help="write results.md, results.json and figures/ here (default: docs/)")
    p.add_argument("--data", type=Path, default=DATA, help="the shared data folder (default: ../shared/data)")
    p.add_argument("--out", type=Path, help="markdown to write (default: FOLDER/results.md)")
    p.add_argument("--figures", type=Path, help="folder of the PNGs (default: FOLDER/figures)")
    p.add_argument("--checkpoint", type=Path, default=REPO / "checkpoints" / "default", help="KPQA weighter")
    p.add_argument("--kp-checkpoint", type=Path, default=REPO / "checkpoints" / "no-question",
                   help="question-free weighter for Table 4's -KP rows")
    p.add_argument("--no-marco-checkpoint", type=Path, default=REPO / "ablations" / "no-marco",
                   help="weighter trained without MS-MARCO (Table 4's /MARCO rows)")
    p.add_argument("--squad-only-checkpoint", type=Path, default=REPO / "ablations" / "squad-only",
                   help="weighter trained on SQuAD alone (Table 4's /SQuAD rows; not in the paper)")
    p.add_argument("--mpnet-checkpoint", type=Path, default=REPO / "checkpoints" / "mpnet",
                   help="the MPNet weighter, trained as the leave-out ones on the whole mix (Table 4's /MPNet rows)")
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto")
    p.add_argument("--skip-dureader", action="store_true")
    p.add_argument("--skip-yang-auto", action="store_true", help="leave out the section on Yang's automatic labels")
    args = p.parse_args(argv)
    args.out = args.out or args.folder / "results.md"
    args.figures = args.figures or args.folder / "figures"
    return args


def table4_data(args: argparse.Namespace, options: metaeval.ScorerOptions, marco_file: Path,
                marco_data: metaeval.Dataset, marco: dict, checkpoint: dict | None) -> tuple[dict, list[str], dict[str, str], list[str]]:
    """Table 4's rows on MS-MARCO: the -KP weighter's and the leave-out weighters' scores added to ``marco_data``;
    (its report with them, the -KP metrics scored, paper row -> our column, notes)."""
    kp_checkpoint = _metadata(args.kp_checkpoint)
    marco_checkpoint = _metadata(args.no_marco_checkpoint)
    leave_outs = [("MARCO", args.no_marco_checkpoint, marco_checkpoint, "without MS-MARCO on {}"),
                  ("SQuAD", args.squad_only_checkpoint, _metadata(args.squad_only_checkpoint), "on SQuAD alone: {}"),
                  # the leave-out weighters follow the MPNet recipe: its full mix is their like-for-like reference
                  ("MPNet", args.mpnet_checkpoint, _metadata(args.mpnet_checkpoint),
                   "on the whole mix with the leave-out weighters' recipe (MPNet LoRA; `--checkpoint mpnet`): {}")]
    notes: list[str] = []
    kp_metrics: list[str] = []
    ablation_columns: dict[str, str] = {}
    if kp_checkpoint:
        kp_settings = metaeval.Settings(metrics=KP, bootstrap=args.bootstrap, seed=args.seed,
                                        scorer_options=replace(options, checkpoint=str(args.kp_checkpoint)))
        kp_data = metaeval.load_dataset(marco_file, kp_settings)
        marco_data.scores.update(kp_data.scores)
        marco_data.signatures.update(kp_data.signatures)
        kp_metrics = KP
        notes.append(f"-KP: weighter {_show(args.kp_checkpoint)} (trained without the question).")
    else:
        notes.append(f"-KP rows not computed: no finished question-free checkpoint at {_show(args.kp_checkpoint)}.")
    if not marco_checkpoint and checkpoint and "msmarco" not in _sources(checkpoint):
        ablation_columns.update({f"{m}/MARCO": m for m in KPQA})
        notes.append(f"-KPQA/MARCO rows: our weighter was trained on {', '.join(sorted(set(_sources(checkpoint))))} "
                     "only (MS-MARCO Q&A is not in the shared data), so it is itself a weighter that never saw "
                     "MS-MARCO: these rows repeat our -KPQA rows, and there is no in-domain counterpart of the "
                     "paper's -KPQA rows.")
    elif not marco_checkpoint:
        ablation_columns.update({f"{m}/MARCO": "" for m in KPQA})
    for suffix, folder, meta_, without in leave_outs:
        if not meta_:
            continue
        other_settings = metaeval.Settings(metrics=KPQA, bootstrap=args.bootstrap, seed=args.seed,
                                           scorer_options=replace(options, checkpoint=str(folder)))
        other = metaeval.load_dataset(marco_file, other_settings)
        for metric in KPQA:
            column = f"{metric}/{suffix}"
            marco_data.scores[column] = other.scores[metric]
            marco_data.signatures[column] = other.signatures[metric]
            ablation_columns[column] = column
        sources = ", ".join(dict.fromkeys(_sources(meta_)))
        notes.append(f"-KPQA/{suffix}: weighter {_show(folder)} (`kpw:{meta_.get('weights_sha256', '?')[:12]}`), "
                     f"trained {without.format(sources)} (the training commands are in its metadata.json).")
    notes += [f"-KPQA/{suffix} rows not computed: no finished checkpoint at {_show(folder)}."
              for suffix, folder, meta_, _ in leave_outs
              if not meta_ and not ablation_columns.get(f"{KPQA[0]}/{suffix}")]  # /MARCO may repeat -KPQA
    if kp_checkpoint or any(meta_ for _, _, meta_, _ in leave_outs):
        extra = metaeval.Settings(metrics=list(marco_data.scores), bootstrap=args.bootstrap, seed=args.seed)
        marco = metaeval.build_report([marco_data], extra).to_dict()["datasets"][0]
    return marco, kp_metrics, ablation_columns, notes


def draw_figures(folder: Path, datasets: list[metaeval.Dataset], reports: list[dict],
                 metrics: list[str]) -> dict[str, Path]:
    """Per data set, the metric-vs-human scatter plot and the AEv grid heat map."""
    folder.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Path] = {}
    for name, data, rep in zip(SETS, datasets, reports):
        slug = name.lower().replace("-", "")
        pearson = {m: c["pearson"]["value"] for m, c in rep["correlations"].items()}
        figures[f"{name}-scatter"] = plots.scatter(data.human, {m: data.scores[m] for m in metrics},
                                                   folder / f"{slug}-scatter.png", title=name, pearson=pearson,
                                                   dpi=72)
        figures[f"{name}-grid"] = plots.grid_heatmap(rep["aev_grid"], folder / f"{slug}-aev-grid.png",
                                                     title=f"{name}: AEv(α, N), R² × 100 (points: answers)")
    return figures


def checkpoint_line(folder: Path, checkpoint: dict | None) -> str:
    """What the document says of the weighter checkpoint."""
    if not checkpoint:
        return "none (the KPQA rows are left out)"
    return (f"`{_show(folder)}`: backbone {checkpoint['backbone']['name']}, "
            f"{'with' if checkpoint.get('use_question') else 'without'} the question, trained on "
            f"{', '.join(s['spec'] for s in checkpoint.get('sources', []))} "
            f"({checkpoint.get('examples', {}).get('total', '?')} examples; dev loss "
            f"{checkpoint.get('dev', {}).get('loss', '?')})")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.time()
    checkpoint = _metadata(args.checkpoint)
    wanted = LEXICAL + ENCODER + (KPQA + WORDS if checkpoint else [])
    metrics, left_out = _available(wanted)
    if not checkpoint:
        left_out.update({m: f"no finished weighter checkpoint at {_show(args.checkpoint)}" for m in KPQA})
    options = metaeval.ScorerOptions(checkpoint=str(args.checkpoint), device=args.device, batch_size=64)
    settings = metaeval.Settings(metrics=metrics, bootstrap=args.bootstrap, seed=args.seed, aev_grid=True,
                                 scorer_options=options)
    files = {name: args.data / rel for name, rel in SETS.items()}
    datasets = metaeval.load_all([files[n] for n in SETS], settings)
    built = metaeval.build_report(datasets, settings)
    for entry in built.datasets:  # paths as a reader of the repo sees them
        entry.source = _show(Path(entry.source))
    report = built.to_dict()
    reports = dict(zip(SETS, report["datasets"]))
    marco = reports["MS-MARCO"]
    meta_cmd = _cmd(["kpqa", "meta-eval", *[f"../shared/data/{SETS[n]}" for n in SETS], "--metrics", ",".join(metrics),
                     "--bootstrap", str(args.bootstrap), "--seed", str(args.seed), "--aev-grid"])

    marco_full, kp_metrics, ablation_columns, t4_notes = table4_data(args, options, files["MS-MARCO"], datasets[0],
                                                                     marco, checkpoint)
    figures = draw_figures(args.figures, datasets, report["datasets"], metrics)

    dureader_cmd, dureader_out = ("", "skipped (--skip-dureader)") if args.skip_dureader else dureader(args.data)
    auto_cmd, auto_out = ("", "skipped (--skip-yang-auto)") if args.skip_yang_auto else yang_auto(args.data,
                                                                                                   args.device)

    appendix = replace(built, datasets=[replace(d, aev_grid=None) for d in built.datasets])
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    rel = lambda path: path.relative_to(out.parent).as_posix()  # noqa: E731
    ck = checkpoint_line(args.checkpoint, checkpoint)
    lines = [
        "# Results: kpqa against the papers",
        "",
        f"Generated by `python experiments/reproduce.py` (kpqa {__version__}, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}, {time.time() - started:.0f} s). Human-judgment sets: the KPQA authors' "
        "release (`../shared/data/human_eval/`): MS-MARCO NLG (1,000 answers: 500 questions x 2 systems, mean of "
        "filtered 1-5 ratings) and NarrativeQA (500 answers of one system, scores in [0, 1], Chen et al. 2019). "
        "AVSD and SemEval are not released here, so those columns of the paper's tables have no counterpart.",
        "",
        f"Weighter checkpoint: {ck}. Our BERTScore encoder is the pip-shipped MiniLM and the weighter's backbone the "
        "one named here (the paper: BERT-base for both), so BERTScore and the weighter differ from the paper's by "
        "construction; lexical metrics use the PTB-style tokenizer.",
        "",
        "All figures below: `" + meta_cmd + "` (add `-o report.md --json report.json --plots DIR` for the full "
        "report with 95% bootstrap intervals, Kendall τ and paired tests; it is reproduced at the end of this file).",
        "",
        "## KPQA paper, Table 3: correlation with human judgments",
        "",
        "Ours (paper's) Pearson r and Spearman ρ.",
        "",
        *table3(reports, metrics, left_out),
        "",
        f"![MS-MARCO scatter]({rel(figures['MS-MARCO-scatter'])})",
        "",
        f"![NarrativeQA scatter]({rel(figures['NarrativeQA-scatter'])})",
        "",
        "## KPQA paper, Table 4: ablations on MS-MARCO",
        "",
        "Command for the -KP rows: `kpqa meta-eval ../shared/data/human_eval/marco_all.csv --metrics "
        f"{','.join(KP)} --checkpoint {_show(args.kp_checkpoint)}`.",
        "",
        *table4(marco_full, kp_metrics, ablation_columns, t4_notes),
        "",
        "## KPQA paper, Table 7: rank-pair agreement on MS-MARCO",
        "",
        "Rows i and i+500 of `marco_all.csv` answer the same question (same question and reference text in all 500 "
        "rows); a pair is kept when the two answers' human scores differ by 2 or more: that gives the paper's 93 "
        "pairs (4 pairs differ by exactly 2.0; \"greater than 2\" taken strictly gives 89). NarrativeQA holds one "
        "system, so rank-pair is undefined there.",
        "",
        *table7(marco),
        "",
        "## Yang et al. (2018): overall level on MS-MARCO",
        "",
        "Each of 100 draws samples 30 questions; each of the 2 systems is scored on them by its mean human and mean "
        "metric score; Pearson r over the 200 (draw, system) points (the paper: 5 systems, 500 points). "
        "NarrativeQA has one system: undefined.",
        "",
        "| metric | r | p |",
        "| --- | --- | --- |",
        *[f"| {r['metric']} | {_num(r['value'])} | {metaeval.p_text(r['p_value'])} |" for r in marco["overall"]["results"]],
        "",
        "## Soricut & Brill (2004): AEv(α, N) grids",
        "",
        "Their points are systems (11 QA systems; best cells: "
        + "; ".join(f"{t}: {cell}, R² = {v}" for t, (cell, v) in SB_BEST.items())
        + "). Ours are answers (one or two systems per set), so values are not comparable in size, only in shape. "
        "Stop words: NLTK's English list (theirs: 626 words, unpublished); Porter stemming; B = 1, W = 2.",
        "",
    ]
    for name, figure_key in (("MS-MARCO", "MS-MARCO-grid"), ("NarrativeQA", "NarrativeQA-grid")):
        lines += grid_section(name, reports[name]["aev_grid"], figures[figure_key], out)
    lines += [
        "## Yang et al. (2018): adapted BLEU-4 / ROUGE-L on DuReader",
        "",
        f"Command: `{dureader_cmd}`. DuReader ships no system outputs or human scores, so the script builds "
        "candidates itself and checks orderings (see its docstring); its output (markdown) verbatim:",
        "",
        dureader_out,
        "",
        *yang_auto_section(auto_cmd, auto_out),
        "",
        "## Appendix: the full meta-evaluation report",
        "",
        *[f"##{line}" if line.startswith("#") else line for line in metaeval.to_markdown(appendix).splitlines()],
    ]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out.with_suffix(".json")).write_text(metaeval.to_json(built), encoding="utf-8")
    print(f"wrote {out}, {out.with_suffix('.json')} and {len(figures)} figures in {args.figures} "
          f"in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
