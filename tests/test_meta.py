"""Meta-evaluation statistics (kpqa.metaeval.statistics) and whole-file runs (kpqa.metaeval)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kpqa import arraystats, metaeval
from kpqa.metaeval import statistics
from kpqa.errors import InputError, UsageError

X = [1.0, 2.0, 3.0, 4.0, 5.0]
Y = [2.0, 1.0, 4.0, 3.0, 5.0]


# ------------------------------------------------------------------------------------------------ correlations


def test_correlations_match_scipy_and_known_values():
    corr = statistics.correlate(X, Y, bootstrap=0)
    assert corr["pearson"].value == pytest.approx(0.8)
    assert corr["spearman"].value == pytest.approx(0.8)
    assert corr["kendall"].value == pytest.approx(0.6)
    assert corr["pearson"].p_value == pytest.approx(stats.pearsonr(X, Y).pvalue)
    assert corr["spearman"].p_value == pytest.approx(stats.spearmanr(X, Y).pvalue)
    assert corr["kendall"].p_value == pytest.approx(stats.kendalltau(X, Y).pvalue)
    assert corr["pearson"].ci_low is None and corr["pearson"].n == 5


@pytest.mark.parametrize("statistic", statistics.STATISTICS)
def test_vectorised_resamples_equal_scipy_on_each_resample(statistic):
    rng = np.random.default_rng(3)
    h = rng.integers(1, 6, size=40).astype(float)  # ties, like Likert means
    m = np.round(h + rng.normal(0, 1.5, size=40), 1)
    idx = arraystats.bootstrap_indices(40, 25, seed=1)
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[statistic]
    expected = [fn(h[i], m[i]).statistic for i in idx]
    np.testing.assert_allclose(statistics.resampled(statistic, h, m, idx), expected, rtol=1e-10, atol=1e-12)


def test_bootstrap_is_deterministic_with_a_seed_and_brackets_the_estimate():
    rng = np.random.default_rng(0)
    h = rng.normal(size=200)
    m = h + rng.normal(size=200)
    a = statistics.correlate(h, m, bootstrap=300, seed=7)
    b = statistics.correlate(h, m, bootstrap=300, seed=7)
    c = statistics.correlate(h, m, bootstrap=300, seed=8)
    for s in statistics.STATISTICS:
        assert (a[s].ci_low, a[s].ci_high) == (b[s].ci_low, b[s].ci_high)
        assert a[s].ci_low < a[s].value < a[s].ci_high
    assert (a["pearson"].ci_low, a["pearson"].ci_high) != (c["pearson"].ci_low, c["pearson"].ci_high)
    # the interval of r around 0.707 with n=200 is about +-0.07 wide on each side
    assert 0.03 < a["pearson"].value - a["pearson"].ci_low < 0.12


def test_bootstrap_in_blocks_gives_the_same_resamples(monkeypatch):
    rng = np.random.default_rng(4)
    h = rng.normal(size=30)
    m = h + rng.normal(size=30)
    whole = statistics.correlate(h, m, bootstrap=100, seed=3)
    monkeypatch.setattr(arraystats, "CHUNK", 70)  # two resamples a block
    assert len(list(arraystats.bootstrap_chunks(30, 100, 3))) == 50
    blocks = statistics.correlate(h, m, bootstrap=100, seed=3)
    assert all(whole[s] == blocks[s] for s in statistics.STATISTICS)


@pytest.mark.parametrize(
    "human, metric, reason",
    [
        ([3.0, 3.0, 3.0, 3.0], [0.1, 0.2, 0.3, 0.4], "human scores are constant"),
        ([1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5], "metric scores are constant"),
        ([1.0, 2.0], [0.1, 0.2], "2 rows"),
        ([1.0, 2.0, 3.0], [0.1, float("nan"), 0.3], "non-finite metric"),
    ],
)
def test_undefined_correlations_say_why(human, metric, reason):
    corr = statistics.correlate(human, metric, bootstrap=50)
    for c in corr.values():
        assert c.value is None and c.p_value is None and reason in c.note


def test_constant_resamples_are_left_out_of_intervals():
    # 3 rows: many resamples repeat one row (constant); the interval comes from the others
    corr = statistics.correlate([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], bootstrap=200, seed=0)
    assert corr["pearson"].value == pytest.approx(0.5)
    assert -1.0 <= corr["pearson"].ci_low <= corr["pearson"].ci_high <= 1.0


# ------------------------------------------------------------------------------------------------ paired bootstrap


def test_paired_bootstrap_human_equal_metric_beats_a_random_one():
    rng = np.random.default_rng(1)
    h = rng.uniform(1, 5, size=150)
    good = h.copy()
    noise = rng.uniform(size=150)
    test = statistics.paired_bootstrap(h, good, noise, resamples=500, seed=0, names=("good", "noise"))
    assert test.delta > 0.8 and test.p_value == 1 / 501 and test.ci_low > 0.5  # never 0: (0 + 1) / (500 + 1)
    reverse = statistics.paired_bootstrap(h, noise, good, resamples=500, seed=0)
    assert reverse.delta == -test.delta and reverse.p_value == test.p_value  # two-sided: the order named is no matter
    same = statistics.paired_bootstrap(h, good, good, resamples=100, seed=0)
    assert same.delta == 0 and same.p_value == 1.0  # a tie: no difference at all


def test_paired_bootstrap_detects_a_small_real_gain_and_reports_undefined():
    rng = np.random.default_rng(2)
    h = rng.normal(size=400)
    better = h + rng.normal(scale=1.0, size=400)
    worse = h + rng.normal(scale=1.6, size=400)
    test = statistics.paired_bootstrap(h, better, worse, resamples=1000, seed=0)
    assert test.delta > 0.1 and test.p_value < 0.05
    constant = statistics.paired_bootstrap(h, better, np.zeros(400), resamples=10)
    assert constant.p_value is None and "constant" in constant.note


def test_meta_eval_and_compare_give_the_same_p_value_on_the_same_paired_data(monkeypatch):
    """One paired test (kpqa.metaeval.statistics.paired_test, one p-value convention) behind both: meta-eval's paired bootstrap of
    two metrics, with its statistic made the mean score (so that it measures what kpqa compare does), gives the
    p-value and interval kpqa compare gives for the same two columns of paired rows."""
    from kpqa import comparison

    rng = np.random.default_rng(5)
    a = rng.random(200)
    b = np.clip(a + rng.normal(0.02, 0.1, 200), 0, 1)
    mean = lambda statistic, human, metric, idx=None: metric.mean() if idx is None else metric[idx].mean(axis=1)
    monkeypatch.setattr(statistics, "resampled", mean)
    monkeypatch.setattr(statistics, "point", lambda statistic, human, metric: (mean(statistic, human, metric), None))
    human = rng.random(200)  # not read by the mean
    for seed in (0, 1, 2):
        tested = statistics.paired_bootstrap(human, b, a, resamples=400, seed=seed)  # B - A, as compare says it
        compared = comparison.paired_difference(a, b, resamples=400, seed=seed)
        assert 0 < tested.p_value < 1 and tested.p_value == compared.p_value
        # mean(B) - mean(A) here, mean(B - A) there: the same up to rounding
        assert (tested.delta, tested.ci_low, tested.ci_high) == pytest.approx((compared.delta, compared.ci_low,
                                                                               compared.ci_high), abs=1e-12)


def test_the_p_value_convention_is_two_sided_and_never_zero():
    diffs = np.array([0.1, 0.2, 0.3, -0.05, 0.25])
    # shifted by the observed 0.1: |d - 0.1| >= 0.1 for 0.2, 0.3, -0.05 and 0.25 -> (4 + 1) / (5 + 1)
    assert statistics.shift_p_value(diffs, 0.1) == 5 / 6
    assert statistics.shift_p_value(-diffs, -0.1) == 5 / 6
    assert statistics.shift_p_value(np.full(9, 5.0), 5.0) == 1 / 10


# ------------------------------------------------------------------------------------------------ rank pairs


def test_pair_rows_pairs_answers_of_different_systems_to_the_same_item():
    keys = ["q1", "q2", "q3", "q1", "q2", "q4"]
    systems = ["A", "A", "A", "B", "B", "B"]
    assert statistics.pair_rows(keys, systems) == [(0, 3), (1, 4)]
    assert statistics.pair_rows(["q1", "q1"], ["A", "A"]) == []


def test_rank_pairs_on_a_hand_made_set():
    # pairs (0,4) gap 3, (1,5) gap 2 exactly, (2,6) gap 1 (dropped), (3,7) gap 4
    human = [5.0, 1.0, 3.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    metric = [0.9, 0.2, 0.5, 0.4, 0.1, 0.6, 0.1, 0.4]
    pairs = statistics.pair_rows(["a", "b", "c", "d"] * 2, ["S"] * 4 + ["T"] * 4)
    result = statistics.rank_pairs(human, metric, pairs, name="m")
    # (0,4): human 5>2, metric 0.9>0.1 match; (1,5): 1<3, 0.2<0.6 match; (3,7): 1<5 but 0.4=0.4 tie
    assert (result.pairs, result.matches, result.ties) == (3, 2, 1)
    assert result.percent == pytest.approx(200 / 3)
    strict = statistics.rank_pairs(human, metric, pairs, threshold=2.0, strict=True)
    assert (strict.pairs, strict.matches, strict.ties) == (2, 1, 1)
    flipped = statistics.rank_pairs(human, [-v for v in metric], pairs)
    assert flipped.matches == 0 and flipped.ties == 1
    assert statistics.rank_pairs(human, metric, pairs, threshold=10).percent is None


# ------------------------------------------------------------------------------------------------ overall level


def _two_systems(n_items: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    keys = [f"q{i}" for i in range(n_items)] * 2
    systems = ["A"] * n_items + ["B"] * n_items
    human = np.concatenate([rng.uniform(1, 4, n_items), rng.uniform(2, 5, n_items)])
    return human, keys, systems


def test_overall_level_protocol():
    human, keys, systems = _two_systems(60)
    exact = statistics.overall_level(human, human, keys, systems, questions=30, draws=100, seed=0)
    assert exact.value == pytest.approx(1.0) and exact.points == 200 and exact.systems == 2
    scaled = statistics.overall_level(human, 0.1 * human + 3, keys, systems, seed=0)
    assert scaled.value == pytest.approx(1.0)  # Pearson of means: invariant to a positive affine map
    noisy = human + np.random.default_rng(5).normal(0, 2, len(human))
    a = statistics.overall_level(human, noisy, keys, systems, seed=4)
    b = statistics.overall_level(human, noisy, keys, systems, seed=4)
    assert a.value == b.value and 0 < a.value < 1
    # a corpus-level aggregate: the median instead of the mean changes the value
    med = statistics.overall_level(human, noisy, keys, systems, seed=4, aggregate=lambda idx: float(np.median(noisy[idx])))
    assert med.value != a.value


def test_overall_level_undefined_cases():
    human, keys, systems = _two_systems(20)
    few = statistics.overall_level(human, human, keys, systems, questions=30)
    assert few.value is None and "20 items" in few.note
    one = statistics.overall_level(human, human, keys, ["A"] * len(keys))
    assert one.value is None and "2 systems" in one.note


# ------------------------------------------------------------------------------------------------ AEv grid


def test_grid_from_scores_r2_is_r_squared_and_marks_undefined_cells():
    rng = np.random.default_rng(0)
    h = rng.normal(size=50)
    alphas, orders = [0.0, 0.5, 1.0], [1, 2]
    scores = np.stack([np.stack([h + rng.normal(scale=s, size=50) for s in (0.5, 1.0, 2.0)]) for _ in orders])
    scores[1, 2] = 0.0  # a constant cell
    grid = statistics.grid_from_scores(h, scores, alphas, orders)
    assert grid.pearson[0][0] == pytest.approx(stats.pearsonr(h, scores[0, 0]).statistic)
    assert grid.r2[0][1] == pytest.approx(grid.pearson[0][1] ** 2)
    assert grid.r2[1][2] is None and "constant" in grid.notes["AEv-1-2"]
    assert grid.best()[:2] in {(0.0, 1), (0.0, 2)}
    with pytest.raises(ValueError):
        statistics.grid_from_scores(h, scores[:, :, :10], alphas, orders)


# ------------------------------------------------------------------------------------------------ whole files


class FakeScorer:
    """Scores 'LEN' (candidate length) and 'LEN-KPQA' (length of words shared with a reference); records calls."""

    calls: list[list[str]] = []

    def __init__(self, names):
        self.names = names
        FakeScorer.calls.append(list(names))

    def score_rows(self, rows, source, numbers=None, known_wrong=None):
        out = {}
        for name in self.names:
            if name == "LEN":
                out[name] = np.array([len(c.split()) for c in rows.candidates], dtype=float)
            elif name == "LEN-KPQA":
                out[name] = np.array([len(set(c.split()) & set(" ".join(r).split()))
                                      for c, r in zip(rows.candidates, rows.references)], dtype=float)
            else:
                raise UsageError(f"unknown metric {name!r}")
        return out, {n: float(v.mean()) for n, v in out.items()}, {n: f"{n}|fake" for n in out}


def _write(tmp_path, name, rows):
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def _two_system_file(tmp_path, n=40, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for system in range(2):
        for i in range(n):
            words = rng.integers(1, 8)
            rows.append({"question": f"question {i}?", "answer": " ".join(["word"] * words) + " reference" * (i % 2),
                         "reference1": f"reference {i}", "scores": float(min(5, 1 + words * 0.6 + rng.normal())),
                         "kind": "short" if i % 2 else "long", "given": float(i % 3)})
    return _write(tmp_path, "two.csv", rows)


def test_run_reports_every_section_and_uses_present_columns(tmp_path):
    path = _two_system_file(tmp_path)
    FakeScorer.calls = []
    settings = metaeval.Settings(metrics=["LEN", "LEN-KPQA", "given"], bootstrap=200, by="kind",
                                 overall_questions=10, overall_draws=20)
    datasets = metaeval.load_all([path], settings, FakeScorer)
    assert FakeScorer.calls == [["LEN", "LEN-KPQA"]]  # 'given' came from the file
    report = metaeval.build_report(datasets, settings)
    d = report.datasets[0]
    assert d.systems.count == 2 and "rows 1-40 and rows 41-80" in d.systems.how
    assert d.signatures["given"] == "from input column 'given'"
    expected = stats.pearsonr(datasets[0].human, datasets[0].scores["LEN"]).statistic
    assert d.correlations["LEN"]["pearson"].value == pytest.approx(expected)
    assert [(t.a, t.b, t.statistic) for t in d.paired] == [("LEN-KPQA", "LEN", "pearson"),
                                                           ("LEN-KPQA", "LEN", "spearman")]
    assert d.rank_pairs.same_item_pairs == 40
    assert d.overall.results is not None and d.overall.results[0].points == 40
    assert d.by is not None and set(d.by.groups) == {"long", "short"} and d.by.groups["short"].rows == 40
    markdown = metaeval.to_markdown(report)
    for heading in ("Correlation with human", "Paired bootstrap", "Rank-pair", "Overall level", "by `kind`"):
        assert heading in markdown
    plain = json.loads(metaeval.to_json(report))["datasets"][0]
    assert plain["name"] == "two" and plain["correlations"]["LEN"]["pearson"]["value"] == pytest.approx(expected)
    assert plain["rank_pairs"]["results"][0]["percent"] == d.rank_pairs.results[0].percent
    assert "binary" not in plain and "aev_grid" not in plain and list(plain)[-2:] == ["by", "warnings"]
    again = metaeval.build_report(metaeval.load_all([path], settings, FakeScorer), settings)
    assert again == report  # seeded: the same report twice


def test_constant_human_scores_are_a_clear_warning_not_nan(tmp_path):
    path = _write(tmp_path, "flat.csv", [{"question": "q", "answer": f"a {i}", "reference1": "r", "scores": 3,
                                          "LEN": i} for i in range(5)])
    report = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=20), FakeScorer)
    d = report.datasets[0]
    assert any("constant" in w for w in d.warnings)
    assert d.correlations["LEN"]["pearson"].value is None
    assert "undefined" in metaeval.to_markdown(report)
    assert "NaN" not in metaeval.to_json(report)


def test_constant_metric_is_a_warning(tmp_path):
    path = _write(tmp_path, "m.csv", [{"question": "q", "answer": "a", "reference1": "r", "scores": i}
                                      for i in range(5)])
    d = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0), FakeScorer).datasets[0]
    assert d.warnings[0] == "LEN: correlation undefined: the metric scores are constant"


@pytest.mark.parametrize(
    "rows, settings, message",
    [
        ([{"question": "q", "answer": "a", "reference1": "r"}] * 4, {}, "no human score column 'scores'"),
        ([{"question": "q", "answer": "a", "reference1": "r", "scores": 1}] * 2, {}, "2 rows: correlations need"),
        ([{"question": "q", "answer": "a", "reference1": "r", "scores": s} for s in (1, 2, "bad", 4)], {},
         "row 3, column 'scores': human score 'bad' is not a number"),
        ([{"question": "q", "answer": "a", "reference1": "r", "scores": s} for s in (1, 2, 3)], {"by": "type"},
         "by='type': no such column"),
        ([{"question": "q", "answer": "a", "reference1": "r", "scores": s} for s in (1, 2, 3)],
         {"system_column": "model"}, "no system column 'model'"),
    ],
)
def test_bad_files_are_one_line_input_errors(tmp_path, rows, settings, message):
    path = _write(tmp_path, "bad.csv", rows)
    with pytest.raises(InputError, match=message) as info:
        metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0, **settings), FakeScorer)
    assert "\n" not in str(info.value) and "bad.csv" in str(info.value)


def test_compare_names_must_exist(tmp_path):
    path = _two_system_file(tmp_path)
    with pytest.raises(UsageError, match="no metric column 'BLEU-1'"):
        metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0, compare=[("LEN", "BLEU-1")]),
                     FakeScorer)


def test_base_metric_names():
    assert metaeval.base_metric("BLEU-1-KPQA") == "BLEU-1"
    assert metaeval.base_metric("ROUGE-L-KP") == "ROUGE-L"
    assert metaeval.base_metric("BLEU-4-adapted") == "BLEU-4"
    assert metaeval.base_metric("BERTScore") is None


def test_system_column_and_one_system(tmp_path):
    # interleaved (m1 q0, m2 q0, m1 q1, ...): not the halves layout, only the column can tell
    rows = [{"question": f"q{i // 2}", "answer": "a b " * (i % 3 + 1), "reference1": "r", "scores": i % 4 + 1,
             "model": f"m{i % 2 + 1}"} for i in range(10)]
    path = _write(tmp_path, "sys.csv", rows)
    plain = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0), FakeScorer).datasets[0]
    assert plain.systems.count == 1 and "one system" in str(plain.rank_pairs.note)
    assert plain.rank_pairs.to_dict() == {"rule": "human gap >= 2", "pairs": 0, "note": plain.rank_pairs.note}
    named = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0, system_column="model",
                                                   threshold=1.0), FakeScorer).datasets[0]
    assert named.systems.count == 2 and named.rank_pairs.same_item_pairs == 5


@pytest.mark.shared_data
def test_marco_pairing_gives_the_papers_93_pairs(shared_data):
    path = shared_data("human_eval/marco_all.csv")
    settings = metaeval.Settings(metrics=["scores"], bootstrap=0)  # the human column as a (perfect) metric
    data = metaeval.load_dataset(path, settings, FakeScorer)
    assert data.systems[0] == "rows 1-500" and data.systems[500] == "rows 501-1000"
    pairs = statistics.pair_rows(data.keys, data.systems)
    assert pairs == [(i, i + 500) for i in range(500)]
    assert len(statistics.select_pairs(data.human, pairs, 2.0)) == 93  # KPQA paper, sec. 5.4: 93 MS-MARCO pairs
    assert len(statistics.select_pairs(data.human, pairs, 2.0, strict=True)) == 89
    perfect = statistics.rank_pairs(data.human, data.human, pairs)
    assert perfect.percent == 100.0


@pytest.mark.shared_data
def test_narrativeqa_has_one_system(shared_data):
    path = shared_data("human_eval/nrqa_mhpgm.csv")
    data = metaeval.load_dataset(path, metaeval.Settings(metrics=["RougeL"], bootstrap=0), FakeScorer)
    assert data.systems is None and len(set(data.keys)) == 500
    # the release's own precomputed ROUGE-L column against its human scores
    assert stats.pearsonr(data.human, data.scores["RougeL"]).statistic == pytest.approx(0.707, abs=0.005)  # Table 3


# ------------------------------------------------------------------------------------------------ the command


@pytest.fixture
def cli(monkeypatch):
    """kpqa.cli.main with only the meta-eval and explain subcommands (the others are tested elsewhere)."""
    from kpqa import cli as module

    monkeypatch.setattr(module, "SUBCOMMANDS", [module.meta_eval.add, module.explain.add])
    return module.main


def test_meta_eval_command_writes_report_json_and_plots(tmp_path, cli, capsys):
    path = _two_system_file(tmp_path)
    report, out, plots = tmp_path / "r.md", tmp_path / "r.json", tmp_path / "plots"
    code = cli(["meta-eval", path, "--metrics", "given", "--bootstrap", "50", "--by", "kind", "-o", str(report),
                "--json", str(out), "--plots", str(plots), "--overall-questions", "10", "--overall-draws", "5"])
    assert code == 0
    assert "| given |" in report.read_text()
    assert json.loads(out.read_text())["settings"]["bootstrap"] == 50
    assert sorted(p.name for p in plots.iterdir()) == ["two-by-kind.png", "two-scatter.png"]
    assert "wrote" in capsys.readouterr().err


def test_meta_eval_command_bad_input_is_one_line(tmp_path, cli, capsys):
    path = _two_system_file(tmp_path)
    assert cli(["meta-eval", path, "--metrics", "given", "--by", "missing"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--by missing: no such column" in err
    assert cli(["meta-eval", path, "--metrics", "given", "--compare", "given"]) == 2
    assert "--compare expects METRIC_A:METRIC_B" in capsys.readouterr().err
    flat = _write(tmp_path, "flat.csv", [{"question": "q", "answer": "a", "reference1": "r", "scores": 2,
                                          "given": i} for i in range(4)])
    assert cli(["meta-eval", flat, "--metrics", "given", "--bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    assert "undefined" in captured.out and "warning: flat: the human scores are constant" in captured.err


class _LimitedScorer:
    """A scorer of 'LEN' that takes texts of at most 100 characters."""

    max_chars = 100

    def __init__(self, names):
        self.names = names

    def score_rows(self, rows, source, numbers=None, known_wrong=None):
        values = np.array([len(c) for c in rows.candidates], dtype=float)
        return {"LEN": values}, {"LEN": float(values.mean())}, {"LEN": "LEN|fake"}


def test_meta_eval_refuses_a_text_longer_than_the_scorer_takes(tmp_path):
    rows = [{"question": f"q{i}", "answer": f"answer {i}", "reference1": "ref", "scores": i % 3} for i in range(12)]
    rows[7]["answer"] = "word " * 30
    path = tmp_path / "human.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    settings = metaeval.Settings(metrics=["LEN"], bootstrap=0)
    with pytest.raises(InputError, match=r"human.csv, row 8, column 'answer': text of 150 characters"):
        metaeval.load_dataset(path, settings, _LimitedScorer)
    given = pd.DataFrame(rows).assign(LEN=1.0)  # scores already in the file: nothing is scored, no limit
    given.to_csv(path, index=False)
    assert len(metaeval.load_dataset(path, settings, _LimitedScorer).human) == 12


def test_a_system_column_is_the_systems_without_being_named(tmp_path):
    """A file with a 'system' column (EVOUNA's layout) has those systems, and --by system breaks down by it too;
    --system names another column."""
    rows = [{"question": f"q{i // 2}", "answer": "a b " * (i % 3 + 1), "reference1": "r", "scores": i % 4 + 1,
             "system": f"s{i % 2 + 1}", "other": "x"} for i in range(10)]
    path = _write(tmp_path, "sys.csv", rows)
    found = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0, threshold=1.0, by="system"),
                         FakeScorer).datasets[0]
    assert found.systems.count == 2 and "column 'system'" in found.systems.how
    assert found.rank_pairs.same_item_pairs == 5 and found.by is not None and set(found.by.groups) == {"s1", "s2"}
    other = metaeval.run([path], metaeval.Settings(metrics=["LEN"], bootstrap=0, system_column="other"),
                         FakeScorer).datasets[0]
    assert other.systems.count == 1 and "column 'other'" in other.systems.how


def test_renamed_columns_reach_the_metrics_with_a_text_limit(tmp_path, capsys):
    """``--columns`` holds in meta-eval and calibrate when a metric has a text limit (ROUGE-L): 0/1 labels, graded
    human scores, ``--positive-above`` and ``calibrate --reuse-scores`` all read the renamed question, answer and
    references (the rows were once re-read without the mapping: "no 'answer' column"). The judge: one calibrated
    on F1 and ROUGE-L here, so that no model loads."""
    from kpqa.cli import main

    rows = [(f"question {k}", f"the answer {k}" if k % 3 else "no idea", f"the answer {k}", int(k % 3 > 0),
             [0.0, 0.75, 1.0][k % 3]) for k in range(24)]
    frame = pd.DataFrame(rows, columns=["Question", "Answer", "Reference", "label", "graded"])
    frame.to_csv(tmp_path / "h.csv", index=False)
    h, cal = str(tmp_path / "h.csv"), str(tmp_path / "c.json")
    columns = ["--columns", "question=Question,answer=Answer,references=Reference", "--metrics", "F1,ROUGE-L",
               "--quiet"]
    assert main(["calibrate", h, "--human-column", "label", "--judge-inputs", "F1,ROUGE-L", "-o", cal]
                + columns) == 0, capsys.readouterr().err
    for argv in (["--human-column", "label"], ["--human-column", "graded"],
                 ["--human-column", "graded", "--positive-above", "0.5"]):
        assert main(["meta-eval", h, "--calibration", cal] + argv + columns) == 0, capsys.readouterr().err
    assert main(["score", h, "-o", str(tmp_path / "s.csv")] + columns) == 0
    assert main(["calibrate", str(tmp_path / "s.csv"), "--human-column", "label", "--judge-inputs", "F1,ROUGE-L",
                 "--reuse-scores", "-o", str(tmp_path / "c2.json")] + columns) == 0, capsys.readouterr().err
    assert "ROUGE-L" in json.loads((tmp_path / "c2.json").read_text())["metrics"]
