"""DRA34x: what the inputs' ResourceSlices can offer to the claims being linted.

Both rules only look when the inputs (or the `--context` files) hold ResourceSlices, and take
those slices as the devices the cluster has. DRA340 is a quick upper bound (how many devices of
the class's driver any one node could see); DRA341 runs the scheduler's allocator (the solver of
`dractl explain`) for every Pod's claims, and for every claim or template no Pod uses, on every
node the inputs know of.

Which slices describe the cluster of a claim: every `--context` slice, and the linted slices
(and Nodes) of the claim's own folder or a folder above it. A repository often holds example
slices of several clusters next to workloads for others (one folder per cloud, test manifests
for a kind cluster); a slice in `examples/aws/` says nothing about a Pod in `tests/`, and which
files a run happens to include (a pre-commit hook passes only the changed ones) must not change
the verdict. Pass a cluster's slices with `--context` to judge claims anywhere against them.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dractl.api.model import ApiObject
from dractl.api.workspace import Workspace
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.lint.rules._claims import Request, iter_requests, requests_path
from dractl.lint.rules._common import folder, within
from dractl.lint.rules._rejected import rejected
from dractl.lint.rules.slices import current_pools
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.allocator.inputs import AllocationUnit

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
# A selector that pins the driver: `device.driver == "X"`, alone or as the first operand of a
# conjunction (without `||` or `?`, which could make the driver test optional).
_DRIVER_RE = r"""^\s*device\.driver\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*(?:$|&&)"""
SOLVER_BUDGET_SECONDS = 5.0  # for all units of one lint run together


def pinned_driver(selectors: Any) -> str | None:
    """The driver a list of (ANDed) CEL selectors restricts devices to, if one pins it."""
    if not isinstance(selectors, list):
        return None
    for selector in selectors:
        cel = selector.get("cel") if isinstance(selector, dict) else None
        expression = cel.get("expression") if isinstance(cel, dict) else None
        if isinstance(expression, str) and "||" not in expression and "?" not in expression:
            match = re.match(_DRIVER_RE, expression)
            if match:
                return match.group(1) if match.group(1) is not None else match.group(2)
    return None


def in_scope(ctx: LintContext, obj: ApiObject, scope: str) -> bool:
    """Whether a slice or Node describes the cluster of objects in folder ``scope``."""
    return ctx.workspace.is_context(obj) or within(scope, folder(obj))


class Reach(Record):
    """How many devices of each driver the busiest node could see (an upper bound)."""

    __slots__ = ("multi_allocatable", "per_driver", "total")

    def __init__(
        self,
        per_driver: dict[str, tuple[int, str]],
        total: tuple[int, str],
        multi_allocatable: set[str],
    ) -> None:
        self.per_driver = per_driver  # driver -> (devices, on which node)
        self.total = total
        self.multi_allocatable = multi_allocatable  # drivers with devices that can be allocated more than once


def reach(ctx: LintContext, scope: str) -> Reach:
    """Devices per node, from the newest generation of every pool (once per folder and run).

    Only the slices and Nodes in scope for objects in folder ``scope`` count. Node-local slices
    count for their node; slices for all nodes or a node selector, and devices with their own
    node selection, count for every node (an upper bound).
    """
    key = ("capacity.reach", scope)
    if key in ctx.cache:
        result: Reach = ctx.cache[key]
        return result
    local: dict[str, Counter[str]] = {}
    shared: Counter[str] = Counter()
    multi: set[str] = set()
    for pool in current_pools(ctx):
        for obj in pool.slices:
            devices = obj.get(("spec", "devices"))
            if not isinstance(devices, list) or not in_scope(ctx, obj, scope):
                continue
            node = obj.get(("spec", "nodeName"))
            for device in devices:
                if not isinstance(device, dict):
                    continue
                if device.get("allowMultipleAllocations") is True:
                    multi.add(pool.driver)
                device_node = device.get("nodeName")
                where = node if isinstance(node, str) and node else device_node
                if isinstance(where, str) and where:
                    local.setdefault(where, Counter())[pool.driver] += 1
                else:
                    shared[pool.driver] += 1
    for name, node in ctx.workspace.nodes.items():
        if in_scope(ctx, node, scope):
            local.setdefault(name, Counter())
    nodes = local or {"any node": Counter()}
    per_driver: dict[str, tuple[int, str]] = {}
    totals: list[tuple[int, str]] = []
    for name, counts in sorted(nodes.items()):
        seen = counts + shared
        for driver, n in seen.items():
            if n > per_driver.get(driver, (-1, ""))[0]:
                per_driver[driver] = (n, name)
        totals.append((sum(seen.values()), name))
    total = max(totals, key=lambda t: t[0]) if totals else (0, "any node")
    # A driver with a slice the apiserver refuses in scope: its devices in the cluster are not
    # known, and the slice's own findings name the cause (no verdict on its claims here).
    for obj in ctx.workspace.slices:
        driver = obj.get(("spec", "driver"))
        if isinstance(driver, str) and in_scope(ctx, obj, scope) and rejected(obj, ctx) is not None:
            per_driver.pop(driver, None)
    result = Reach(per_driver, total, multi)
    ctx.cache[key] = result
    return result


def _class_selectors(ctx: LintContext, name: str | None) -> Any:
    cls = ctx.workspace.device_classes.get(name or "")
    return cls.get(("spec", "selectors")) if cls is not None else None


def _short_of(ctx: LintContext, request: Request) -> str | None:
    """Why this request can never get its devices from the inputs' slices, or None."""
    sub: Any = ctx.defaulted(request.obj)
    for part in request.path:
        if isinstance(sub, dict):
            sub = sub.get(part)
        elif isinstance(sub, list) and isinstance(part, int) and 0 <= part < len(sub):
            sub = sub[part]
        else:
            return None
    if not isinstance(sub, dict) or sub.get("allocationMode") != "ExactCount":
        return None
    count = sub.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        return None
    available = reach(ctx, folder(request.obj))
    if not available.per_driver:
        return None  # no slice in scope: nothing to compare with
    driver = pinned_driver(sub.get("selectors")) or pinned_driver(
        _class_selectors(ctx, request.device_class)
    )
    if driver is not None:
        if driver in available.multi_allocatable or driver not in available.per_driver:
            return None  # shared devices, or no slice of that driver among the inputs
        have, node = available.per_driver[driver]
        what = f"device{'s' if have != 1 else ''} of driver {driver}"
    else:
        if available.multi_allocatable:
            return None
        have, node = available.total
        what = "device" if have == 1 else "devices"
    if count <= have:
        return None
    on = f" ({have} on {node})" if have and node != "any node" else ""
    most = "no node sees more than" if node != "any node" else "the inputs' slices offer only"
    return f"asks for {count} devices, but {most} {have} {what}{on}"


