"""Explanations as one self-contained HTML page: a picture of nodes × devices.

The page is the data of the explanation (embedded JSON) and a small script and style sheet
that ship with dractl (``html_report.js``, ``html_report.css``); it loads nothing from the
network. Each cell is one device on one node, coloured by what happened to it there; rows are
nodes, and nodes whose cells look alike share a row, so that 15,000 nodes stay readable.

Nodes are grouped exactly: two nodes are in one group when every text shown for them (cell
details, outcome, AllocationResult) is the same once each node's own name is replaced by a
placeholder, so the page can show any node of a group by putting its name back. Groups with
the same colours form one row of the picture.

For a Pod, the scheduler's verdict is part of the page: a node that a Filter plugin rejected
before the allocator's device search (or that DynamicResources rejected by a check of its own)
is coloured by that plugin, and the unit's summary gives the scheduler's answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from dractl.allocator.trace import Reason
from dractl.explain.render import (
    allocations_data,
    contract_result,
    scheduler_data,
    short_reason,
    workload_summary_lines,
)
from dractl.explain.run import natural_key
from dractl.scheduler.status import Code

if TYPE_CHECKING:
    from dractl.allocator import DeviceEntry, Inventory, NodeTrace, Rejection
    from dractl.explain.run import Explanation, NodeResult, UnitResult

# Stands for the node's own name in the texts of a group (JSON writes it as \u0000).
NODE_TOKEN = "\x00"

# (key, label, colour): the legend, in order of precedence. A device that several requests
# looked at shows the first of their verdicts in this order (chosen for one request beats
# "selector false" of another); its details list every request's verdict.
CATEGORIES: list[tuple[str, str, str]] = [
    ("chosen", "chosen", "#1a9850"),
    ("given-back", "candidate given back", "#fee08b"),
    ("constraint", "constraint", "#f46d43"),
    ("taint", "taint not tolerated", "#8e0152"),
    ("capacity", "capacity", "#d73027"),
    ("counters", "counters exhausted", "#fdae61"),
    ("in-use", "in use by a claim", "#4575b4"),
    ("in-use-here", "picked for another request", "#91bfdb"),
    ("claim-limit", "claim limit", "#c51b7d"),
    ("binding", "binding conditions", "#35978f"),
    ("selector-error", "selector error", "#40004b"),
    ("free", "candidate, not needed", "#a6d96a"),
    ("selector-false", "selector false", "#d9d9d9"),
    ("unrequested", "not requested", "#f0f0f0"),
    ("pool-unusable", "pool unusable", "#8c8c8c"),
    ("unreachable", "not reachable from this node", "#ffffff"),
    ("not-evaluated", "node not searched", "#e7d4e8"),
]
_RANK = {key: index for index, (key, _, _) in enumerate(CATEGORIES)}
_CATEGORY_OF_REASON = {
    Reason.GIVEN_BACK: "given-back",
    Reason.CONSTRAINT_CONFLICT: "constraint",
    Reason.CONSTRAINT_MISSING_ATTRIBUTE: "constraint",
    Reason.TAINT_NOT_TOLERATED: "taint",
    Reason.CAPACITY_UNDEFINED: "capacity",
    Reason.CAPACITY_INSUFFICIENT: "capacity",
    Reason.COUNTER_EXHAUSTED: "counters",
    Reason.COUNTERS_DISABLED: "counters",
    Reason.IN_USE: "in-use",
    Reason.IN_USE_HERE: "in-use-here",
    Reason.ADMIN_SAME_CLAIM: "in-use-here",
    Reason.CLAIM_LIMIT: "claim-limit",
    Reason.BINDING_CONDITIONS: "binding",
    Reason.CLASS_SELECTOR_ERROR: "selector-error",
    Reason.REQUEST_SELECTOR_ERROR: "selector-error",
    Reason.CLASS_SELECTOR_FALSE: "selector-false",
    Reason.REQUEST_SELECTOR_FALSE: "selector-false",
    Reason.POOL_OUTDATED: "pool-unusable",
    Reason.POOL_INCOMPLETE: "pool-unusable",
    Reason.POOL_INVALID: "pool-unusable",
    Reason.SLICE_IGNORED: "pool-unusable",
    Reason.OTHER_NODE: "unreachable",
}
assert set(_CATEGORY_OF_REASON) == set(Reason), "every reason has a colour"

# A node rejected by a scheduler plugin before the allocator's device search (or by a check of
# DynamicResources' own) is coloured by that plugin: in the legend in the order of the default
# profile's Filter phase, in colours the device states above do not use.
PLUGIN_COLOURS: dict[str, str] = {
    "NodeUnschedulable": "#543005",
    "NodeName": "#7f3b08",
    "TaintToleration": "#b35806",
    "NodeAffinity": "#637939",
    "NodePorts": "#5254a3",
    "NodeResourcesFit": "#bd9e39",
    "VolumeRestrictions": "#843c39",
    "EBSLimits": "#7b4173",
    "GCEPDLimits": "#ce6dbd",
    "NodeVolumeLimits": "#de9ed6",
    "AzureDiskLimits": "#9c9ede",
    "VolumeBinding": "#ad494a",
    "VolumeZone": "#8ca252",
    "PodTopologySpread": "#6b6ecf",
    "InterPodAffinity": "#a55194",
    "DynamicResources": "#003c30",
}
_OTHER_PLUGIN_COLOURS = ["#393b79", "#8c6d31", "#17becf", "#e7969c", "#cedb9c", "#252525"]
_PLUGIN_ORDER = {name: index for index, name in enumerate(PLUGIN_COLOURS)}


class Strings:
    """Texts of the page, each stored once and referred to by index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.items)
            self.items.append(text)
        return index


