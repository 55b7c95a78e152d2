"""Explanations as data (the JSON/YAML contract, docs/explain.md) and as text for humans."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dractl.allocator import DeviceEntry, NodeTrace, Rejection, RequestTrace
    from dractl.allocator.inputs import ClaimInput
    from dractl.explain.run import Explanation, NodeResult, UnitResult
    from dractl.explain.workloads import Replica, WorkloadResult

SCHEMA_VERSION = 1
DETAIL_NODES = 3  # nodes shown in detail without --verbose: the best and the nearest misses
DEVICES_PER_REASON = 5  # device names listed per reason without --verbose
SUMMARY_NODES = 3  # node names listed per line of the summary
REPLICAS_SHOWN = 20  # replicas of a workload listed without --verbose


class Group:
    """Devices turned down for one reason: how many, and their names (the first few, or all)."""

    __slots__ = ("count", "devices", "message", "reason")

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        self.message = message
        self.count = 0
        self.devices: list[str] = []


def grouped(items: Iterable[tuple[DeviceEntry, Rejection]], limit: int | None = None) -> list[Group]:
    """Groups by reason and message, largest first, devices in input order; at most `limit`
    device names per group (all with None), `count` is always the full number."""
    return grouped_runs(((rejection, [device]) for device, rejection in items), limit)


def grouped_runs(runs: Iterable[tuple[Rejection, list[DeviceEntry]]], limit: int | None = None) -> list[Group]:
    """:func:`grouped` over runs of devices that share one rejection."""
    from dractl.allocator import format_device_id

    # Rejections are mostly shared objects (one per selector verdict): messages are formatted
    # once per object, keyed by identity, the object kept so that its id stays its own.
    messages: dict[int, tuple[Rejection, Group]] = {}
    groups: dict[tuple[str, str], Group] = {}
    for rejection, devices in runs:
        known = messages.get(id(rejection))
        if known is None or known[0] is not rejection:
            key = (rejection.reason.value, rejection.message())
            group = groups.get(key)
            if group is None:
                group = groups[key] = Group(*key)
            known = messages[id(rejection)] = (rejection, group)
        group = known[1]
        group.count += len(devices)
        room = len(devices) if limit is None else limit - len(group.devices)
        group.devices.extend(format_device_id(device.id) for device in devices[:room])
    return sorted(groups.values(), key=lambda g: (-g.count, g.message))


def _group_data(group: Group) -> dict[str, Any]:
    return {"reason": group.reason, "message": group.message, "count": group.count, "devices": group.devices}


def _request_data(request: RequestTrace, verbose: bool) -> dict[str, Any]:
    from dractl.allocator import format_device_id

    # Every device with --verbose; else the first few (count is the full number).
    rejected = grouped_runs(request.rejection_runs(), None if verbose else DEVICES_PER_REASON)
    candidates = request.candidates()
    return {
        "claim": request.claim,
        "request": request.request,
        "deviceClass": request.device_class,
        "allocationMode": request.mode,
        "count": request.count,
        "chosen": [format_device_id(d) for d in request.chosen],
        "candidates": len(candidates),
        # The devices themselves only with --verbose (a pool every node sees can be large).
        "candidateDevices": [format_device_id(d.id) for d in candidates] if verbose else None,
        "rejected": [_group_data(group) for group in rejected],
    }


def _node_explanation(trace: NodeTrace, verbose: bool) -> dict[str, Any]:
    from dractl.allocator import format_device_id

    best = trace.best
    return {
        "pools": [
            {
                "driver": p.driver,
                "pool": p.pool,
                "status": p.status,
                "reason": p.invalid_reason or None,
                "devices": p.devices,
            }
            for p in trace.pools
        ],
        "requests": [_request_data(r, verbose) for r in trace.requests],
        "unavailable": [_group_data(group) for group in grouped(trace.unseen_devices())]
        if verbose
        # Without --verbose one entry per reason, devices not named: on a large cluster every
        # node would list every device of every other node.
        else [
            {"reason": reason.value, "message": _UNSEEN_SUMMARY[reason.value], "count": count, "devices": None}
            for reason, count in trace.unseen_counts()
        ],
        "closest": None
        if best.devices < 0
        else {
            "devices": [[format_device_id(d) for d in claim] for claim in best.results],
            "claimIndex": best.claim_index,
            "request": best.request or None,
            "missing": best.missing,
            "blockedBy": [
                {"reason": reason.value, "message": what, "count": count}
                for reason, what, count in trace.blockers()
            ],
        },
        "steps": trace.steps,
    }


_UNSEEN_SUMMARY = {
    "other-node": "not available on this node (slices or devices for other nodes)",
    "slice-ignored": "slice ignored: it uses a feature that is off",
    "pool-outdated": "pool has a newer generation elsewhere",
    "pool-incomplete": "pool is incomplete (being updated)",
    "pool-invalid": "pool is invalid",
}


_RESULTS = {"timeout": "unschedulable", "not-evaluated": "error"}


def contract_result(result: NodeResult) -> str:
    """The contract's three results: the scheduler's filter timeout makes a node
    unschedulable; a node the run's budget left unsearched is an error."""
    return _RESULTS.get(result.status, result.status)