def short_requests(ctx: LintContext, obj: ApiObject) -> list[tuple[Request, str]]:
    """Requests of a claim or template that the slices can never satisfy (subrequests: all)."""
    key = ("capacity.short", id(obj))
    if key in ctx.cache:
        cached: list[tuple[Request, str]] = ctx.cache[key]
        return cached
    out: list[tuple[Request, str]] = []
    by_request: dict[int, list[tuple[Request, str | None]]] = {}
    for request in iter_requests(obj):
        by_request.setdefault(request.index, []).append((request, _short_of(ctx, request)))
    for entries in by_request.values():
        if all(reason is not None for _, reason in entries):
            request, reason = entries[0]
            if len(entries) > 1:
                reason = f"(and every other subrequest) {reason}"
            out.append((request, str(reason)))
    ctx.cache[key] = out
    return out


@rule("DRA340", "request-exceeds-devices", Severity.WARNING, scope="set")
def request_exceeds_devices(ctx: LintContext) -> Iterator[Finding]:
    """A request asks for more devices than the inputs' slices could ever offer on one node.

    Why:
    All devices of a claim are allocated on one node. When no node of the inputs' slices has
    that many devices of the class's driver (known when a class or request selector is
    `device.driver == "..."`), the claim can never be allocated and its Pod stays Pending.
    Checked only when the inputs (or `--context` files) hold slices of that driver; devices
    that can be allocated more than once (consumable capacity) are not counted. For a
    `firstAvailable` request, only when no subrequest fits. Linted slices count for the claims
    of their own folder and the folders below it (a repository's example slices for one cloud
    say nothing about its test manifests); `--context` slices count everywhere.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices: [{name: gpu-0}, {name: gpu-1}]
        ---
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: four-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.example.com, count: 4}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: two-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly: {deviceClassName: gpu.example.com, count: 2}
    """
    ws = ctx.workspace
    if not ws.slices:
        return
    for kind in CLAIM_KINDS:
        for obj in ws.kind(kind):
            if ws.is_context(obj):
                continue
            for request, reason in short_requests(ctx, obj):
                at = "count" if "count" in request.data else "deviceClassName"
                yield Finding(
                    f'request "{request.label}" {reason}',
                    (*request.path, at),
                    obj=obj,
                )