_Column = tuple[str, str, str, str]  # band ("node" or "shared"), driver, pool, device


@dataclass
class _Cell:
    category: str
    details: list[str] = field(default_factory=list)  # "request gpus: in use by ..." lines


class _Devices:
    """The devices each node's row shows: its own (slices, or devices, that name the node),
    then the network-attached ones (every other device), the same columns for every node."""

    def __init__(self, inventory: Inventory | None) -> None:
        self.local: dict[str, list[DeviceEntry]] = {}
        self.shared: list[DeviceEntry] = []
        self.slices_of: dict[str, list[Any]] = {}
        self.shared_slices: list[Any] = []
        for slice_entry in inventory.slices if inventory is not None else ():
            if slice_entry.node_name:
                self.local.setdefault(slice_entry.node_name, []).extend(slice_entry.devices)
                self.slices_of.setdefault(slice_entry.node_name, []).append(slice_entry)
                continue
            self.shared_slices.append(slice_entry)
            for device in slice_entry.devices:
                if device.node_name:
                    self.local.setdefault(device.node_name, []).append(device)
                else:
                    self.shared.append(device)


def _plugin_key(result: NodeResult) -> str | None:
    """The legend entry of the scheduler plugin that rejected the node (``plugin:<name>``, or
    ``plugin-error:<name>`` for an error), unless it was the allocator's device search (whose
    trace colours the devices) or nothing rejected it."""
    verdict = result.scheduler
    if verdict is None:
        return None
    status = verdict.status
    if status.success or status.code is Code.SKIP:
        return None
    outcome = result.outcome
    if status.plugin == "DynamicResources" and outcome is not None and outcome.status != "allocated":
        return None  # the device search: unschedulable, timed out, or its error
    kind = "plugin-error" if status.code is Code.ERROR else "plugin"
    return f"{kind}:{status.plugin or 'scheduler'}"


def _plugin_entries(keys: set[str]) -> list[dict[str, str]]:
    """The legend entries of the plugins that rejected some node, in the Filter phase's order."""
    entries = []
    others = 0
    for key in sorted(keys, key=lambda k: (_PLUGIN_ORDER.get(k.split(":", 1)[1], len(_PLUGIN_ORDER)),
                                            k.split(":", 1)[1], k)):
        kind, plugin = key.split(":", 1)
        colour = PLUGIN_COLOURS.get(plugin)
        if colour is None:
            colour = _OTHER_PLUGIN_COLOURS[others % len(_OTHER_PLUGIN_COLOURS)]
            others += 1
        label = f"error in {plugin}" if kind == "plugin-error" else f"rejected by {plugin}"
        entries.append({"key": key, "plugin": plugin, "label": label, "colour": colour})
    return entries


