"""kpqa report (kpqa/htmlreport.py, kpqa/svgcharts.py): reading a scored file back, the page's data and charts, and
the page itself in headless chromium (skipped when chromium, chromedriver or selenium is missing)."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time

import numpy as np
import pandas as pd
import pytest
from stubs import WordWeighter

from kpqa import explain, htmlreport, svgcharts
from kpqa.binary import reliability
from kpqa.cli import main
from kpqa.errors import InputError
from kpqa.results import read_signatures

#: six rows: BLEU-1 with decisions, a judge with decisions alone, human labels in 'scores'; row 3 has a '</script>'
ROWS = pd.DataFrame({
    "question": ["Who wrote Hamlet?", "Capital of France?", "Who painted it?", "When?", "Where?", "How many?"],
    "answer": ["Shakespeare wrote it", "Paris", "Da Vinci </script>", "in 1921", "in Rome", "seven"],
    "reference1": ["William Shakespeare", "Paris", "Leonardo da Vinci", "1905", "Rome", "four"],
    "reference2": ["Shakespeare", "", "", "in 1905", "", ""],
    "scores": [1, 1, 1, 0, 1, 0],
    "BLEU-1": [0.5, 1.0, 0.4, 0.5, 0.5, 0.0],
    "BLEU-1-prob": [0.6, 0.9, 0.4, 0.6, 0.6, 0.1],
    "BLEU-1-correct": [1, 1, 0, 1, 1, 0],
    "KPQA-judge-prob": [0.8, 0.95, 0.7, 0.2, 0.9, 0.05],
    "KPQA-judge-correct": [1, 1, 1, 0, 1, 0],
    "note": ["a", "b", "c", "d", "e", "f"],
})


@pytest.fixture
def scored_csv(tmp_path):
    path = tmp_path / "scored.csv"
    ROWS.to_csv(path, index=False)
    return path


def test_a_scored_file_reads_back_with_its_metrics_decisions_and_labels(scored_csv):
    scored = htmlreport.read_scored(scored_csv)
    assert scored.names == ["BLEU-1", "KPQA-judge"]  # 'note' is text, 'scores' the human column
    assert list(scored.scores) == ["BLEU-1"] and sorted(scored.probs) == ["BLEU-1", "KPQA-judge"]
    assert scored.decisions["KPQA-judge"].tolist() == [1, 1, 1, 0, 1, 0]
    assert scored.human_column == "scores" and scored.labels.tolist() == [1, 1, 1, 0, 1, 0]
    assert scored.signatures == {}
    data = htmlreport.payload(scored)
    assert data["refs"][0] == ["William Shakespeare", "Shakespeare"] and data["refs"][1] == ["Paris"]
    assert data["default_metric"] == 1  # the judge
    assert data["metrics"][0]["score"] == [0.5, 1.0, 0.4, 0.5, 0.5, 0.0] and data["metrics"][1]["score"] is None
    # disagreements with the human labels: BLEU-1 on rows 3 and 4, the judge on none
    labels = data["human"]["labels"]
    assert [i + 1 for i, (c, y) in enumerate(zip(data["metrics"][0]["correct"], labels)) if c != y] == [3, 4]


def test_a_row_left_unscored_stays_in_the_page_with_its_reason(tmp_path):
    path = tmp_path / "skipped.jsonl"
    records = [{"question": "Q1", "answer": "A b", "references": ["R1", "R2"], "BLEU-1": 0.5},
               {"question": "Q2", "answer": "x", "references": [" "], "BLEU-1": None, "error": "no reference"}]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    scored = htmlreport.read_scored(path)
    weights = htmlreport.weigh_rows(scored, WordWeighter())
    data = htmlreport.payload(scored, weights, explain.palette())
    assert data["a"] == ["A b", "x"] and data["refs"] == [["R1", "R2"], []]
    assert data["metrics"] == [{"name": "BLEU-1", "score": [0.5, None], "prob": None, "correct": None}]
    assert data["errors"] == {"1": "no non-empty reference (column 'reference1')"} and data["human"] is None
    assert data["weights"]["rows"] == [[[1, 100, 1, -1, 1, 100], [2, 100], [2, 100]], None]


def test_graded_human_scores_need_a_threshold_and_a_named_column_must_exist(scored_csv, tmp_path):
    graded = ROWS.assign(scores=[5, 4, 4.5, 1, 3, 2])
    path = tmp_path / "graded.jsonl"
    graded.to_json(path, orient="records", lines=True)
    with pytest.raises(InputError, match=r"row 1, column 'scores': human label 5(\.0)? is not 0 or 1; set positive_ab"):
        htmlreport.read_scored(path)
    assert htmlreport.read_scored(path, positive_above=3).labels.tolist() == [1, 1, 1, 0, 0, 0]
    with pytest.raises(InputError, match=r"no human label column 'label'.*pick one with human_column"):
        htmlreport.read_scored(scored_csv, human_column="label")
    assert htmlreport.read_scored(scored_csv, human_column="BLEU-1-correct").labels.tolist() == [1, 1, 0, 1, 1, 0]


def test_signatures_come_from_the_sidecar_in_either_shape(scored_csv):
    sidecar = scored_csv.parent / "scored.csv.signatures.json"
    sidecar.write_text(json.dumps({"signatures": {"BLEU-1": "BLEU-1|tok:ptb|version:0.1.0"}, "short_hashes": {}}))
    assert read_signatures(scored_csv) == {"BLEU-1": "BLEU-1|tok:ptb|version:0.1.0"}
    sidecar.write_text(json.dumps({"BLEU-1": "BLEU-1|tok:ptb|version:0.1.0"}))
    scored = htmlreport.read_scored(scored_csv)
    assert "BLEU-1|tok:ptb|version:0.1.0" in htmlreport.summary(scored)
    sidecar.write_text("{not json")
    with pytest.raises(InputError, match=r"scored\.csv\.signatures\.json: not a signatures file"):
        read_signatures(scored_csv)


def test_bad_cells_name_the_file_row_and_column(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    ROWS.assign(**{"BLEU-1-correct": [1, 1, 2, 1, 1, 0]}).to_csv(path, index=False)
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "--no-weights"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"kpqa: error: {path}, row 3, column 'BLEU-1-correct': 2 is not 0 or 1" and "\n" not in err
    assert not (tmp_path / "r.html").exists()
    ROWS.assign(**{"BLEU-1": ["0.5", "x", "", "1", "1", "0"]}).to_csv(path, index=False)
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "--no-weights", "--metrics", "BLEU-1"]) == 2
    assert capsys.readouterr().err.strip() == f"kpqa: error: {path}, row 2, column 'BLEU-1': 'x' is not a number"
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "--no-weights", "--metrics", "ROUGE-L"]) == 2
    assert "--metrics ROUGE-L: no such column" in capsys.readouterr().err


def test_weights_are_weighed_once_per_text_and_embedded_compactly(scored_csv):
    weighter = WordWeighter(lambda word: 0.9 if word[0].isupper() or word[0].isdigit() else 0.2)
    scored = htmlreport.read_scored(scored_csv)
    weights = htmlreport.weigh_rows(scored, weighter)
    # 6 candidates + 8 references, each distinct (question, text) once: row 2 answers "Paris" to "Paris"
    assert len(weighter.asked) == len(set(weighter.asked)) == 13
    low, high = pytest.approx(0.2), pytest.approx(0.9)
    assert weights[3][0] == [("in", low), (" ", None), ("1921", high)]  # candidate first, then the references
    assert weights[3][2] == [("in", low), (" ", None), ("1905", high)]
    data = htmlreport.payload(scored, weights, explain.palette())
    assert data["weights"]["rows"][3][0] == [2, 20, 1, -1, 4, 90]
    assert len(data["weights"]["palette"]) == 101 and data["weights"]["palette"][0] == list(explain._color(0.0))


def _data(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))


@pytest.mark.model
def test_report_command_with_the_shipped_weighter(tmp_path, capsys):
    path, out = tmp_path / "two.csv", tmp_path / "report.html"
    ROWS.iloc[:2].to_csv(path, index=False)
    assert main(["report", str(path), "-o", str(out), "--device", "cpu", "--quiet"]) == 0
    assert capsys.readouterr().err.startswith(f"wrote {out} (2 rows, ")
    data = _data(out.read_text(encoding="utf-8"))
    texts = [[data["a"][i], *data["refs"][i]] for i in range(2)]
    for row, segments in zip(texts, data["weights"]["rows"]):
        for text, flat in zip(row, segments):
            assert sum(flat[::2]) == len(text) and all(-1 <= w <= 100 for w in flat[1::2])
    assert data["weights"]["rows"][1][0] == [5, data["weights"]["rows"][1][1][1]]  # 'Paris' answers 'Paris'
    assert data["weights"]["rows"][1][0][1] > 50  # the answer to "Capital of France?" is a keyphrase


@pytest.mark.model
def test_report_command_runs_without_matplotlib(scored_csv, tmp_path, monkeypatch, capsys):
    from kpqa.models.weighter import Weighter

    weighter = WordWeighter(lambda word: 0.9 if word[0].isupper() else 0.2)
    monkeypatch.setattr(Weighter, "load", classmethod(lambda cls, checkpoint=None, **kw: weighter))
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ModuleNotFoundError
    out = tmp_path / "report.html"
    assert main(["report", str(scored_csv), "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err.startswith(f"wrote {out} (6 rows, ")
    data = _data(out.read_text(encoding="utf-8"))
    palette = data["weights"]["palette"]
    assert len(palette) == 101 and palette[0] == ["#fff5f0", "#000000"] and palette[100] == ["#67000c", "#ffffff"]
    assert palette == [list(c) for c in explain.palette()]
    assert data["weights"]["rows"][0][1] == [7, 90, 1, -1, 11, 90]  # "William Shakespeare"
    assert out.read_text(encoding="utf-8").count("<svg") == 3  # the histogram, two reliability diagrams


def test_the_page_is_self_contained_and_its_data_cannot_close_the_script(scored_csv):
    page = htmlreport.to_html(htmlreport.read_scored(scored_csv))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # no network
    assert page.count("</script>") == 2 and "Da Vinci \\u003c/script>" in page
    assert _data(page)["a"][2] == "Da Vinci </script>"
    assert page.count("<svg") == 1 + 2  # BLEU-1's histogram, two reliability diagrams


def test_histogram_bars_add_up_to_the_rows_split_by_label():
    svg = svgcharts.histogram([0.05, 0.07, 0.5, 0.95, float("nan")], [1, 0, 1, 1, 0], bins=10)
    titles = re.findall(r"<title>([^<]*)</title>", svg)
    assert titles == ["0 to 0.1: 1 rows (correct)", "0.5 to 0.6: 1 rows (correct)", "0.9 to 1: 1 rows (correct)",
                      "0 to 0.1: 1 rows (wrong)"]
    assert "n = 4" in svg and svgcharts.histogram([2.0, 4.0], bins=2).count("<rect") == 2


def test_reliability_diagram_marks_sparse_bins_hollow_and_gives_ece():
    probs = np.r_[np.full(30, 0.15), np.full(5, 0.85)]
    labels = np.r_[np.zeros(27), np.ones(3), np.ones(5)]
    svg = svgcharts.reliability(reliability(labels, probs))
    assert "ECE 0.064, n = 35" in svg  # (30 * |0.1 - 0.15| + 5 * |1 - 0.85|) / 35 = 2.25 / 35
    assert svg.count('<circle') == 2 and svg.count('fill="white" stroke') == 1


# ------------------------------------------------------------------------------------------- headless chromium


@pytest.fixture(scope="module")
def browser():
    """Headless chromium through the system's chromedriver (no driver or browser download); skips when absent."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("no chromium / chromedriver (apt-get install chromium chromium-driver; .ci/run installs them)")
    os.environ["SE_OFFLINE"] = "true"  # selenium's manager must not look for a driver online
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    yield driver
    driver.quit()