def allocations_data(claims: list[ClaimInput], result: NodeResult) -> list[dict[str, Any]] | None:
    """One AllocationResult per claim, in claim order, or None; the scheduler's claim for
    extended resources, when the node needs one, comes last (``"claim": "<extended-resources>"``)."""
    outcome = result.outcome
    if outcome is None or outcome.allocations is None:
        return None
    out = [
        {"claim": claim.qualified_name, "allocation": allocation}
        for claim, allocation in zip(claims, outcome.allocations, strict=False)
    ]
    out.extend({"claim": EXTENDED_CLAIM, "allocation": allocation} for allocation in outcome.allocations[len(claims):])
    return out


EXTENDED_CLAIM = "<extended-resources>"  # the scheduler's in-memory name for it


def scheduler_node_data(result: NodeResult) -> dict[str, Any]:
    """The contract's per-node scheduler fields: status, the first rejecting plugin, its exact
    reasons, and ``phase: PreFilter`` where PreFilter decided the node."""
    verdict = result.scheduler
    if verdict is None:
        return {}
    status = verdict.status
    data: dict[str, Any] = {"status": status.code.value, "plugin": status.plugin, "reasons": list(status.reasons)}
    if status.detail:
        data["detail"] = status.detail
    if verdict.phase == "PreFilter":
        data["phase"] = "PreFilter"
    return data


def _status_data(status: Any) -> dict[str, Any] | None:
    if status is None:
        return None
    data: dict[str, Any] = status.data()
    if status.detail:
        data["detail"] = status.detail
    return data


def scheduler_data(unit: UnitResult) -> dict[str, Any] | None:
    """The unit's ``scheduler`` object: the attempt's verdict (Pods only)."""
    verdict = unit.verdict
    if verdict is None or unit.attempt is None:
        return None
    pre_filter = verdict.pre_filter
    attempt = unit.attempt
    skipped = sorted(attempt.cycle.skipped)
    special = None
    if unit.special is not None:
        claim, mappings, allocation = unit.special
        metadata = claim.get("metadata") or {}
        special = {
            "generateName": metadata.get("generateName"),
            "namespace": metadata.get("namespace"),
            "annotations": metadata.get("annotations"),
            "ownerReferences": metadata.get("ownerReferences"),
            "requests": ((claim.get("spec") or {}).get("devices") or {}).get("requests") or [],
            "requestMappings": mappings,
            "allocation": allocation,
        }
    return {
        "profile": attempt.profile.scheduler_name if attempt.profile is not None else None,
        "message": verdict.message,
        "event": event_note(verdict.message) if verdict.message else None,
        "preEnqueue": _status_data(verdict.pre_enqueue),
        "preFilter": _status_data(pre_filter) if pre_filter is not None and not pre_filter.success else None,
        "preFilterSkipped": skipped,
        "preFilterNodes": sorted(attempt.pre_filter.nodes) if attempt.pre_filter.nodes is not None else None,
        "postFilter": _status_data(verdict.post_filter),
        "error": verdict.error,
        "selectedNode": verdict.selected,
        "specialClaim": special,
    }


def event_note(message: str) -> str:
    from dractl.scheduler.fit_error import event_note as note

    return note(message)


def to_yaml(data: Any) -> str:
    import yaml

    # libyaml's emitter when PyYAML has it: the pure-Python one takes seconds per MB.
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def node_data(result: NodeResult, unit: UnitResult, verbose: bool) -> dict[str, Any]:
    if result.rendered is not None:  # searched and rendered in another process
        assert result.rendered.data is not None
        return result.rendered.data
    outcome = result.outcome
    return {
        "name": result.node,
        "unit": unit.unit.title,
        "result": contract_result(result),
        "error": result.error,
        "timedOut": result.timed_out,
        "allocations": allocations_data(unit.unit.claims, result),
        "orderAmbiguous": bool(outcome and outcome.order_ambiguous),
        "notes": list(getattr(outcome, "notes", None) or []) if outcome is not None else [],
        "explanation": _node_explanation(outcome.trace, verbose)
        if outcome is not None and outcome.trace is not None
        else None,
        **scheduler_node_data(result),
    }


