"""Property tests over generated valid objects of every kind (claims with and without status,
templates, slices with every node selection, counters and binding fields, classes; alone or as
items of a ``List``).

* v1beta1 → v1 → v1beta1 and v1beta2 → v1 → v1beta2 give back the same object, modulo the
  normalisations CONVERSION.md lists (a v1beta1 device without ``basic`` comes back with
  ``basic: {}``, zero values that v1beta1 reads as unset disappear); v1 → v1beta1 → v1 gives back
  the same object;
* converting the *text* (laid out in several indentation styles, with comments) gives exactly the
  object the conversion of the data gives, keeps every comment, and converts back;
* in every release dractl knows, the v1 result lints without errors whenever the input did, and
  with the same findings (the deprecation warnings that conversion fixes aside).
"""

from __future__ import annotations

import copy
import io
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dractl.api.releases import RELEASES, Features
from dractl.convert.apply import apply_to_data
from dractl.convert.engine import Options, Status, convert_file
from dractl.convert.plan import plan_document
from dractl.convert.textedit import count_comments
from dractl.lint.engine import Settings, lint
from dractl.load import load_text

GROUP = "resource.k8s.io"

names = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8).map(
    lambda s: "x" + s
)
classes = st.sampled_from(["gpu.example.com", "nic.example.com", "fpga.example.com"])
expressions = st.sampled_from(
    [
        'device.driver == "gpu.example.com"',
        'device.attributes["gpu.example.com"].model == "A100"',
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0',
    ]
)
selectors = st.lists(
    st.fixed_dictionaries({"cel": st.fixed_dictionaries({"expression": expressions})}),
    min_size=1,
    max_size=2,
)
tolerations = st.lists(
    st.fixed_dictionaries(
        {"key": st.sampled_from(["example.com/unhealthy", "example.com/maintenance"])},
        optional={
            "operator": st.just("Exists"),
            "effect": st.sampled_from(["NoSchedule", "NoExecute"]),
        },
    ),
    min_size=1,
    max_size=2,
)
opaque = st.fixed_dictionaries(
    {
        "opaque": st.fixed_dictionaries(
            {
                "driver": classes,
                "parameters": st.fixed_dictionaries(
                    {"sharing": st.sampled_from(["TimeSlicing", "MPS"])}
                ),
            }
        )
    }
)


@st.composite
def exact_fields(draw: st.DrawFn, *, sub: bool = False) -> dict[str, Any]:
    fields: dict[str, Any] = {"deviceClassName": draw(classes)}
    if draw(st.booleans()):
        fields["selectors"] = draw(selectors)
    mode = draw(st.sampled_from([None, "ExactCount", "All"]))
    if mode is not None:
        fields["allocationMode"] = mode
    if mode != "All" and draw(st.booleans()):
        fields["count"] = draw(st.integers(1, 4))
    if not sub and draw(st.booleans()):
        fields["adminAccess"] = draw(st.booleans())
    if draw(st.booleans()):
        fields["tolerations"] = draw(tolerations)
    if draw(st.integers(0, 3)) == 0:
        fields["capacity"] = {"requests": {"memory": draw(st.sampled_from(["1Gi", "10Gi"]))}}
    keys = list(fields)
    order = draw(st.permutations(keys))
    return {k: fields[k] for k in order}


@st.composite
def requests(draw: st.DrawFn, version: str) -> list[dict[str, Any]]:
    result = []
    for name in draw(st.lists(names, min_size=1, max_size=3, unique=True)):
        if draw(st.integers(0, 3)) == 0:
            subs = [
                {"name": sub, **draw(exact_fields(sub=True))}
                for sub in draw(st.lists(names, min_size=1, max_size=2, unique=True))
            ]
            result.append({"name": name, "firstAvailable": subs})
        elif version == "v1beta1":
            fields = draw(exact_fields())
            position = draw(st.integers(0, len(fields)))
            items = list(fields.items())
            items.insert(position, ("name", name))
            result.append(dict(items))
        else:
            result.append({"name": name, "exactly": draw(exact_fields())})
    return result


@st.composite
def claim_spec(draw: st.DrawFn, version: str) -> dict[str, Any]:
    reqs = draw(requests(version))
    devices: dict[str, Any] = {"requests": reqs}
    if len(reqs) > 1 and draw(st.booleans()):
        devices["constraints"] = [
            {"requests": [r["name"] for r in reqs], "matchAttribute": "dra.example.com/numa"}
        ]
    if draw(st.booleans()):
        devices["config"] = [{"requests": [reqs[0]["name"]], **draw(opaque)}]
    return {"devices": devices}


