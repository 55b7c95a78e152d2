"""DynamicResourcesArgs of a scheduler configuration: Go durations, and filterTimeout as the
per-node limit of explain's search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.scheduler.plugins.dynamic_resources import go_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("10s", 10.0), ("1m30s", 90.0), ("500ms", 0.5), ("1.5h", 5400.0), ("0", 0.0), ("-2s", -2.0),
     ("10", None), ("s", None), ("", None), (None, None), (10, None), ("1x", None)],
)
def test_go_duration(text: object, seconds: float | None) -> None:
    assert go_duration(text) == seconds


CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: DynamicResources
    args:
      filterTimeout: %s
"""


@pytest.mark.parametrize(("timeout", "timed_out"), [("1ns", True), ("0s", False)])
def test_filter_timeout_limits_the_search_on_each_node(run_dractl, tmp_path: Path, timeout: str,
                                                       timed_out: bool) -> None:
    config = tmp_path / "scheduler.yaml"
    config.write_text(CONFIG % timeout)
    out = run_dractl("explain", "-o", "json", "--pod", "ml/train-0", "--scheduler-config", str(config),
                     "--timeout", "100", "examples/explain/gpu-pod")
    data = json.loads(out.stdout)
    gpu_node_2 = {n["name"]: n for n in data["nodes"]}["gpu-node-2"]
    assert gpu_node_2["timedOut"] is timed_out
    if timed_out:
        assert data["units"][0]["scheduler"]["error"].startswith(
            'running "DynamicResources" filter plugin: node ')
