"""`ccscope report OUT` (a run, a sweep) and `ccscope repro site`, checked in a real browser.

The distribution's chromium and chromedriver (`.ci/run` installs them) are driven through Selenium,
headless, with every host name unresolvable (the pages must work offline): each page loads without
console errors, every zoomable plot draws its series (and redraws on a wheel zoom), every image
loads, a screenshot of every plot and figure has non-blank content, and every link inside the page
or the site resolves. Under CI=true a missing browser fails; elsewhere the browser tests skip and
print the install command. Set CCSCOPE_SCREENSHOTS=DIR to keep the screenshots.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest

import ccscope as cc
from ccscope import report_html

ROOT = Path(__file__).resolve().parents[1]
INSTALL = "apt-get install -y chromium chromium-driver"
CLI = [sys.executable, "-m", "ccscope"]


def _browser_paths() -> tuple[str | None, str | None]:
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    return chrome, shutil.which("chromedriver")


def need_browser() -> tuple[str, str]:
    """chromium and chromedriver, or: under CI=true a failure, elsewhere a skip that prints the install command."""
    chrome, drv = _browser_paths()
    if chrome is None or drv is None:
        msg = f"no chromium/chromedriver on PATH; install them with: {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        print(msg)
        pytest.skip(msg)
    return chrome, drv


@pytest.fixture(scope="module")
def driver():
    chrome, drv = need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900",
              "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND", "--allow-file-access-from-files"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(drv), options=opts)
    d.set_page_load_timeout(60)
    yield d
    d.quit()


# --------------------------------------------------------------------------- outputs to look at

@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    base = tmp_path_factory.mktemp("reports")
    run = base / "runs" / "k20"
    from ccscope.scenario.io import load_file
    scn = load_file(ROOT / "scenarios" / "dctcp_dumbbell.toml")
    scn["aqm"]["k_pkts"], scn["flows"]["count"] = 20, 3
    res = cc.simulate(scn, until_s=0.004)
    res.save(run)
    sweep = base / "sw"
    cc.sweep.sweep(ROOT / "scenarios" / "dctcp_dumbbell.toml", {"aqm.k_pkts": [10, 40], "flows.count": [2, 3]},
                   out=sweep, until_s=0.002, record=["queue"], seeds=2, jobs=1)
    return {"base": base, "run": run, "sweep": sweep}


def _cli(*args, cwd=None):
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=300)


def _cli_here(*args):
    """The CLI in this process (no interpreter start): returncode, stdout, stderr."""
    from typer.testing import CliRunner

    from ccscope.cli import app
    r = CliRunner().invoke(app, [str(a) for a in args])
    return subprocess.CompletedProcess(args, r.exit_code, r.stdout, r.stderr)


# --------------------------------------------------------------------------- browser checks

def _non_blank(png: bytes) -> float:
    """Fraction of the pixels that are not (near) white; fails on an unreadable image."""
    from PIL import Image
    im = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    return float((im.min(axis=2) < 235).mean())


def _coloured(png: bytes) -> float:
    """Fraction of the pixels that are clearly coloured (not grey): the plotted series."""
    from PIL import Image
    im = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    return float(((im.max(axis=2) - im.min(axis=2)) > 60).mean())


def _keep(d, name: str) -> None:
    keep = os.environ.get("CCSCOPE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        h = d.execute_script("return document.body.scrollHeight")
        d.set_window_size(1200, min(int(h) + 40, 8000))
        d.save_screenshot(str(Path(keep) / name))
        d.set_window_size(1200, 900)


def check_page(d, path: Path, *, shot: str) -> dict:
    """Load `path` and check it as the module doc says; returns what was found."""
    d.get(path.resolve().as_uri())
    errors = [e for e in d.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == [], f"{path}: console errors {errors}"
    assert d.execute_script("return document.readyState") == "complete"
    # every plot drew its series
    plots = d.find_elements("css selector", "div.zplot")
    for p in plots:
        pid = p.get_attribute("id")
        assert int(p.get_attribute("data-points") or 0) > 0, f"{path}: plot {pid} drew no point"
        assert p.find_elements("css selector", "svg polyline, svg circle"), f"{path}: plot {pid} has no series"
        d.execute_script("arguments[0].scrollIntoView()", p)
        png = p.find_element("css selector", "svg").screenshot_as_png
        assert _non_blank(png) > 0.01, f"{path}: plot {pid} looks blank"
        assert _coloured(png) > 0.0005, f"{path}: plot {pid} shows no coloured series"
    # every image loaded and shows something
    imgs = d.find_elements("css selector", "img")
    for im in imgs:
        ok = d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", im)
        assert ok, f"{path}: image {im.get_attribute('src')[:80]} did not load"
    for im in imgs[:6]:
        d.execute_script("arguments[0].scrollIntoView()", im)
        assert _non_blank(im.screenshot_as_png) > 0.01, f"{path}: image {im.get_attribute('alt')} looks blank"
    # every link resolves: an anchor of this page, or a file of the site
    hrefs = d.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    for h in hrefs:
        u = urlparse(h)
        assert u.scheme == "file", f"{path}: link {h} leaves the page's files (pages must work offline)"
        target = Path(unquote(u.path))
        assert target.is_file(), f"{path}: link {h} points at a missing file"
        if u.fragment:
            found = d.execute_script("return document.getElementById(arguments[0]) !== null", u.fragment) \
                if target == path.resolve() else f'id="{u.fragment}"' in target.read_text(encoding="utf-8")
            assert found, f"{path}: link {h} points at a missing anchor"
    # nothing is fetched from the network
    src = path.read_text(encoding="utf-8")
    assert "<script src" not in src and "stylesheet" not in src
    png = d.get_screenshot_as_png()
    assert _non_blank(png) > 0.02, f"{path}: the page looks blank"
    _keep(d, shot)
    return {"plots": len(plots), "images": len(imgs), "links": len(hrefs)}


def test_run_report_in_browser(driver, outputs):
    out = outputs["base"] / "nested" / "pages" / "run.html"  # missing folders are created
    r = _cli("report", outputs["run"], "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.is_file()
    found = check_page(driver, out, shot="report-run.png")
    res = cc.load(outputs["run"])
    recorded = [n for n, df in res.traces.items() if n != "truncated" and len(df)]
    assert found["plots"] == len(recorded) >= 5  # every recorded trace with rows is a plot
    for n in recorded:
        assert driver.find_element("id", f"trace-{n}-plot")
    # the queue plot has one series per recorded port, bottleneck first
    names = driver.execute_script("return zplots.find(p => p.div.id === 'trace-queue-plot').spec.series"
                                  ".map(s => s.name)")
    assert names[0] == res.summary["bottleneck_port"]
    # a wheel zoom over the queue plot narrows the time axis and redraws
    before = driver.execute_script("return zplots.find(p => p.div.id === 'trace-queue-plot').view")
    pts = driver.execute_script("""
        const p = zplots.find(p => p.div.id === 'trace-queue-plot'), b = p.svg.getBoundingClientRect();
        for (let i = 0; i < 5; i++) p.svg.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, bubbles: true,
            cancelable: true, clientX: b.left + b.width / 2, clientY: b.top + b.height / 2}));
        return [p.view, Number(p.div.getAttribute('data-points'))];""")
    assert pts[0][1] - pts[0][0] < 0.5 * (before[1] - before[0])
    assert 0 < pts[1] < len(res.traces["queue"])
    driver.execute_script("zplots[0].svg.dispatchEvent(new MouseEvent('dblclick', {bubbles: true}))")


def test_sweep_report_in_browser(driver, outputs):
    r = _cli("report", outputs["sweep"])
    assert r.returncode == 0, r.stderr
    page = outputs["sweep"] / "report.html"
    found = check_page(driver, page, shot="report-sweep.png")
    assert found["plots"] >= 3
    assert driver.find_element("id", "metric-bottleneck_utilization-plot")
    # error bars (95 % intervals over 2 seeds) are drawn as vertical lines
    assert driver.find_elements("css selector", "#metric-queue_mean_pkts-plot svg line[stroke^='#']")


def test_repro_site_in_browser(driver, tmp_path):
    out = tmp_path / "a" / "site"
    r = _cli("repro", "site", "-o", out)
    assert r.returncode == 0, r.stderr
    index = out / "index.html"
    found = check_page(driver, index, shot="repro-site-index.png")
    from ccscope.repro import registry
    entries = registry.entries()
    with_result = [e for e in entries if registry.committed(e.id, "full") is not None]
    assert found["links"] >= len(with_result) > 0
    rows = driver.find_elements("css selector", "table tr[id]")
    assert len(rows) == len(entries)
    # one entry page, checked fully: claim, measured vs expected, verdict, figure, cause
    e = next(e for e in with_result if (registry.evidence_root() / e.id / "full" / "figure.png").is_file())
    rec = registry.committed(e.id, "full")
    page = out / "entries" / (e.id.replace("/", "__") + ".html")
    check_page(driver, page, shot="repro-site-entry.png")
    text = driver.find_element("tag name", "main").text
    assert rec["claim"].split()[0] in text and rec["verdict"] in text
    for c in rec["checks"]:
        assert c["name"] in text
    assert driver.find_elements("css selector", "img.fig")


# --------------------------------------------------------------------------- without a browser

def test_report_bad_input(outputs, tmp_path):
    r = _cli_here("report", tmp_path)
    assert r.returncode == 2 and "neither a run" in r.stderr and "Traceback" not in r.stderr
    r = _cli_here("report", tmp_path / "missing")
    assert r.returncode == 2 and "not a directory" in r.stderr
    other = tmp_path / "notes.html"
    other.write_text("<p>mine</p>")
    r = _cli_here("report", outputs["run"], "-o", other)
    assert r.returncode == 2 and "-o" in r.stderr and "--force" in r.stderr
    assert other.read_text() == "<p>mine</p>"
    r = _cli_here("report", outputs["run"], "-o", other, "--force")
    assert r.returncode == 0 and report_html.GENERATED_SIGN in other.read_text()
    # a report is replaced by the next one without --force
    r = _cli_here("report", outputs["run"], "-o", other)
    assert r.returncode == 0
    full = tmp_path / "site"
    full.mkdir()
    (full / "x.txt").write_text("keep")
    r = _cli_here("repro", "site", "-o", full)
    assert r.returncode == 2 and "--force" in r.stderr and (full / "x.txt").read_text() == "keep"
    r = _cli_here("repro", "site", "-o", tmp_path / "s2", "--evidence", tmp_path / "nope")
    assert r.returncode == 2 and "--evidence" in r.stderr


def test_report_of_damaged_outputs(outputs, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(outputs["run"], run)
    (run / "traces" / "queue.parquet").write_text("garbage")
    r = _cli_here("report", run)
    assert r.returncode == 2 and "queue.parquet: not a readable Parquet table" in r.stderr
    assert not (run / "report.html").exists()
    sw = tmp_path / "sw"
    sw.mkdir()
    (sw / "summary.parquet").write_text("x")
    r = _cli_here("report", sw)
    assert r.returncode == 2 and "summary.parquet: not a readable sweep summary" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_decimate_keeps_peaks():
    x = np.arange(100_000, dtype=float)
    y = np.zeros_like(x)
    y[54_321] = 7.0
    y[99_998] = -3.0
    xs, ys = report_html.decimate(x, y, 3000)
    assert len(xs) <= 3100 and ys.max() == 7.0 and ys.min() == -3.0
    assert np.all(np.diff(xs) > 0) and xs[0] == 0 and xs[-1] == x[-1]


def test_page_is_self_contained(outputs):
    text = report_html.run_report(outputs["run"])
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text
    assert "function Plot" in text  # the plotter is inlined


def test_missing_browser_fails_under_ci_and_skips_elsewhere(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium chromium-driver"):
        need_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        need_browser()
    assert INSTALL in capsys.readouterr().out


def test_fluid_sweep_report(tmp_path):
    cc.sweep.fluid_sweep("dctcp", {"n": [10], "rate_bps": [10e9], "rtt_s": [100e-6], "k_pkts": [10, 40, 65],
                                   "g": [1 / 16]}, out=tmp_path / "f", until_s=0.005)
    text = report_html.sweep_report(tmp_path / "f")
    assert "q_max_pkts against k_pkts" in text and "against g<" not in text
    assert "fluid model dctcp" in text
