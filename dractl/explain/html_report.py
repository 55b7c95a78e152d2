"""Explanations as one self-contained HTML page: a picture of nodes × devices.

The page is the data of the explanation (embedded JSON) and a small script and style sheet
that ship with dractl (``html_report.js``, ``html_report.css``); it loads nothing from the
network. Each cell is one device on one node, coloured by what happened to it there; rows are
nodes, and nodes whose cells look alike share a row, so that 15,000 nodes stay readable.

Nodes are grouped exactly: two nodes are in one group when every text shown for them (cell
details, outcome, AllocationResult) is the same once each node's own name is replaced by a
placeholder, so the page can show any node of a group by putting its name back. Groups with
the same colours form one row of the picture.
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
    short_reason,
    workload_summary_lines,
)
from dractl.explain.run import natural_key

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


def _device_cells(result: NodeResult, devices: _Devices, messages: dict[int, tuple[Rejection, str]]) -> dict[DeviceEntry, _Cell]:
    """What happened to each device of the node's row."""
    own = devices.local.get(result.node, [])
    outcome = result.outcome
    trace: NodeTrace | None = outcome.trace if outcome is not None else None
    if trace is None:
        why = result.error or "not searched"
        return {device: _Cell("not-evaluated", [why]) for device in (*own, *devices.shared)}
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


def _unit_data(unit: UnitResult, strings: Strings, structures: Strings) -> dict[str, Any]:
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
        cells = _device_cells(result, devices, messages)
        allocations = allocations_data(unit.unit.claims, result)
        details = {device: "\n".join(cell.details) for device, cell in cells.items()}
        # A text that holds the placeholder already cannot be told apart: such a node keeps
        # its texts as they are, in a group of its own.
        literal = any(
            NODE_TOKEN in text
            for text in (reason, *details.values(), *(part for d in cells for part in d.id))
        ) or any(NODE_TOKEN in text for text in _strings(allocations))

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
        key = (result_name, norm(reason), cell_key, allocations_key, result.timed_out, node if literal else "")
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "nodes": [],
                "result": result_name,
                "timedOut": result.timed_out,
                "reason": strings.add(norm(reason)),
                "cells": cell_key,
                "allocations": None if allocations_key is None else structures.add(allocations_key),
                "literal": literal,
            }
            row_key = (result_name, tuple((column, category) for column, category, _ in cell_key))
            rows.setdefault(row_key, []).append(len(groups) - 1)
        group["nodes"].append(node)
    # Node-local columns first (by driver and device name), then the network-attached band.
    order = sorted(local_columns, key=lambda c: (c[1], natural_key(c[2]), natural_key(c[3])))
    order += list(shared_columns)
    index = {column: position for position, column in enumerate(order)}
    group_list = list(groups.values())
    for group in group_list:
        group["cells"] = sorted(
            [index[column], _RANK[category], strings.add(text)] for column, category, text in group["cells"]
        )
    pick = next((r for r in ordered if r.allocated), None)
    return {
        "title": unit.unit.title,
        "claims": [[c.qualified_name, c.template] for c in unit.unit.claims],
        "allocatedClaims": [c.qualified_name for c in unit.unit.preallocated],
        "counts": counts,
        "timedOut": sum(1 for r in ordered if r.timed_out),
        "nodes": len(ordered),
        "pick": _pick(pick) if pick is not None else None,
        "columns": [
            {"band": band, "driver": driver, "pool": pool, "device": name} for band, driver, pool, name in order
        ],
        "groups": group_list,
        "rows": [
            {"result": result_name, "groups": members,
             "cells": sorted([index[column], _RANK[category]] for column, category in cells)}
            for (result_name, cells), members in rows.items()
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
    """The page's data: categories, texts and AllocationResults (referred to by index), and
    per allocation unit its summary, columns, node groups and rows. A cell is `[column,
    category, text]`, each an index."""
    from rich.text import Text

    from dractl import __version__

    strings = Strings()
    structures = Strings()  # AllocationResults (as JSON text) of node groups, each stored once
    units = [_unit_data(unit, strings, structures) for unit in explanation.units]
    workloads = [
        {
            # What the text output says of the replicas, then the picture of the one explained.
            "summary": [Text.from_markup(line).plain for line in workload_summary_lines(result, verbose=True)],
            "unit": None if result.explained is None else _unit_data(result.explained, strings, structures),
        }
        for result in explanation.workloads
    ]
    return {
        "generator": f"dractl {__version__}",
        "kubernetesVersion": explanation.release,
        "implementation": explanation.implementation,
        "notes": explanation.notes,
        "categories": [{"key": k, "label": label, "colour": colour} for k, label, colour in CATEGORIES],
        "units": units,
        "workloads": workloads,
        "strings": strings.items,
        "allocations": [json.loads(text) for text in structures.items],
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