@rule("DRA341", "claim-unsatisfiable", Severity.WARNING, scope="set")
def claim_unsatisfiable(ctx: LintContext) -> Iterator[Finding]:
    """No node of the inputs can allocate the claims of a Pod (or a claim no Pod uses).

    Why:
    The scheduler allocates all claims of a Pod on one node, with every selector, constraint,
    counter and taint applied; if no node has the devices, the Pod stays Pending with only
    "cannot allocate all claims". dractl runs the same allocator over the inputs' slices and
    nodes, and names the request that falls short on the node that came closest and what
    blocks it there (a constraint, devices in use, a taint), as `dractl explain` summarises its
    closest miss; `dractl explain` tells the full story. Checked when the inputs hold slices of the driver of every
    request (known from a `device.driver == "..."` selector of the class or the request);
    claims whose DeviceClass is missing (DRA301) or whose request exceeds every node (DRA340)
    are left to those rules, and so are claims and classes the apiserver rejects for what the
    allocator reads (selectors that do not compile, DRA200; constraints without an attribute,
    DRA122), a selector that fails at run time on every node (DRA210 says where), and the
    drivers with a ResourceSlice the apiserver rejects for its devices (its own findings say
    why). Pods whose claims come from one template get one verdict, each naming its own
    claims. Linted slices and Nodes count for the Pods and claims of their own
    folder and the folders below it; `--context` ones (a cluster dump) count everywhere. A
    Pod's nodeSelector and required node affinity leave out the Nodes they reject, as the
    scheduler's NodeAffinity filter does before the DRA filter (a node known only from a
    slice's nodeName has no labels to judge and is tried). The search gets a few seconds per
    lint run.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata:
          name: node-1-gpus
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            attributes:
              model: {string: L4}
        ---
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
        ---
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: a100
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel: {expression: 'device.attributes["gpu.example.com"].model == "A100"'}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: l4
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel: {expression: 'device.attributes["gpu.example.com"].model == "L4"'}
    """
    ws = ctx.workspace
    if not ws.slices:
        return
    yield from _Solver(ctx).findings()