def _device_cells(result: NodeResult, devices: _Devices, messages: dict[int, tuple[Rejection, str]],
                  plugin: str | None = None) -> dict[DeviceEntry, _Cell]:
    """What happened to each device of the node's row; where the search did not run because
    ``plugin`` (a legend entry's key) rejected the node, that plugin's verdict."""
    own = devices.local.get(result.node, [])
    outcome = result.outcome
    trace: NodeTrace | None = outcome.trace if outcome is not None else None
    if trace is None:
        why = result.error or "not searched"
        return {device: _Cell(plugin or "not-evaluated", [why]) for device in (*own, *devices.shared)}
    cells: dict[DeviceEntry, _Cell] = {}

    def mark(device: DeviceEntry, category: str, detail: str) -> None:
        cell = cells.get(device)
        if cell is None:
            cells[device] = _Cell(category, [detail])
            return
        cell.details.append(detail)
        if _RANK[category] < _RANK[cell.category]:
            cell.category = category

    for request in trace.requests:
        label = f"{request.claim} request {request.request}"
        chosen = set(request.chosen)
        rejected: set[DeviceEntry] = set()
        for rejection, run in request.rejection_runs():
            known = messages.get(id(rejection))
            if known is None or known[0] is not rejection:
                known = messages[id(rejection)] = (rejection, rejection.message())
            category = _CATEGORY_OF_REASON[rejection.reason]
            for device in run:
                rejected.add(device)
                mark(device, category, f"{label}: {known[1]}")
        for device in request.candidates():
            if device.id in chosen:
                mark(device, "chosen", f"{label}: chosen")
            elif device not in rejected:
                mark(device, "free", f"{label}: candidate, not needed")
    wanted = {device for device in (*own, *devices.shared) if device not in cells}
    if wanted:
        slices = devices.slices_of.get(result.node, []) + devices.shared_slices
        for device, rejection in trace.unseen_devices(slices):
            if device in wanted:
                cells[device] = _Cell(_CATEGORY_OF_REASON[rejection.reason], [rejection.message()])
        for device in wanted:
            if device not in cells:  # usable, but no request asks for it
                cells[device] = _Cell("unrequested", ["no request of the claims asks for this device"])
    return cells


def _normalized(text: str, node: str) -> str:
    return text.replace(node, NODE_TOKEN) if node else text


def _strings(value: Any) -> Iterator[str]:
    """Every string (keys too) in JSON-like data."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _in_strings(value: Any, node: str) -> Any:
    """`value` with the node's name replaced in every string (keys too) by the placeholder."""
    if isinstance(value, str):
        return _normalized(value, node)
    if isinstance(value, dict):
        return {_normalized(str(k), node): _in_strings(v, node) for k, v in value.items()}
    if isinstance(value, list):
        return [_in_strings(v, node) for v in value]
    return value


def _status_data(result: NodeResult, plugin: str | None) -> dict[str, Any] | None:
    """The scheduler's status of a node that did not pass, for the page (``rejectedBy``: the
    legend entry's key where the node is coloured by its plugin; ``reasons`` and ``detail``
    are texts of the node's group, with the placeholder for its name)."""
    verdict = result.scheduler
    if verdict is None or verdict.status.success:
        return None
    status = verdict.status
    return {"plugin": status.plugin, "code": status.code.value, "phase": verdict.phase,
            "reasons": list(status.reasons), "detail": status.detail, "rejectedBy": plugin}