@st.composite
def node_selection(draw: st.DrawFn) -> dict[str, Any]:
    """One of the ways to say which nodes see a slice (or a device)."""
    choice = draw(st.sampled_from(["nodeName", "nodeSelector", "allNodes"]))
    if choice == "nodeName":
        return {"nodeName": draw(st.sampled_from(["node-1", "node-2"]))}
    if choice == "allNodes":
        return {"allNodes": True}
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
    return {"nodeSelector": {"nodeSelectorTerms": [term]}}


@st.composite
def device(
    draw: st.DrawFn, version: str, *, counters: bool = False, per_device_nodes: bool = False
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["attributes"] = {
            "model": {"string": draw(st.sampled_from(["A100", "H100"]))},
            "dra.example.com/numa": {"int": draw(st.integers(0, 3))},
        }
    if draw(st.booleans()):
        fields["capacity"] = {"memory": {"value": draw(st.sampled_from(["40Gi", "80Gi"]))}}
    if draw(st.booleans()):
        fields["taints"] = [{"key": "example.com/unhealthy", "effect": "NoSchedule"}]
    if counters and draw(st.booleans()):
        fields["consumesCounters"] = [
            {"counterSet": "gpu-counters", "counters": {"memory": {"value": "10Gi"}}}
        ]
    if per_device_nodes:
        fields.update(draw(node_selection()))
    if draw(st.integers(0, 4)) == 0:
        fields["allowMultipleAllocations"] = True
    if draw(st.integers(0, 4)) == 0:
        fields["bindsToNode"] = True
        fields["bindingConditions"] = ["example.com/attached"]
        fields["bindingFailureConditions"] = ["example.com/failed"]
    if fields and draw(st.booleans()):
        fields = {k: fields[k] for k in draw(st.permutations(list(fields)))}
    name = draw(names)
    if version == "v1beta1":
        if not fields and draw(st.booleans()):
            return {"name": name}  # comes back as basic: {} (a CONVERSION.md normalisation)
        return (
            {"name": name, "basic": fields}
            if draw(st.booleans())
            else {"basic": fields, "name": name}
        )
    return {"name": name, **fields}


def metadata(name: str, namespaced: bool) -> dict[str, Any]:
    return {"name": name, "namespace": "ml"} if namespaced else {"name": name}


@st.composite
def objects(draw: st.DrawFn, version: str) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"])
    )
    obj: dict[str, Any] = {"apiVersion": f"{GROUP}/{version}", "kind": kind}
    obj["metadata"] = metadata(draw(names), kind in ("ResourceClaim", "ResourceClaimTemplate"))
    if kind == "DeviceClass":
        spec: dict[str, Any] = {"selectors": draw(selectors)}
        if draw(st.booleans()):
            spec["config"] = [draw(opaque)]
        if draw(st.integers(0, 3)) == 0:
            spec["extendedResourceName"] = "example.com/gpu"
        obj["spec"] = spec
    elif kind == "ResourceClaim":
        obj["spec"] = draw(claim_spec(version))
        if draw(st.booleans()):
            obj["status"] = draw(claim_status(obj["spec"]))
    elif kind == "ResourceClaimTemplate":
        obj["spec"] = {
            "metadata": {"labels": {"app": draw(names)}},
            "spec": draw(claim_spec(version)),
        }
    else:
        per_device_nodes = draw(st.integers(0, 3)) == 0
        counters = draw(st.booleans())
        devices = draw(
            st.lists(
                device(version, counters=counters, per_device_nodes=per_device_nodes),
                min_size=1,
                max_size=3,
                unique_by=lambda d: d["name"],
            )
        )
        slice_spec: dict[str, Any] = {
            "driver": "gpu.example.com",
            "pool": {"name": "pool", "generation": 1, "resourceSliceCount": 1},
        }
        if per_device_nodes:
            slice_spec["perDeviceNodeSelection"] = True
        else:
            slice_spec.update(draw(node_selection()))
        if counters:
            slice_spec["sharedCounters"] = [
                {"name": "gpu-counters", "counters": {"memory": {"value": "80Gi"}}}
            ]
        slice_spec["devices"] = devices
        obj["spec"] = {k: slice_spec[k] for k in draw(st.permutations(list(slice_spec)))}
    return obj


