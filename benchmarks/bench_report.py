"""Time a `kpqa report` page in headless chromium: load, first table, filter, sort, opening a row.

Usage: python benchmarks/bench_report.py PAGE.html [PAGE.html ...] [--repeat 3]

PAGE.html: a page `kpqa report` wrote (for 10,000 rows, repeat a scored file's rows: the weighter weighs each
distinct text once). Needs chromium and chromedriver (`apt-get install chromium chromium-driver`) and selenium; no
driver is downloaded. Per load it prints: the wall time of `driver.get` (until the load event), the page's own
clock at the first table drawn (`data-ready`, ms since navigation) and at the load event, then the time of sorting
every row by the sixth column, of the 'disagrees with human' filter (when the page has a human column) and of
opening the first row, each measured in the page around the event it dispatches.
"""
from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

#: what each step dispatches, and the time it took in the page (ms)
STEPS = {
    "sort": "const th = document.querySelectorAll('#head th')[5]; const t = performance.now(); th.click();"
            "return performance.now() - t",
    "disagree filter": "const s = document.getElementById('human'); if (s.closest('label').style.display) return null;"
                       "s.value = 'disagree'; const t = performance.now(); s.dispatchEvent(new Event('change'));"
                       "return performance.now() - t",
    "open row": "const r = document.querySelector('#body tr.row'); const t = performance.now(); r.click();"
                "return performance.now() - t",
}


def browser():  # noqa: ANN201  (a selenium driver)
    """Headless chromium through the system's chromedriver."""
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    driver = browser()
    try:
        for page in args.pages:
            for k in range(args.repeat):
                start = time.perf_counter()
                driver.get(page.resolve().as_uri())
                wall = (time.perf_counter() - start) * 1000
                ready = float(driver.execute_script("return +document.documentElement.dataset.ready"))
                load = float(driver.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd"))
                steps = {name: driver.execute_script(script) for name, script in STEPS.items()}
                shown = ", ".join(f"{name} {v:.0f} ms" for name, v in steps.items() if v is not None)
                print(f"{page.name} ({page.stat().st_size / 1e6:.1f} MB) load {k + 1}: get {wall:.0f} ms, first table "
                      f"{ready:.0f} ms, load event {load:.0f} ms; {shown}")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