def to_data(explanation: Explanation, verbose: bool = False) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "kubernetesVersion": explanation.release,
        "implementation": explanation.implementation,
        "notes": explanation.notes,
        "units": [
            {
                "title": u.unit.title,
                "claims": _claims_data(u.unit.claims),
                "feasibleNodes": [n.node for n in u.feasible],
                **({"scheduler": scheduler_data(u)} if u.attempt is not None else {}),
            }
            for u in explanation.units
        ],
        "nodes": [node_data(n, u, verbose) for u in explanation.units for n in u.ordered()],
        "workloads": [workload_data(w, verbose) for w in explanation.workloads],
    }


def _claims_data(claims: list[ClaimInput]) -> list[dict[str, Any]]:
    return [{"claim": c.qualified_name, "template": c.template} for c in claims]


def workload_data(result: WorkloadResult, verbose: bool) -> dict[str, Any]:
    workload = result.workload
    explained = result.explained
    return {
        "title": workload.title,
        "kind": workload.obj.kind,
        "namespace": workload.namespace,
        "name": workload.name,
        "replicas": result.wanted,  # null with --replicas max
        "source": workload.source,
        "placement": result.placement,
        "fit": len(result.placed),
        "satisfied": result.satisfied,
        "capped": result.capped,
        "notes": result.notes,
        "placed": [
            {
                "replica": replica.index,
                "pod": replica.pod,
                "node": replica.node.node,
                "claims": _claims_data(replica.unit.claims),
                "allocations": allocations_data(replica.unit.claims, replica.node),
            }
            for replica in result.placed
        ],
        "explained": None
        if explained is None
        else {
            "replica": result.explained_index,
            "pod": f"{workload.namespace}/{workload.pod_name(result.explained_index or 0)}",
            "fits": bool(explained.feasible),
            "claims": _claims_data(explained.unit.claims),
            "feasibleNodes": [n.node for n in explained.feasible],
            "nodes": [node_data(n, explained, verbose) for n in explained.ordered()],
            **({"scheduler": scheduler_data(explained)} if explained.attempt is not None else {}),
        },
    }


# --- text -------------------------------------------------------------------------------------


def render_text(explanation: Explanation, out: IO[str], *, verbose: bool, color: bool) -> None:
    if not color:
        # the markup's plain text, without rich's console (a tenth of a run on a small input)
        from rich.markup import render

        for line in _text_lines(explanation, verbose):
            out.write(render(line).plain + "\n")
        return
    from rich.console import Console

    console = Console(
        file=out, force_terminal=color, no_color=not color, highlight=False, width=200 if not color else None
    )
    for line in _text_lines(explanation, verbose):
        console.print(line, markup=True, soft_wrap=True)


def _text_lines(explanation: Explanation, verbose: bool) -> Iterator[str]:
    from rich.markup import escape

    yield (
        f"[dim]Kubernetes {explanation.release}, allocator implementation "
        f"{explanation.implementation}[/]"
    )
    for note in explanation.notes:
        yield f"[yellow]note:[/] {escape(note)}"
    for unit in explanation.units:
        yield ""
        yield from _unit_lines(unit, verbose)
    for workload in explanation.workloads:
        yield ""
        yield from _workload_lines(workload, verbose)


def _unit_lines(unit: UnitResult, verbose: bool) -> Iterator[str]:
    """One unit: its claims, how many nodes can allocate them, a summary and the details."""
    from rich.markup import escape

    claims = ", ".join(
        [
            c.qualified_name + (f" (from template {c.template})" if c.template else "")
            for c in unit.unit.claims
        ]
        + [f"{c.qualified_name} (allocated)" for c in unit.unit.preallocated]
    )
    if unit.unit.pod is None:
        # Claims and templates of their own: the title would only repeat their names.
        noun = "claim" if len(unit.unit.claims) == 1 else "claims"
        yield f"[bold]{noun}[/] {escape(claims)}"
    else:
        yield f"[bold]{escape(unit.unit.title)}[/]: {escape(claims or 'no ResourceClaims of its own')}"
    feasible = unit.feasible
    total = len(unit.nodes)
    style = "green" if feasible else "red"
    yield (
        f"[{style}]{len(feasible)} of {total} node{'s' if total != 1 else ''} "
        f"can allocate {'all claims' if len(unit.unit.claims) != 1 else 'the claim'}[/]"
    )
    yield from _scheduler_lines(unit)
    ordered = unit.ordered()
    if total > 1:
        yield from _summary(ordered)
    shown = ordered if verbose else _detail_nodes(ordered)
    for result in shown:
        yield ""
        yield from node_text(result, unit, verbose)
    hidden = total - len(shown)
    if hidden > 0:
        yield ""
        yield f"[dim]{hidden} more node{'s' if hidden != 1 else ''}: --verbose shows every node, --node NAME one of them[/]"


