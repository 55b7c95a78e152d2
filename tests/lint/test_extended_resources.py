"""DRA350 and DRA351 beyond their table cases (tests/lint/rules/cases/DRA35*.yaml).

examples/bad/extended-resources-v1.yaml shows both rules, but its golden is linted with the
default release (1.36, gate DRAExtendedResource on), where only DRA350 can fire: its DRA351
findings, with ``--kubernetes-version 1.35``, are pinned here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "bad/extended-resources-v1.yaml"


def _findings(run_dractl, *args: str) -> list[tuple[int, str, str, str]]:
    out = run_dractl(
        "lint", "--no-config", "--format", "json", "--select", "DRA35", *args, EXAMPLE,
        cwd=ROOT / "examples",
    )
    assert "Traceback" not in out.stderr, out.stderr
    return [
        (d["line"], d["severity"], d["rule"], d["message"])
        for d in json.loads(out.stdout)["diagnostics"]
    ]


def test_example_with_the_gate_off_in_1_35(run_dractl) -> None:
    found = _findings(run_dractl, "--kubernetes-version", "1.35")
    assert [(line, severity, rule) for line, severity, rule, _ in found] == [
        (39, "warning", "DRA351"),
        (51, "warning", "DRA351"),
    ]
    assert found[0][3].startswith(
        'example.com/gpu is the extendedResourceName of DeviceClasses "gpu.example.com" '
        f'({EXAMPLE}:10) and "large-gpu.example.com" ({EXAMPLE}:20), but feature gate '
        "DRAExtendedResource is off in Kubernetes 1.35"
    )
    assert found[1][3].startswith(
        "deviceclass.resource.kubernetes.io/large-gpu.example.com is the implicit extended "
        f'resource of DeviceClass "large-gpu.example.com" ({EXAMPLE}:20)'
    )


def test_example_with_the_gate_on_in_1_35(run_dractl) -> None:
    found = _findings(
        run_dractl, "--kubernetes-version", "1.35", "--feature-gates", "DRAExtendedResource=true"
    )
    assert [(line, severity, rule) for line, severity, rule, _ in found] == [
        (15, "info", "DRA350"),
        (27, "warning", "DRA350"),
    ]
    assert "gpu.example.com wins in 1.35" in found[1][3]


def test_scheduler_module_is_not_loaded_without_extended_resources(tmp_path: Path) -> None:
    """Both rules read DeviceClasses and Pods before importing dractl.scheduler.extended, a good
    part of a small lint's time; a run with nothing to check leaves it unloaded."""
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]}\n",
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "from dractl.api.releases import Features\n"
        "from dractl.lint.engine import Settings, lint\n"
        "from dractl.load import load_text\n"
        f"text = open({str(manifest)!r}).read()\n"
        "for release in ('1.34', '1.35', '1.36'):\n"
        "    settings = Settings(features=Features(release), select=('DRA35',))\n"
        "    assert lint(load_text(text, 'pod.yaml'), settings).diagnostics == []\n"
        "print('dractl.scheduler.extended' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