def _unit_data(unit: UnitResult, strings: Strings, structures: Strings, statuses: Strings,
               ranks: dict[str, int]) -> dict[str, Any]:
    ordered = unit.ordered()
    inventory = next(
        (r.outcome.trace.inventory for r in ordered if r.outcome is not None and r.outcome.trace is not None),
        None,
    )
    devices = _Devices(inventory)
    messages: dict[int, tuple[Rejection, str]] = {}
    shared_columns: dict[_Column, None] = {("shared", *d.id): None for d in devices.shared}
    local_columns: set[_Column] = set()
    groups: dict[Any, dict[str, Any]] = {}
    rows: dict[Any, list[int]] = {}
    counts = {"allocated": 0, "unschedulable": 0, "error": 0}
    for result in ordered:
        node = result.node
        result_name = contract_result(result)
        counts[result_name] = counts.get(result_name, 0) + 1
        reason = short_reason(result)
        plugin = _plugin_key(result)
        cells = _device_cells(result, devices, messages, plugin)
        allocations = allocations_data(unit.unit.claims, result)
        status = _status_data(result, plugin)
        details = {device: "\n".join(cell.details) for device, cell in cells.items()}
        # A text that holds the placeholder already cannot be told apart: such a node keeps
        # its texts as they are, in a group of its own.
        literal = any(
            NODE_TOKEN in text
            for text in (reason, *details.values(), *(part for d in cells for part in d.id))
        ) or any(NODE_TOKEN in text for value in (allocations, status) for text in _strings(value))

        def norm(text: str, node: str = node, literal: bool = literal) -> str:
            return text if literal else _normalized(text, node)

        keyed = []
        for device, cell in cells.items():
            driver, pool, name = device.id
            if device.node_name or device.slice.node_name:
                column: _Column = ("node", driver, norm(pool), norm(name))
                local_columns.add(column)
            else:
                column = ("shared", driver, pool, name)
            keyed.append((column, cell.category, norm(details[device])))
        cell_key = tuple(sorted(keyed))
        if allocations is not None and not literal:
            allocations = _in_strings(allocations, node)
        allocations_key = json.dumps(allocations) if allocations is not None else None
        if status is not None and not literal:  # its texts; the rest is read by the page's script
            status = {**status, "reasons": _in_strings(status["reasons"], node), "detail": _in_strings(status["detail"], node)}
        status_key = json.dumps(status) if status is not None else None
        key = (result_name, norm(reason), cell_key, allocations_key, status_key, result.timed_out,
               node if literal else "")
        group = groups.get(key)
        if group is None:
            status_index = None if status_key is None else statuses.add(status_key)
            group = groups[key] = {
                "nodes": [],
                "result": result_name,
                "timedOut": result.timed_out,
                "reason": strings.add(norm(reason)),
                "cells": cell_key,
                "allocations": None if allocations_key is None else structures.add(allocations_key),
                "literal": literal,
            }
            if status_index is not None:  # the scheduler's status, for a Pod's node that did not pass
                group["status"] = status_index
            # A row coloured by a plugin shows that plugin's status: its nodes share it.
            row_key = (result_name, status_index if plugin is not None else None,
                       tuple((column, category) for column, category, _ in cell_key))
            rows.setdefault(row_key, []).append(len(groups) - 1)
        group["nodes"].append(node)
    # Node-local columns first (by driver and device name), then the network-attached band.
    order = sorted(local_columns, key=lambda c: (c[1], natural_key(c[2]), natural_key(c[3])))
    order += list(shared_columns)
    index = {column: position for position, column in enumerate(order)}
    group_list = list(groups.values())
    for group in group_list:
        group["cells"] = sorted(
            [index[column], ranks[category], strings.add(text)] for column, category, text in group["cells"]
        )
    if unit.verdict is not None:  # a Pod: the node the scheduler selects
        pick = next((r for r in ordered if r.node == unit.verdict.selected), None)
    else:
        pick = next((r for r in ordered if r.allocated), None)
    return {
        "title": unit.unit.title,
        "claims": [[c.qualified_name, c.template] for c in unit.unit.claims],
        "allocatedClaims": [c.qualified_name for c in unit.unit.preallocated],
        "counts": counts,
        "timedOut": sum(1 for r in ordered if r.timed_out),
        "nodes": len(ordered),
        "pick": _pick(pick) if pick is not None else None,
        # The scheduler's answer for a Pod (as `scheduler` in the JSON output), else None.
        "scheduler": scheduler_data(unit),
        "columns": [
            {"band": band, "driver": driver, "pool": pool, "device": name} for band, driver, pool, name in order
        ],
        "groups": group_list,
        "rows": [
            {"result": result_name, "groups": members,
             "cells": sorted([index[column], ranks[category]] for column, category in cells)}
            for (result_name, _, cells), members in rows.items()
        ],
    }