def _scheduler_lines(unit: UnitResult) -> Iterator[str]:
    """What kube-scheduler makes of the Pod: the node it selects, or its FailedScheduling text."""
    from rich.markup import escape

    verdict = unit.verdict
    if verdict is None:
        return
    if verdict.pre_enqueue is not None:
        status = verdict.pre_enqueue
        yield (f"[red]scheduler: the Pod is not scheduled: {escape(str(status.plugin))} PreEnqueue: "
               f"{escape(status.message)}[/]")
        return
    if verdict.selected is not None:
        yield f"[green]scheduler: selects node {escape(verdict.selected)}[/]"
    elif verdict.error is not None:
        yield f"[red]scheduler: error (FailedScheduling, reason SchedulerError): {escape(verdict.error)}[/]"
    elif verdict.message is not None:
        yield f"[red]scheduler: FailedScheduling: {escape(verdict.message)}[/]"
    if unit.special is not None:
        claim, mappings, _ = unit.special
        requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []
        asked = ", ".join(
            f"{r.get('name')}: {(r.get('exactly') or {}).get('count')} of class {(r.get('exactly') or {}).get('deviceClassName')}"
            for r in requests
        )
        yield f"  extended resources through DRA: claim {escape(str((claim.get('metadata') or {}).get('generateName')))}… ({escape(asked)})"
        for mapping in mappings:
            yield (f"    container {escape(str(mapping.get('containerName')))} {escape(str(mapping.get('resourceName')))}"
                   f" → request {escape(str(mapping.get('requestName')))}")


def _workload_lines(result: WorkloadResult, verbose: bool) -> Iterator[str]:
    """A workload replica by replica: how many fit, where each went, and for the first that
    does not fit, the explanation of that replica on every node."""
    yield from workload_summary_lines(result, verbose)
    if result.explained is not None:
        yield from _unit_lines(result.explained, verbose)


def workload_summary_lines(result: WorkloadResult, verbose: bool) -> Iterator[str]:
    """:func:`_workload_lines` up to the explanation of one replica on every node (its
    heading included), in rich markup."""
    from rich.markup import escape

    workload = result.workload
    claims = ", ".join(
        f"{c.qualified_name} (one per replica, from template {c.template})" if c.template
        else f"{c.qualified_name} (one for all replicas)"
        for c in workload.unit.claims
    )
    yield f"[bold]{escape(workload.title)}[/]: {escape(claims)}"
    for note in result.notes:
        yield f"[yellow]note:[/] {escape(note)}"
    placed = len(result.placed)
    style = "green" if result.satisfied else "red"
    wanted = result.wanted
    if wanted is None:
        tail = (f", and more may: --replicas max stops at {placed}" if result.capped
                else f"; replica {result.explained_index} is the first that does not")
        yield f"[{style}]{placed} replica{'s' if placed != 1 else ''} fit{'' if placed != 1 else 's'}{tail}[/] (placement {result.placement})"
    elif wanted == 0:
        what = "no node matches its node selector" if workload.daemon_nodes is not None else f"{workload.source} is 0"
        yield f"[green]0 replicas: {escape(what)}, nothing to place[/]"
    elif workload.focus:
        if placed < wanted - 1:
            before = f"replica {placed} before it does not fit"
        else:
            before = {1: "the first replica", 2: "replica 0 placed first"}.get(
                wanted, f"replicas 0 to {wanted - 2} placed first")
        yield f"[{style}]replica {wanted - 1} ({escape(workload.source)}): {before}[/] (placement {result.placement})"
    else:
        yield (
            f"[{style}]{placed} of {wanted} replica{'s' if wanted != 1 else ''} fit{'s' if wanted == 1 == placed else ''}[/] "
            f"({escape(workload.source)}; placement {result.placement})"
        )
    shown = result.placed if verbose else result.placed[:REPLICAS_SHOWN]
    for replica in shown:
        yield from _replica_lines(replica, workload.unit.claims)
    hidden = result.placed[len(shown):]
    if hidden:
        per_node = Counter(r.node.node for r in hidden)
        nodes = ", ".join(f"{node} {count}" for node, count in per_node.most_common())
        yield f"  [dim]… {len(hidden)} more replicas (on {escape(nodes)}): --verbose or -o json lists them[/]"
    if result.explained is not None:
        yield ""
        if result.unfit:
            index = result.explained_index or 0
            after = {0: "", 1: " once replica 0 is placed", 2: " once replicas 0 and 1 are placed"}.get(
                index, f" once replicas 0 to {index - 1} are placed")
            yield f"[red]✗ replica {index} fits on no node{after}:[/]"
        else:
            yield f"[green]✓ replica {result.explained_index}[/] fits; on every node:"


