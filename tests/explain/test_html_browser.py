"""``dractl explain -o html`` in a real browser (headless Chromium through chromedriver): what
the page draws for examples/explain/*, and what hovering, clicking and filtering show.

Skipped where Chromium or chromedriver is missing (Debian: ``apt-get install chromium
chromium-driver``). Screenshots go to ``$DRACTL_SCREENSHOTS`` when set, else to pytest's
temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl import synthetic
from dractl.explain.html_report import CATEGORIES, PLUGIN_COLOURS

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="Chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)",
)
ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p.name for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir())
COLOURS = {key: colour for key, _, colour in CATEGORIES} | {f"plugin:{p}": c for p, c in PLUGIN_COLOURS.items()}

# Per example: node counts (of every unit), then per row of the picture its result, label and
# cell colours (a plugin's where it rejected the node before the device search).
EXPECTED: dict[str, tuple[dict[str, int], list[tuple[str, str, list[str]]]]] = {
    "cordoned-gpu-node": (
        {"allocated": 0, "unschedulable": 3, "error": 0},
        [
            ("unschedulable", "gpu-node-1", ["in-use", "given-back", "in-use", "constraint"]),
            ("unschedulable", "cpu-node-1", []),
            ("unschedulable", "gpu-node-2", ["plugin:NodeUnschedulable"] * 2),
        ],
    ),
    # Two Pods: trainer gets both GPUs through DRA; trainer-plus needs a third.
    "extended-resource": (
        {"allocated": 1, "unschedulable": 1, "error": 0},
        [
            ("allocated", "gpu-node-1", ["chosen", "chosen"]),
            ("unschedulable", "gpu-node-1", ["given-back", "given-back"]),
        ],
    ),
    "first-available": (
        {"allocated": 2, "unschedulable": 0, "error": 0},
        [
            ("allocated", "render-node-b", ["chosen", "chosen"]),
            # h100-pair took gpu-0, found no second H100 and gave it back; one-a100 got gpu-1.
            ("allocated", "render-node-a", ["given-back", "chosen"]),
        ],
    ),
    "gpu-pod": (
        {"allocated": 1, "unschedulable": 2, "error": 0},
        [
            ("allocated", "gpu-node-2", ["chosen", "chosen"]),
            ("unschedulable", "gpu-node-1", ["in-use", "given-back", "in-use", "constraint"]),
            ("unschedulable", "cpu-node-1", []),
        ],
    ),
    "partitionable-gpu": (
        {"allocated": 1, "unschedulable": 1, "error": 0},
        [
            ("allocated", "mig-node-2", ["chosen", "selector-false", "selector-false"]),
            ("unschedulable", "mig-node-1", ["counters", "selector-false", "selector-false"]),
        ],
    ),
    # The third replica, after the first two took 8Gi of gpu-node-1's GPU.
    "replicas": (
        {"allocated": 0, "unschedulable": 2, "error": 0},
        [
            ("unschedulable", "gpu-node-1", ["capacity"]),
            ("unschedulable", "gpu-node-2", ["in-use"]),
        ],
    ),
    "unsatisfiable": (
        {"allocated": 0, "unschedulable": 3, "error": 0},
        [
            ("unschedulable", "net-node-1", ["given-back", "constraint"]),
            ("unschedulable", "net-node-2", ["given-back", "taint"]),
            ("unschedulable", "net-node-3", ["in-use", "in-use"]),
        ],
    ),
}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}", "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("DRACTL_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_report(browser: Any, run_dractl: Any, tmp_path: Path, *inputs: str) -> dict[str, Any]:
    """Writes the report of `inputs`, opens it, and returns the JSON output for the same input."""
    page = tmp_path / "report.html"
    out = run_dractl("explain", "-o", "html", "--output-file", str(page), *inputs)
    assert out.returncode in (0, 1), out.stderr
    assert out.stdout == ""
    browser.get(page.as_uri())
    assert browser.execute_script("return document.documentElement.dataset.ready") == "true"
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    return json.loads(run_dractl("explain", "-o", "json", *inputs).stdout)


def picture_rows(browser: Any) -> list[tuple[str, str, list[str]]]:
    return [tuple(row) for row in browser.execute_script("""
        return Array.from(document.querySelectorAll('g.row')).map(g => [
          g.dataset.result, g.querySelector('.row-label').firstChild.textContent,
          Array.from(g.querySelectorAll('rect.cell')).map(r => r.dataset.category)]);
    """)]


def rgb(colour: str) -> str:
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_every_example_has_expectations() -> None:
    assert sorted(EXPECTED) == SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_example_report(scenario: str, browser: Any, run_dractl: Any, tmp_path: Path, screenshots: Path) -> None:
    open_report(browser, run_dractl, tmp_path, f"examples/explain/{scenario}/")
    counts, rows = EXPECTED[scenario]
    assert picture_rows(browser) == rows
    shown_counts = browser.execute_script("""
        const counts = {};
        document.querySelectorAll('.summary .count').forEach(c => {
          counts[c.dataset.result] = (counts[c.dataset.result] || 0) + Number(c.dataset.count); });
        return counts;
    """)
    assert shown_counts == counts
    # Every cell has its category's colour, and the legend shows that colour for it.
    fills = browser.execute_script(
        "return Array.from(document.querySelectorAll('rect.cell')).map(r => [r.dataset.category, r.getAttribute('fill')])"
    )
    assert fills and all(fill == COLOURS[category] for category, fill in fills)
    legend = browser.execute_script("""
        return Array.from(document.querySelectorAll('.legend-item')).map(i => [i.dataset.category,
          Number(i.dataset.count), getComputedStyle(i.querySelector('.swatch')).backgroundColor]);
    """)
    # Device states count cells; the plugins that rejected nodes count those nodes.
    cells: dict[str, int] = {}
    for _, _, categories in rows:
        for category in categories:
            if not category.startswith("plugin:"):
                cells[category] = cells.get(category, 0) + 1
    for plugin in browser.execute_script(
        "return Array.from(document.querySelectorAll('g.row[data-plugin]')).map(g => g.dataset.plugin)"
    ):
        cells[f"plugin:{plugin}"] = cells.get(f"plugin:{plugin}", 0) + 1
    shown_legend: dict[str, int] = {}
    for category, count, _ in legend:
        shown_legend[category] = shown_legend.get(category, 0) + count
    assert shown_legend == cells
    assert all(colour == rgb(COLOURS[category]) for category, _, colour in legend)
    workloads = browser.execute_script(
        "return Array.from(document.querySelectorAll('.workload > pre.replicas')).map(p => p.textContent.split('\\n')[0])"
    )
    assert workloads == (["2 of 3 replicas fit (spec.replicas; placement pack)"] if scenario == "replicas" else [])
    # Nothing was fetched: the page is the only resource.
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert browser.save_screenshot(str(screenshots / f"explain-{scenario}.png"))


def test_hover_click_and_filters(browser: Any, run_dractl: Any, tmp_path: Path, screenshots: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    data = open_report(browser, run_dractl, tmp_path, "examples/explain/gpu-pod/")
    busy = browser.find_element(By.CSS_SELECTOR, 'g.row[data-row="1"] rect.cell[data-category="in-use"]')
    ActionChains(browser).move_to_element(busy).perform()
    tooltip = browser.find_element(By.CSS_SELECTOR, ".tooltip")
    assert tooltip.is_displayed()
    assert tooltip.text.splitlines() == [
        "gpu.example.com/gpu-node-1/gpu-0",
        "in use by a claim",
        "ml/train-0-gpus request gpus: in use by serving/inference-0",
        "node gpu-node-1",
    ]
    busy.click()
    details = browser.find_element(By.CSS_SELECTOR, ".details")
    assert details.find_element(By.CSS_SELECTOR, ".outcome").text == "gpu-node-1: request gpus lacks 1 device"
    why = [row.text for row in details.find_elements(By.CSS_SELECTOR, "td.text")]
    assert "ml/train-0-gpus request gpus: matchAttribute dra.example.com/numa: 1 differs from 0 of " \
           "gpu.example.com/gpu-node-1/gpu-1" in why
    assert browser.save_screenshot(str(screenshots / "explain-gpu-pod-details.png"))
    # The AllocationResult of the feasible node, as YAML, is the allocation of the JSON output.
    (feasible,) = [n for n in data["nodes"] if n["allocations"]]
    shown = browser.find_element(By.CSS_SELECTOR, f'.allocations details[data-node="{feasible["name"]}"] pre')
    assert yaml.safe_load(shown.text) == feasible["allocations"]
    name = browser.find_element(By.CSS_SELECTOR, ".filter-name")
    name.send_keys("cpu")
    assert [label for _, label, _ in picture_rows(browser)] == ["cpu-node-1"]
    assert browser.find_element(By.CSS_SELECTOR, ".matches").text == "1 node of 3 in 1 row"
    name.clear()
    name.send_keys("gpu-node-*")
    assert [label for _, label, _ in picture_rows(browser)] == ["gpu-node-2", "gpu-node-1"]
    Select(browser.find_element(By.CSS_SELECTOR, ".filter-reason")).select_by_value("category:constraint")
    assert [label for _, label, _ in picture_rows(browser)] == ["gpu-node-1"]
    assert browser.find_element(By.CSS_SELECTOR, ".allocations").text.splitlines()[:2] == [
        "AllocationResult per node that can allocate (0)", "none matches the filter"
    ]
    browser.find_element(By.CSS_SELECTOR, '.legend-item[data-category="constraint"]').click()  # toggles it off
    assert len(picture_rows(browser)) == 2


def test_identical_nodes_share_a_row(browser: Any, run_dractl: Any, tmp_path: Path, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(synthetic.cluster(30), sort_keys=False))
    data = open_report(browser, run_dractl, tmp_path, str(cluster))
    assert picture_rows(browser) == [
        ("allocated", "20 nodes: node-1, node-2, node-4, …", ["chosen"] * 4 + ["free"] * 4),
        ("unschedulable", "10 nodes: node-0, node-3, node-6, …", ["selector-false"] * 8),
    ]
    browser.find_element(By.CSS_SELECTOR, 'g.row[data-row="0"] rect.cell').click()
    browser.find_element(By.XPATH, '//button[@class="node-link" and text()="node-5"]').click()
    shown = browser.find_element(By.CSS_SELECTOR, ".details pre.yaml").text
    (node_5,) = [n for n in data["nodes"] if n["name"] == "node-5"]
    assert yaml.safe_load(shown) == node_5["allocations"]
    browser.find_element(By.CSS_SELECTOR, ".filter-name").send_keys("node-1*")
    assert [label for _, label, _ in picture_rows(browser)] == [
        "8 nodes: node-1, node-10, node-11, …", "3 nodes: node-12, node-15, node-18"
    ]
    assert browser.find_element(By.CSS_SELECTOR, ".matches").text == "11 nodes of 30 in 2 rows"
    assert browser.save_screenshot(str(screenshots / "explain-grouped.png"))


def test_scheduler_verdict(browser: Any, run_dractl: Any, tmp_path: Path, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    data = open_report(browser, run_dractl, tmp_path, "examples/explain/cordoned-gpu-node/")
    (unit,) = data["units"]
    # The FailedScheduling message, word for word.
    assert browser.find_element(By.CSS_SELECTOR, ".summary .scheduler-message").text == unit["scheduler"]["message"]
    # Rows of nodes rejected before DRA show their plugin, its reasons and the detail.
    statuses = browser.execute_script("""
        return Array.from(document.querySelectorAll('g.row[data-plugin]')).map(g => [g.dataset.plugin,
          g.querySelector('.row-status').firstChild.textContent, g.querySelector('.status-swatch').getAttribute('fill')]);
    """)
    assert statuses == [
        ["NodeResourcesFit", "NodeResourcesFit: Insufficient cpu, Insufficient memory (cpu: requested 8, more than "
         "the node's allocatable 4; memory: requested 32Gi, more than the node's allocatable 16Gi)",
         PLUGIN_COLOURS["NodeResourcesFit"]],
        ["NodeUnschedulable", "NodeUnschedulable: node(s) were unschedulable (the node is cordoned "
         "(spec.unschedulable: true) and the Pod does not tolerate node.kubernetes.io/unschedulable:NoSchedule)",
         PLUGIN_COLOURS["NodeUnschedulable"]],
    ]
    legend = [item.text for item in browser.find_elements(By.CSS_SELECTOR, ".legend-item")]
    assert legend[:2] == ["rejected by NodeUnschedulable (1 node)", "rejected by NodeResourcesFit (1 node)"]
    # A click on a plugin's legend entry shows only the nodes it rejected, and toggles back.
    entry = browser.find_element(By.CSS_SELECTOR, '.legend-item[data-plugin="NodeUnschedulable"]')
    entry.click()
    assert [label for _, label, _ in picture_rows(browser)] == ["gpu-node-2"]
    assert Select(browser.find_element(By.CSS_SELECTOR, ".filter-reason")).first_selected_option.text == (
        "nodes: rejected by NodeUnschedulable")
    browser.find_element(By.CSS_SELECTOR, 'g.row[data-plugin="NodeUnschedulable"] rect.cell').click()
    status = browser.find_element(By.CSS_SELECTOR, ".details .scheduler-status")
    assert status.find_element(By.CSS_SELECTOR, ".status-reasons").text == "NodeUnschedulable: node(s) were unschedulable"
    assert status.find_element(By.CSS_SELECTOR, ".status-detail").text.startswith("the node is cordoned")
    assert browser.save_screenshot(str(screenshots / "explain-cordoned-gpu-node-details.png"))
    browser.find_element(By.CSS_SELECTOR, '.legend-item[data-plugin="NodeUnschedulable"]').click()
    assert len(picture_rows(browser)) == 3

    data = open_report(browser, run_dractl, tmp_path, "examples/explain/extended-resource/")
    answers = browser.execute_script("""
        return Array.from(document.querySelectorAll('.summary dd.scheduler')).map(d => [d.dataset.outcome, d.textContent]);
    """)
    assert answers[0][0] == "selected" and answers[0][1].startswith("selects node gpu-node-1")
    assert answers[1] == ["failed", "FailedScheduling: " + data["units"][1]["scheduler"]["message"]]
    special = browser.find_element(By.CSS_SELECTOR, ".summary .special-claim")
    assert [li.text for li in special.find_elements(By.CSS_SELECTOR, "li")] == [
        "container-0-request-0: 2 of class gpu.example.com",
        "container trainer example.com/gpu \u2192 request container-0-request-0",
    ]
    special.find_element(By.CSS_SELECTOR, "summary").click()
    allocation = yaml.safe_load(special.find_element(By.CSS_SELECTOR, "pre.yaml").text)
    assert allocation == data["units"][0]["scheduler"]["specialClaim"]["allocation"]
