"""Every kube-scheduler case of tests/conformance/scheduler/ through ``dractl explain --pod ... -o
json``, with a --scheduler-config that enables just the plugins the upstream test ran.

The cases are data from upstream's unit tests (see the folder's README.md); the comparison follows
its rules: per-node status, first rejecting plugin and exact reasons; PreEnqueue, PreFilter and
PostFilter outcomes; the FitError text or the scheduling error; the selected node, its claims'
allocations (results as a multiset of request, driver, pool, admin access; device names are not
pinned) and the extended-resource claim.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.api.releases import GATES
from dractl.cli import run

CASES = sorted((Path(__file__).parent / "scheduler").glob("*.yaml"))

# Case name -> why dractl disagrees on purpose (with the upstream source that shows it).
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def test_every_case_is_there() -> None:
    assert len(CASES) == 131


def _split(path: Path) -> tuple[dict[str, Any], str]:
    text = path.read_text()
    header_text, _, rest = text.partition("\n---\n")
    return yaml.safe_load(header_text), rest


def _config(plugins: list[str]) -> str:
    enabled = "".join(f"\n        - name: {name}" for name in plugins)
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "  - schedulerName: default-scheduler\n    plugins:\n      multiPoint:\n"
        f"        disabled:\n        - name: '*'\n        enabled:{enabled}\n"
    )


def explain_case(path: Path, tmp_path: Path) -> tuple[int, dict[str, Any], str]:
    header, manifests = _split(path)
    (tmp_path / "objects.yaml").write_text(manifests)
    (tmp_path / "scheduler.yaml").write_text(_config(header["plugins"]))
    gates = ",".join(f"{gate}={'true' if on else 'false'}" for gate, on in (header.get("features") or {}).items()
                     if gate in GATES)
    argv = ["explain", "-o", "json", "--pod", header["pod"], "--kubernetes-version", header["release"],
            "--scheduler-config", str(tmp_path / "scheduler.yaml"), str(tmp_path / "objects.yaml")]
    if gates:
        argv += ["--feature-gates", gates]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run(argv)
    data = json.loads(out.getvalue()) if out.getvalue().strip() else {}
    return code, data, err.getvalue()


def _status(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {key: entry.get(key) for key in ("status", "plugin", "reasons")}


def _results(allocation: dict[str, Any] | None) -> Counter[tuple[Any, ...]]:
    results = ((allocation or {}).get("devices") or {}).get("results") or []
    return Counter((r.get("request"), r.get("driver"), r.get("pool"), bool(r.get("adminAccess"))) for r in results)


def _selector(allocation: dict[str, Any] | None) -> Any:
    selector = (allocation or {}).get("nodeSelector")
    if selector is None:
        return None
    terms = []
    for term in selector.get("nodeSelectorTerms") or []:
        terms.append(sorted(
            (kind, r.get("key"), r.get("operator"), tuple(sorted(r.get("values") or [])))
            for kind in ("matchExpressions", "matchFields") for r in term.get(kind) or []
        ))
    return sorted(terms)


def disagreement(header: dict[str, Any], data: dict[str, Any]) -> list[str]:
    expect = header["expect"]
    problems: list[str] = []
    units = [u for u in data.get("units") or [] if "scheduler" in u]
    if len(units) != 1:
        return [f"expected one unit with a scheduler verdict, got {len(units)}"]
    unit = units[0]
    scheduler = unit["scheduler"]
    nodes = {n["name"]: n for n in data.get("nodes") or [] if n.get("unit") == unit["title"]}

    def check(what: str, got: Any, want: Any) -> None:
        if got != want:
            problems.append(f"{what}: got {got!r}, want {want!r}")

    if "preEnqueue" in expect:
        check("preEnqueue", _status(scheduler["preEnqueue"]), _status(expect["preEnqueue"]))
        check("nodes evaluated", sorted(nodes), [])
    else:
        check("preEnqueue", scheduler["preEnqueue"], None)
    if "preFilter" in expect:
        want = expect["preFilter"]
        if want["status"] == "skip":
            if want["plugin"] not in scheduler["preFilterSkipped"]:
                problems.append(f"preFilter: {want['plugin']} did not Skip ({scheduler['preFilterSkipped']})")
        else:
            got = scheduler["preFilter"] or {}
            check("preFilter", {k: got.get(k) for k in want}, want)
    if "preFilterNodes" in expect:
        check("preFilterNodes", scheduler["preFilterNodes"], sorted(expect["preFilterNodes"]))
    for name, want in (expect.get("nodes") or {}).items():
        got = nodes.get(name)
        if got is None:
            problems.append(f"node {name}: not in the output")
            continue
        check(f"node {name} status", got.get("status"), want["status"])
        if want["status"] != "schedulable":
            check(f"node {name} plugin", got.get("plugin"), want.get("plugin"))
            check(f"node {name} reasons", got.get("reasons"), want.get("reasons"))
            check(f"node {name} phase", got.get("phase"), want.get("phase"))
    if "postFilter" in expect:
        want = expect["postFilter"]
        got = scheduler["postFilter"] or {}
        check("postFilter", _status(got), _status(want))
        if "action" in want:
            ((verb, claim),) = want["action"].items()
            check("postFilter action", got.get("detail"), f"{verb}: {claim}")
    if "error" in expect:
        check("error", scheduler["error"], expect["error"])
    if "message" in expect:
        check("message", scheduler["message"], expect["message"])
    if "selectedNode" in expect:
        check("selectedNode", scheduler["selectedNode"], expect["selectedNode"])
    selected = nodes.get(scheduler["selectedNode"] or "")
    allocations = {a["claim"]: a["allocation"] for a in (selected or {}).get("allocations") or []}
    for claim, want in (expect.get("allocations") or {}).items():
        got = allocations.get(claim)
        check(f"allocation of {claim} results", _results(got), _results(want))
        check(f"allocation of {claim} nodeSelector", _selector(got), _selector(want))
    if "specialClaim" in expect:
        want, got = expect["specialClaim"], scheduler["specialClaim"]
        if want is None or got is None:
            check("specialClaim", got, want)
        else:
            for key in ("generateName", "namespace", "annotations", "ownerReferences", "requests"):
                if key in want:
                    check(f"specialClaim {key}", got.get(key), want[key])
            if "requestMappings" in want:
                key = lambda m: (m["containerName"], m["resourceName"], m["requestName"])  # noqa: E731
                check("specialClaim requestMappings", sorted(map(key, got.get("requestMappings") or [])),
                      sorted(map(key, want["requestMappings"])))
            if "allocation" in want:
                check("specialClaim allocation results", _results(got.get("allocation")), _results(want["allocation"]))
                check("specialClaim allocation nodeSelector", _selector(got.get("allocation")),
                      _selector(want["allocation"]))
    return problems


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case_agrees_with_the_scheduler(path: Path, tmp_path: Path) -> None:
    header, _ = _split(path)
    if header["name"] in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[header["name"]])
    code, data, err = explain_case(path, tmp_path)
    assert code in (0, 1), err
    problems = disagreement(header, data)
    assert not problems, "\n".join(problems)