def _replica_lines(replica: Replica, claims: list[ClaimInput]) -> Iterator[str]:
    from rich.markup import escape

    yield f"  [green]✓[/] replica {replica.index} (pod {escape(replica.pod)}): node [bold]{escape(replica.node.node)}[/]"
    allocations = (replica.node.outcome.allocations if replica.node.outcome else None) or []
    for claim, allocation in zip(replica.unit.claims, allocations, strict=True):
        devices = ", ".join(_result_text(entry) for entry in (allocation.get("devices") or {}).get("results") or [])
        yield f"    claim {escape(claim.qualified_name)}: {escape(devices or 'no devices')}"
    allocated_with = {c.qualified_name for c in replica.unit.claims}
    for claim in claims:
        if claim.template is None and claim.qualified_name not in allocated_with:
            yield f"    claim {escape(claim.qualified_name)}: allocated with replica 0"


def _result_text(entry: dict[str, Any]) -> str:
    """A device of an allocation result, with the capacity its share consumes."""
    device = "/".join(str(entry.get(key)) for key in ("driver", "pool", "device"))
    if "shareID" not in entry:
        return device
    consumed = ", ".join(f"{name} {value}" for name, value in sorted((entry.get("consumedCapacity") or {}).items()))
    return f"{device} (shared{': ' + consumed if consumed else ''})"


def _detail_nodes(ordered: list[NodeResult], room: int = DETAIL_NODES) -> list[NodeResult]:
    """The best feasible node, then the nearest miss of each distinct outcome and kind of
    blocker (nodes that fail alike say nothing new; --verbose shows them), DETAIL_NODES in all."""
    feasible = [n for n in ordered if n.allocated][:1]
    misses = [n for n in ordered if not n.allocated]
    room -= len(feasible)
    shown: list[NodeResult] = []
    reasons: set[tuple[str, frozenset[str]]] = set()
    for result in misses:
        reason = (short_reason(result), blocker_kinds(result))
        if reason not in reasons and len(shown) < room:
            reasons.add(reason)
            shown.append(result)
    return feasible + shown


def detail_candidates(ordered: list[NodeResult]) -> list[NodeResult]:
    """The nodes of one part of a unit's nodes (in the order of :meth:`UnitResult.ordered`) that
    :func:`_detail_nodes` may show, whatever the other parts hold: its best feasible node and its
    nearest miss of each distinct outcome and kind of blocker."""
    return _detail_nodes(ordered, room=len(ordered) + 1)


def blocker_kinds(result: NodeResult) -> frozenset[str]:
    if result.rendered is not None:
        return result.rendered.blocker_kinds
    outcome = result.outcome
    if outcome is None or outcome.trace is None or not outcome.trace.best.request:
        return frozenset()
    return frozenset(reason.value for reason, _, _ in outcome.trace.blockers())


def _summary(ordered: list[NodeResult]) -> Iterator[str]:
    from rich.markup import escape

    reasons: Counter[str] = Counter()
    for result in ordered:
        reasons[short_reason(result)] += 1
    names: dict[str, list[str]] = {}
    for result in ordered:
        names.setdefault(short_reason(result), []).append(result.node)
    width = max(len(str(n)) for n in reasons.values())
    for reason, count in sorted(reasons.items(), key=lambda item: (item[0] != "allocated", -item[1])):
        noun = "node" if count == 1 else "nodes"
        listed = names[reason][:SUMMARY_NODES]
        more = f", … {count - len(listed)} more" if count > len(listed) else ""
        yield f"  {count:>{width}} {noun}: {escape(reason)} [dim]({escape(', '.join(listed))}{more})[/]"