class _Solver:
    """Runs the allocator for the units a lint run can judge, within a time budget."""

    def __init__(self, ctx: LintContext) -> None:
        self.ctx = ctx
        self.ws = ctx.workspace

    def findings(self) -> Iterator[Finding]:
        from dractl.allocator import Allocator, Inventory, NodeInfo
        from dractl.allocator.inputs import (
            allocator_objects,
            pod_node_affinity,
            taint_rule_selectors,
        )
        from dractl.api.decoding import decode_errors
        from dractl.errors import DractlError

        features = self.ctx.features
        inputs = [
            o for o in allocator_objects(self.ws, features)
            if o.kind != "ResourceSlice" or rejected(o, self.ctx) is None
        ]
        # The allocator trusts the shape of what it reads; values the apiserver could not even
        # decode are DRA011/DRA012 findings, and the allocator's verdict would mean nothing.
        read = [*inputs, *self.ws.nodes.values(), *(spec.obj for spec in self.ws.pod_specs)]
        if decode_errors(read, features.release):
            return
        units = self._units()
        if not units:
            return
        consumable = features.enabled("DRAConsumableCapacity")
        deadline = time.monotonic() + SOLVER_BUDGET_SECONDS
        # One allocator per folder: each sees the slices and Nodes in scope there.
        allocators: dict[str, tuple[Any, list[Any]] | None] = {}
        # Units asking for the same devices get the same answer (replicas, generated claims);
        # the unit that was solved is kept, for its claims' names in the allocator's texts.
        verdicts: dict[tuple[str, str, str], tuple[list[Any] | None, AllocationUnit]] = {}
        for unit, scope in units:
            if scope not in allocators:
                allocators[scope] = None
                nodes = self._nodes(NodeInfo, scope)
                # Slices, claims already allocated and taint rules describe a cluster: only
                # those in scope; DeviceClasses are looked up by name wherever they are.
                objects = [
                    o for o in inputs if o.kind == "DeviceClass" or in_scope(self.ctx, o, scope)
                ]
                try:
                    inventory = Inventory.from_objects(
                        objects, consumable_capacity=consumable, taint_rule_cel=taint_rule_selectors(features)
                    )
                    allocator = Allocator(inventory, release=features.release, gates=features.gates)  # type: ignore[arg-type]
                except DractlError:
                    continue
                if nodes:
                    allocators[scope] = (allocator, nodes)
            built = allocators[scope]
            if built is None:
                continue
            allocator, nodes = built
            affinity = None
            if unit.pod is not None:
                try:
                    affinity = pod_node_affinity(unit.pod)
                except DractlError:
                    continue  # an affinity the scheduler cannot parse: the apiserver's finding
            if affinity is not None:
                # The scheduler's NodeAffinity filter runs before the DRA filter. A node known
                # only from a slice's nodeName has no labels to judge: it stays.
                labelled = self._labelled(scope)
                nodes = [n for n in nodes if n.name not in labelled or affinity.matches(n)]
                if not nodes:
                    continue  # no node the Pod may run on: not a matter of its claims
            claims = [c.data for c in unit.claims]
            key = (scope, repr(affinity), json.dumps([c.get("spec") for c in claims], sort_keys=True, default=str))
            if key not in verdicts:
                outcomes: list[Any] | None = []
                for node in nodes:
                    if time.monotonic() >= deadline:
                        return  # out of time: say nothing rather than guess
                    outcome = allocator.allocate(
                        node, claims, trace=True, deadline=deadline, timeout=None
                    )
                    if outcome.status == "timeout":
                        return
                    if outcome.status == "allocated":
                        outcomes = None
                        break
                    outcomes.append((node, outcome))  # type: ignore[union-attr]
                verdicts[key] = outcomes, unit
            failed, solved = verdicts[key]
            if failed is not None and not self._runtime_errors_only(failed):
                yield self._finding(unit, failed, solved)

    def _runtime_errors_only(self, outcomes: list[Any]) -> bool:
        """Whether every node fails on a selector's CEL runtime error: DRA210 reports that
        selector where it is written (one cause, one finding)."""
        return self.ctx.settings.enabled("DRA210") and all(
            outcome.status == "error" and ": CEL runtime error: " in (outcome.error or "")
            for _, outcome in outcomes
        )

    def _labelled(self, scope: str) -> set[str]:
        """The nodes in scope whose labels are known (a Node object among the inputs)."""
        return {name for name, obj in self.ws.nodes.items() if in_scope(self.ctx, obj, scope)}

    def _nodes(self, node_info: Any, scope: str) -> list[Any]:
        known = {
            name: node_info.from_object(obj)
            for name, obj in self.ws.nodes.items()
            if in_scope(self.ctx, obj, scope)
        }
        for obj in self.ws.slices:
            if not in_scope(self.ctx, obj, scope):
                continue
            name = obj.get(("spec", "nodeName"))
            if isinstance(name, str) and name and name not in known:
                known[name] = node_info(name)
        return [known[n] for n in sorted(known)]

    def _units(self) -> list[tuple[AllocationUnit, str]]:
        """A unit per Pod, and one per claim or template no Pod uses (each judged alone), with
        the folder whose slices it is judged against (the Pod's, else the claim's).

        Pods whose claims are missing from the inputs, and claims naming a DeviceClass that is
        not among them or a request no node could ever satisfy, are other rules' findings.
        """
        from dractl.allocator.inputs import AllocationUnit, plan
        from dractl.errors import DractlError

        checked = [o for o in self.ws.checked if self._judgeable(o)]
        try:
            units = plan(Workspace(checked, self.ws.context))
        except DractlError:
            return []
        out: list[tuple[AllocationUnit, str]] = []
        for unit in units:
            if unit.pod is not None:
                scope = folder(unit.pod)
                if all(self._claim_ok(c.source, scope) for c in unit.claims):
                    out.append((unit, scope))
                continue
            for claim in unit.claims:
                scope = folder(claim.source)
                if self._claim_ok(claim.source, scope):
                    out.append((AllocationUnit(claim.qualified_name, [claim]), scope))
        return [(u, scope) for u, scope in out if u.claims and not u.preallocated]

    def _judgeable(self, obj: ApiObject) -> bool:
        from dractl.allocator.inputs import pod_spec

        spec, _ = pod_spec(obj)
        if spec is None:
            return True
        ns = obj.effective_namespace
        for entry in spec.get("resourceClaims") or []:
            if not isinstance(entry, dict):
                return False
            claim, template = entry.get("resourceClaimName"), entry.get("resourceClaimTemplateName")
            if claim and f"{ns}/{claim}" not in self.ws.claims:
                return False
            if not claim and template and f"{ns}/{template}" not in self.ws.claim_templates:
                return False
        return True

    def _claim_ok(self, source: ApiObject, scope: str) -> bool:
        """Whether the slices in scope speak for every device the claim asks for.

        Each request must name a DeviceClass among the inputs (else DRA301) whose driver is
        known from a selector and has slices in scope: a folder of examples often holds
        slices of one driver and claims for another.
        """
        classes = self.ws.device_classes
        drivers = reach(self.ctx, scope).per_driver
        if self._rejected(source):
            return False
        for request in iter_requests(source):
            if request.device_class not in classes:
                return False
            if self._rejected(classes[request.device_class]):
                return False
            driver = pinned_driver(request.data.get("selectors")) or pinned_driver(
                _class_selectors(self.ctx, request.device_class)
            )
            if driver is None or driver not in drivers:
                return False
        return not (self.ctx.settings.enabled("DRA340") and short_requests(self.ctx, source))

    def _rejected(self, obj: ApiObject) -> bool:
        """Whether the apiserver refuses the claim or class for what the allocator reads too.

        A selector that does not compile (DRA200, DRA201, or one dractl cannot check, DRA203)
        or a constraint without an attribute (DRA122) makes the allocator fail on every node
        with that same complaint: the object never gets that far, and the other rules say so.
        """
        from dractl.lint.rules._cel import checked_selectors

        for checked in checked_selectors(obj, self.ctx):
            if checked.compiled is None:
                return True
        base = requests_path(obj)
        devices = obj.get(base[:-1]) if base else None
        constraints = devices.get("constraints") if isinstance(devices, dict) else None
        for constraint in constraints if isinstance(constraints, list) else ():
            if isinstance(constraint, dict) and not (
                constraint.get("matchAttribute") or constraint.get("distinctAttribute")
            ):
                return True
        return False

    def _finding(self, unit: AllocationUnit, outcomes: list[Any], solved: AllocationUnit) -> Finding:
        """The finding for ``unit``, whose verdict is that of ``solved`` (the same claims,
        perhaps of another Pod: the texts then name ``unit``'s own claims)."""
        finding = self._solved_finding(unit, outcomes)
        if solved is not unit:
            finding.message = _renamed(
                finding.message,
                {a.qualified_name: b.qualified_name for a, b in zip(solved.claims, unit.claims, strict=False)},
            )
        return finding

    def _solved_finding(self, unit: AllocationUnit, outcomes: list[Any]) -> Finding:
        reasons: Counter[str] = Counter(self._reason(outcome) for _, outcome in outcomes)
        summary = "; ".join(
            f"{n} node{'s' if n != 1 else ''}: {reason}" for reason, n in reasons.most_common(2)
        )
        traced = [
            (node, outcome.trace)
            for node, outcome in outcomes
            if outcome.status == "unschedulable" and outcome.trace is not None
        ]
        if traced:
            # The node where the search placed most devices, as `dractl explain` orders them.
            node, trace = max(traced, key=lambda t: t[1].best.devices)
            best = trace.best
            request = best.request
            if request and len(unit.claims) > 1 and best.claim_index < len(unit.claims):
                request = f"{request} of claim {unit.claims[best.claim_index].qualified_name}"
            if best.request and best.devices == 0:
                summary = f"request {request} gets no device on any node"
            elif best.request and best.missing:
                summary = (
                    f"closest is node {node.name}, where request {request} lacks "
                    f"{best.missing} device{'s' if best.missing != 1 else ''}"
                )
                # What `dractl explain` names as blocking the closest miss.
                blocked = ", ".join(
                    f"{what} ({count} device{'s' if count != 1 else ''})"
                    for _, what, count in trace.blockers()[:2]
                )
                if blocked:
                    summary += f", blocked by {blocked}"
        pod = unit.pod
        subject = pod if pod is not None else unit.claims[0].source
        what = (
            f"the claims of {pod.kind} {pod.qualified_name}"
            if pod is not None
            else f"{subject.kind} {subject.qualified_name}"
        )
        path: tuple[Any, ...] = ("metadata", "name")
        if pod is not None:
            from dractl.allocator.inputs import pod_spec

            _, spec_path = pod_spec(pod)
            path = (*spec_path, "resourceClaims")
        return Finding(
            f"no node among the inputs can allocate {what} ({len(outcomes)} "
            f"node{'s' if len(outcomes) != 1 else ''} tried): {summary}",
            path,
            obj=subject,
            hint="`dractl explain` with the same inputs shows every node and device",
        )

    @staticmethod
    def _reason(outcome: Any) -> str:
        if outcome.error:
            return str(outcome.error)
        return "not enough matching devices"


def _renamed(text: str, names: dict[str, str]) -> str:
    """``text`` with every claim name of ``names`` (``ns/name``, a whole word) replaced."""
    names = {old: new for old, new in names.items() if old != new}
    if not names:
        return text
    pattern = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w./-])(?:{pattern})(?![\w.-])", lambda m: names[m.group(0)], text)