@st.composite
def claim_status(draw: st.DrawFn, spec: dict[str, Any]) -> dict[str, Any]:
    """An allocation of the claim's requests, as the scheduler writes it."""
    results = []
    for index, request in enumerate(spec["devices"]["requests"]):
        name = request["name"]
        if "firstAvailable" in request:
            name += "/" + request["firstAvailable"][0]["name"]
        result: dict[str, Any] = {
            "request": name,
            "driver": "gpu.example.com",
            "pool": "node-1",
            "device": f"gpu-{index}",
        }
        if draw(st.booleans()):
            result["tolerations"] = [{"key": "example.com/unhealthy", "operator": "Exists"}]
        results.append(result)
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
    status: dict[str, Any] = {
        "allocation": {
            "devices": {"results": results},
            "nodeSelector": {"nodeSelectorTerms": [term]},
        },
        "reservedFor": [{"resource": "pods", "name": "pod-0", "uid": "0c3d1f6e"}],
    }
    if draw(st.booleans()):
        status["devices"] = [
            {
                "driver": "gpu.example.com",
                "pool": "node-1",
                "device": "gpu-0",
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "Ready",
                        "message": "",
                        "lastTransitionTime": "2025-01-01T00:00:00Z",
                    }
                ],
            }
        ]
    return status


@st.composite
def documents(draw: st.DrawFn, version: str) -> dict[str, Any]:
    """An object, or a ``List`` of objects (converted item by item)."""
    if draw(st.integers(0, 4)):
        return draw(objects(version))
    items = draw(st.lists(objects(version), min_size=1, max_size=3))
    return {"apiVersion": "v1", "kind": "List", "items": items}


def convert_data(obj: Any, target: str) -> Any:
    plan = plan_document(obj, target)
    assert not plan.blocked, plan.findings
    return apply_to_data(obj, plan.edits)


def normalised_v1beta1(obj: dict[str, Any]) -> dict[str, Any]:
    """What v1beta1 → v1 → v1beta1 gives: every device gets a ``basic``; zero values that mean
    "unset" in v1beta1 (slice ``nodeName: ""`` and ``allNodes: false``, request fields beside
    ``firstAvailable``) are gone."""
    out = copy.deepcopy(obj)
    for item in out["items"] if out["kind"] == "List" else [out]:
        if item["kind"] == "ResourceSlice":
            spec = item["spec"]
            for key, zero in (("nodeName", ""), ("allNodes", False)):
                if key in spec and spec[key] == zero:
                    del spec[key]
            for dev in spec["devices"]:
                dev.setdefault("basic", {})
        for request in _requests(item):
            for key, zero in ZERO_REQUEST_FIELDS:
                if request.get(key, "absent") == zero:
                    del request[key]
    return out


ZERO_REQUEST_FIELDS = (("deviceClassName", ""), ("count", 0), ("selectors", None))


def _requests(item: dict[str, Any]) -> list[dict[str, Any]]:
    if item["kind"] == "ResourceClaim":
        return item["spec"]["devices"]["requests"]
    if item["kind"] == "ResourceClaimTemplate":
        return item["spec"]["spec"]["devices"]["requests"]
    return []