def _open(browser, page) -> None:
    browser.get(page.as_uri())
    browser.get_log("browser")  # nothing from before this page
    browser.refresh()


def _shown(browser) -> tuple[int, int, int]:
    status = browser.find_element("id", "status")
    return (len(browser.find_elements("css selector", "#body tr.row")), int(status.get_attribute("data-matching")),
            int(status.get_attribute("data-total")))


def _choose(browser, select: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", select)).select_by_value(value)


def test_the_page_in_headless_chromium(browser, scored_csv, tmp_path):
    scored = htmlreport.read_scored(scored_csv)
    weights = htmlreport.weigh_rows(scored, WordWeighter(lambda w: 0.9 if w[0].isupper() else 0.2))
    page = tmp_path / "report.html"
    page.write_text(htmlreport.to_html(scored, weights, explain.palette()), encoding="utf-8")
    _open(browser, page)
    assert browser.get_log("browser") == []  # no console error, no uncaught exception
    assert _shown(browser) == (6, 6, 6)
    _choose(browser, "metric", "0")  # BLEU-1
    _choose(browser, "human", "disagree")
    assert _shown(browser) == (2, 2, 6)
    assert [r.get_attribute("data-i") for r in browser.find_elements("css selector", "#body tr.row")] == ["2", "3"]
    _choose(browser, "decision", "1")  # judged correct and disagreeing: row 4 ("in 1921" for 1905)
    assert _shown(browser) == (1, 1, 6)
    _choose(browser, "human", "all")
    _choose(browser, "decision", "all")
    browser.find_element("id", "min").send_keys("0.5")
    assert _shown(browser) == (4, 4, 6)
    browser.find_element("css selector", "#body tr.row").click()  # row 1 opens
    detail = browser.find_element("css selector", "#body tr.detail")
    spans = detail.find_elements("css selector", "span.w")
    assert [s.text for s in spans][:2] == ["William", "Shakespeare"]  # reference 1 comes first
    assert spans[0].get_attribute("title") == "0.90" and "P(correct)" in detail.text
    browser.save_screenshot(str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert browser.get_log("browser") == []


def test_ten_thousand_rows_load_and_filter_quickly(browser, tmp_path):
    rows = pd.concat([ROWS] * 1667, ignore_index=True).iloc[:10_000]
    path = tmp_path / "big.csv"
    rows.to_csv(path, index=False)
    assert main(["report", str(path), "-o", str(tmp_path / "big.html"), "--no-weights"]) == 0
    start = time.perf_counter()
    _open(browser, tmp_path / "big.html")
    loaded = time.perf_counter() - start
    assert browser.get_log("browser") == []
    assert _shown(browser) == (200, 10_000, 10_000)  # one page of 200 drawn
    ready = float(browser.execute_script("return document.documentElement.dataset.ready"))
    assert ready < 3000 and loaded < 20, (ready, loaded)  # ms to the first table; seconds for two loads
    start = time.perf_counter()
    _choose(browser, "human", "disagree")
    assert _shown(browser)[1] == 0  # the judge (the default) agrees everywhere
    _choose(browser, "metric", "0")
    assert _shown(browser)[1] == 3334  # BLEU-1 disagrees on 2 rows of 6
    assert time.perf_counter() - start < 2


def test_the_weighed_rows_are_bounded_disagreements_first(scored_csv):
    """A report of a large scored file weighs a bounded number of rows (seconds, not minutes): those where the judge
    disagrees with the human label first, then file order."""
    frame = ROWS.copy()
    frame.loc[4, "KPQA-judge-correct"] = 0  # the judge now disagrees on row 5 (label 1)
    frame.to_csv(scored_csv, index=False)
    scored = htmlreport.read_scored(scored_csv)
    assert htmlreport.weighed_rows(scored, 2) == [0, 4] and htmlreport.weighed_rows(scored, None) == list(range(6))
    weights = htmlreport.weigh_rows(scored, WordWeighter(), rows=[0, 4])
    assert [w is not None for w in weights] == [True, False, False, False, True, False]


def test_the_judges_auroc_is_that_of_its_probability(scored_csv):
    from sklearn.metrics import roc_auc_score

    table = htmlreport.summary(htmlreport.read_scored(scored_csv))
    judge = re.search(r"<td>KPQA-judge</td>(.*?)</tr>", table).group(1)
    auroc = roc_auc_score(ROWS["scores"], ROWS["KPQA-judge-prob"])
    assert f"<td>{auroc:.3f}</td>" in judge and "–" not in judge


def test_the_signatures_file_is_written_and_read_in_one_home(tmp_path):
    """kpqa.results.write_signatures (what ``kpqa score -o`` calls) and read_signatures (report's and meta-eval's)."""
    from kpqa.results import SIGNATURES_SUFFIX, write_signatures
    from kpqa.scoring import Scorer

    result = Scorer(["BLEU-1", "F1"]).score([{"question": "q", "answer": "a b", "references": ["a c"]}])
    path = write_signatures(tmp_path / "out.csv", result.signatures)
    assert path == f"{tmp_path / 'out.csv'}{SIGNATURES_SUFFIX}"
    assert read_signatures(tmp_path / "out.csv") == {c: str(s) for c, s in result.signatures.items()}