def _pick(result: NodeResult) -> dict[str, Any]:
    from dractl.allocator import format_device_id

    outcome = result.outcome
    trace = outcome.trace if outcome is not None else None
    requests = [
        {"claim": r.claim, "request": r.request, "devices": [format_device_id(d) for d in r.chosen]}
        for r in (trace.requests if trace is not None else [])
        if r.chosen
    ]
    return {
        "node": result.node,
        "requests": requests,
        "orderAmbiguous": bool(outcome and outcome.order_ambiguous),
    }


def report_data(explanation: Explanation) -> dict[str, Any]:
    """The page's data: categories, the plugins that rejected nodes, texts, AllocationResults
    and scheduler statuses (referred to by index), and per allocation unit its summary,
    columns, node groups and rows. A cell is `[column, category, text]`, each an index; a
    category past the device states is a plugin (``plugins[category - len(categories)]``)."""
    from rich.text import Text

    from dractl import __version__

    explained = [*explanation.units, *(r.explained for r in explanation.workloads if r.explained is not None)]
    plugins = _plugin_entries({key for unit in explained for r in unit.nodes if (key := _plugin_key(r))})
    ranks = {**_RANK, **{entry["key"]: len(CATEGORIES) + i for i, entry in enumerate(plugins)}}
    strings = Strings()
    structures = Strings()  # AllocationResults (as JSON text) of node groups, each stored once
    statuses = Strings()  # the scheduler's statuses (as JSON text) of node groups, each stored once
    units = [_unit_data(unit, strings, structures, statuses, ranks) for unit in explanation.units]
    workloads = [
        {
            # What the text output says of the replicas, then the picture of the one explained.
            "summary": [Text.from_markup(line).plain for line in workload_summary_lines(result, verbose=True)],
            "unit": None if result.explained is None
            else _unit_data(result.explained, strings, structures, statuses, ranks),
        }
        for result in explanation.workloads
    ]
    return {
        "generator": f"dractl {__version__}",
        "kubernetesVersion": explanation.release,
        "implementation": explanation.implementation,
        "notes": explanation.notes,
        "categories": [{"key": k, "label": label, "colour": colour} for k, label, colour in CATEGORIES],
        "plugins": plugins,
        "units": units,
        "workloads": workloads,
        "strings": strings.items,
        "allocations": [json.loads(text) for text in structures.items],
        "statuses": [json.loads(text) for text in statuses.items],
    }


def _asset(name: str) -> str:
    return resources.files("dractl.explain").joinpath(name).read_text(encoding="utf-8")


def render_html(explanation: Explanation) -> str:
    from html import escape

    data = json.dumps(report_data(explanation), ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, "</script" ends the element and "<!--" changes how the rest is read; in
    # JSON "<" appears only inside strings, where "\u003c" means the same.
    data = data.replace("<", "\\u003c")
    titles = "; ".join(unit.unit.title for unit in explanation.units)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>dractl explain: {escape(titles)}</title>\n"
        f"<style>\n{_asset('html_report.css')}</style>\n</head>\n<body>\n"
        "<noscript>This report draws its picture with JavaScript; the data is in the page source "
        "(dractl explain -o json gives it as JSON).</noscript>\n"
        "<main id=\"report\"></main>\n"
        f"<script type=\"application/json\" id=\"dractl-data\">{data}</script>\n"
        f"<script>\n{_asset('html_report.js')}</script>\n</body>\n</html>\n"
    )