@st.composite
def with_unset_zero_values(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` (v1beta1) with zero values that v1beta1 reads as unset, where they fit."""
    out = copy.deepcopy(obj)
    for item in out["items"] if out["kind"] == "List" else [out]:
        if item["kind"] == "ResourceSlice":
            spec = item["spec"]
            if "nodeName" not in spec and draw(st.booleans()):
                spec["nodeName"] = ""
            if "allNodes" not in spec and draw(st.booleans()):
                spec["allNodes"] = False
        for request in _requests(item):
            if "firstAvailable" in request and draw(st.booleans()):
                key, zero = draw(st.sampled_from(ZERO_REQUEST_FIELDS))
                request[key] = zero
    return out


def versions_of(obj: dict[str, Any]) -> set[str]:
    items = obj["items"] if obj["kind"] == "List" else [obj]
    return {item["apiVersion"] for item in items}


@given(documents("v1beta1").flatmap(with_unset_zero_values))
def test_v1beta1_round_trip(obj: dict[str, Any]) -> None:
    v1 = convert_data(obj, "v1")
    assert versions_of(v1) == {f"{GROUP}/v1"}
    assert convert_data(v1, "v1beta1") == normalised_v1beta1(obj)


def without_api_versions(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    for item in out["items"] if out["kind"] == "List" else [out]:
        del item["apiVersion"]
    return out


@given(documents("v1beta2"))
def test_v1beta2_round_trip(obj: dict[str, Any]) -> None:
    v1 = convert_data(obj, "v1")
    assert versions_of(v1) == {f"{GROUP}/v1"}
    assert without_api_versions(v1) == without_api_versions(obj)
    assert convert_data(v1, "v1beta2") == obj


@given(documents("v1"))
def test_v1_round_trip_through_v1beta1(obj: dict[str, Any]) -> None:
    """v1 → v1beta1 → v1 is lossless for valid objects (CONVERSION.md)."""
    v1beta1 = convert_data(obj, "v1beta1")
    assert versions_of(v1beta1) == {f"{GROUP}/v1beta1"}
    assert convert_data(v1beta1, "v1") == obj


STYLES = [(2, 2, 0), (2, 4, 2), (4, 4, 2), (4, 6, 4), (3, 3, 0)]


def dump(obj: Any, style: tuple[int, int, int], flow_leaves: bool, comment_every: int) -> str:
    """``obj`` as YAML in the given indentation, with some comments and flow mappings."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    counter = 0

    def build(node: Any, depth: int) -> Any:
        nonlocal counter
        if isinstance(node, dict):
            out = CommentedMap()
            flow = flow_leaves and all(not isinstance(v, dict | list) for v in node.values())
            for key, value in node.items():
                out[key] = build(value, depth + 1)
                counter += 1
                scalar = not isinstance(value, dict | list)
                if comment_every and counter % comment_every == 0 and scalar and not flow:
                    out.yaml_add_eol_comment(f"note {counter}", key)
            if flow:
                out.fa.set_flow_style()
            return out
        if isinstance(node, list):
            return CommentedSeq(build(v, depth + 1) for v in node)
        return node

    yaml = YAML(typ="rt")
    yaml.indent(mapping=style[0], sequence=style[1], offset=style[2])
    yaml.width = 4096
    buffer = io.StringIO()
    yaml.dump(build(obj, 0), buffer)
    return buffer.getvalue()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents("v1beta1"),
    st.sampled_from(STYLES),
    st.booleans(),
    st.sampled_from([0, 3, 5]),
)
def test_text_conversion_matches_data_conversion(
    obj: dict[str, Any], style: tuple[int, int, int], flow_leaves: bool, comment_every: int
) -> None:
    text = dump(obj, style, flow_leaves, comment_every)
    result = convert_file(load_text(text, "generated.yaml").files[0], Options("v1"))
    assert result.status is Status.CONVERTED, [str(m) for m in result.messages]
    assert result.messages == []  # edited in place: no layout was written anew
    assert count_comments(result.text) == count_comments(text)
    reread = load_text(result.text, "converted.yaml")
    assert apply_to_data(reread.files[0].documents[0].raw, []) == convert_data(obj, "v1")

    back = convert_file(reread.files[0], Options("v1beta1"))
    again = load_text(back.text, "back.yaml").files[0].documents[0].raw
    assert apply_to_data(again, []) == normalised_v1beta1(obj)
    assert count_comments(back.text) == count_comments(text)


VERSION_RULES = ("DRA400", "DRA401")  # deprecated / not served by default: what convert fixes


def _findings(text: str, release: str) -> list[tuple[str, str]]:
    """(severity, rule) of every diagnostic of ``text`` in ``release``, version rules aside."""
    result = lint(load_text(text, "x.yaml"), Settings(features=Features(release)))
    return sorted(
        (d.severity.value, d.rule) for d in result.diagnostics if d.rule not in VERSION_RULES
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["v1beta1", "v1beta2"]).flatmap(documents), st.sampled_from(RELEASES))
def test_v1_output_lints_clean_when_input_does(obj: dict[str, Any], release: str) -> None:
    """The v1 result has no error (nor any other finding) the input did not have."""
    text = dump(obj, (2, 2, 0), False, 0)
    before = _findings(text, release)
    result = convert_file(load_text(text, "x.yaml").files[0], Options("v1"))
    assert result.status is Status.CONVERTED, [str(m) for m in result.messages]
    after = _findings(result.text, release)
    if not any(severity == "error" for severity, _ in before):
        assert not any(severity == "error" for severity, _ in after), after
    assert after == before