def short_reason(result: NodeResult) -> str:
    """The outcome of one node in a few words (the summary's lines)."""
    if result.rendered is not None:
        return result.rendered.short_reason
    if result.allocated:
        return "allocated"
    if result.error:
        return f"{_RESULTS.get(result.status, result.status)}: {result.error}"
    outcome = result.outcome
    if outcome is not None and outcome.trace is not None:
        best = outcome.trace.best
        if best.request and best.missing:
            return f"request {best.request} lacks {best.missing} device{'s' if best.missing != 1 else ''}"
        if not outcome.trace.pools:
            return "no devices of any pool available on the node"
    return result.status


def node_text(result: NodeResult, unit: UnitResult, verbose: bool) -> Iterator[str]:
    """One node in detail, in rich markup."""
    if result.rendered is not None:
        assert result.rendered.text is not None
        yield from result.rendered.text
        return
    from rich.markup import escape

    from dractl.allocator import format_device_id

    mark = "[green]✓[/]" if result.allocated else "[red]✗[/]"
    yield f"{mark} [bold]node {escape(result.node)}[/]: {escape(short_reason(result))}"
    outcome = result.outcome
    if outcome is None or outcome.trace is None:
        return
    trace = outcome.trace
    if outcome.order_ambiguous:
        yield (
            "  [yellow]note:[/] the scheduler visits pools in an unspecified order here and may "
            "pick other, equally valid devices"
        )
    for note in getattr(outcome, "notes", None) or []:
        yield f"  [yellow]note:[/] {escape(note)}"
    for pool in trace.pools:
        if pool.status != "ok":
            reason = f": {pool.invalid_reason}" if pool.invalid_reason else ""
            yield f"  pool {escape(pool.driver)}/{escape(pool.pool)} is {pool.status}{escape(reason)}"
    for request in trace.requests:
        what = f"{request.mode} {request.count}" if request.mode == "ExactCount" else request.mode
        yield (
            f"  claim {escape(request.claim)} request [bold]{escape(request.request)}[/] "
            f"(class {escape(request.device_class)}, {what}): "
            f"{len(request.candidates())} candidate device(s)"
            + ("; subrequest not used" if result.allocated and "/" in request.request and not request.chosen else "")
        )
        for device_id in request.chosen:
            yield f"    [green]chosen[/] {escape(format_device_id(device_id))}"
        yield from _groups(grouped_runs(request.rejection_runs(), None if verbose else DEVICES_PER_REASON), "    ")
    best = trace.best
    blockers = trace.blockers() if not result.allocated and best.request else []
    if not result.allocated and best.request and (best.devices > 0 or blockers):
        claims = unit.unit.claims
        claim = claims[best.claim_index].qualified_name if best.claim_index < len(claims) else EXTENDED_CLAIM
        blocked = ", ".join(f"{what} ({_devices(count)})" for _, what, count in blockers)
        if not blocked and not any(
            r.claim_index == best.claim_index and r.request == best.request and r.candidates()
            for r in trace.requests
        ):
            blocked = "no device matches its class and selectors"
        yield (
            f"  closest: {_devices(best.devices)} placed; claim {escape(claim)} request "
            f"[bold]{escape(best.request)}[/] lacks {best.missing} more"
            + (f", blocked by {escape(blocked)}" if blocked and blockers else f": {escape(blocked)}" if blocked else "")
        )
    if verbose:
        unseen = grouped(trace.unseen_devices())
        if unseen:
            count = sum(g.count for g in unseen)
            yield f"  {count} device(s) of other nodes or unusable slices:"
            yield from _groups(unseen, "    ")
    else:
        count = sum(n for _, n in trace.unseen_counts())
        if count:
            yield f"  [dim]{count} device(s) not available on this node (--verbose lists them)[/]"


def _devices(count: int) -> str:
    return f"{count} device{'s' if count != 1 else ''}"


def _groups(groups: list[Group], indent: str) -> Iterator[str]:
    from rich.markup import escape

    for group in groups:
        more = "" if len(group.devices) == group.count else f", … {group.count - len(group.devices)} more"
        yield (
            f"{indent}[red]{_devices(group.count)}[/]: "
            f"{escape(group.message)} [dim]({escape(', '.join(group.devices))}{more})[/]"
        )
