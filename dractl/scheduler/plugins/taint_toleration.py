"""TaintToleration (Filter): a node's ``NoSchedule`` and ``NoExecute`` taints must each be
tolerated by one of the Pod's tolerations (``pkg/scheduler/framework/plugins/tainttoleration``).

The matching itself (``Toleration.ToleratesTaint`` in ``k8s.io/api/core/v1``) lives here as
plain functions, because NodeUnschedulable asks the same question of the implicit
``node.kubernetes.io/unschedulable:NoSchedule`` taint.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import FILTER, Context, CycleState, Plugin
from dractl.scheduler.status import SUCCESS, Status, unresolvable

REASON = "node(s) had untolerated taint(s)"
COMPARISON_GATE = "TaintTolerationComparisonOperators"
# Only these effects keep a Pod off a node; PreferNoSchedule is a scoring matter.
BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")

# content.IsDecimalInteger: "0", or an optional minus and digits without a leading zero. Stricter
# than a plain integer parse: "+5", "007" and " 5" are not numbers to a Gt/Lt toleration.
_CANONICAL_INTEGER = re.compile(r"^(0|-?[1-9][0-9]*)$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _text(value: Any) -> str:
    """A string field as Go reads it: absent is empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _integer(value: str) -> int | None:
    if not _CANONICAL_INTEGER.match(value):
        return None
    number = int(value)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any], *, comparison_operators: bool) -> bool:
    """Whether one toleration tolerates one taint.

    An empty effect matches every effect and an empty key every key; the operator defaults to
    Equal (values compared as strings), Exists ignores the value, and Gt/Lt compare the values
    as integers (the taint's value must be greater/less than the toleration's) only when
    ``comparison_operators`` (gate TaintTolerationComparisonOperators) is on: otherwise, as
    for an unknown operator, the toleration tolerates nothing.
    """
    effect = _text(toleration.get("effect"))
    if effect and effect != _text(taint.get("effect")):
        return False
    key = _text(toleration.get("key"))
    if key and key != _text(taint.get("key")):
        return False
    operator = _text(toleration.get("operator"))
    if operator in ("", "Equal"):
        return _text(toleration.get("value")) == _text(taint.get("value"))
    if operator == "Exists":
        return True
    if operator in ("Gt", "Lt") and comparison_operators:
        # An unparsable value on either side tolerates nothing (upstream logs it and moves on).
        threshold = _integer(_text(toleration.get("value")))
        actual = _integer(_text(taint.get("value")))
        if threshold is None or actual is None:
            return False
        return actual > threshold if operator == "Gt" else actual < threshold
    return False


def tolerated(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any], *,
              comparison_operators: bool) -> bool:
    """Whether any of the tolerations tolerates the taint."""
    return any(tolerates(t, taint, comparison_operators=comparison_operators) for t in tolerations)


def untolerated_taints(taints: Iterable[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]], *,
                       comparison_operators: bool) -> list[Mapping[str, Any]]:
    """The node's NoSchedule/NoExecute taints that no toleration tolerates, in node order (the
    scheduler stops at the first; dractl names them all)."""
    return [
        taint for taint in taints
        if _text(taint.get("effect")) in BLOCKING_EFFECTS
        and not tolerated(tolerations, taint, comparison_operators=comparison_operators)
    ]


def taint_text(taint: Mapping[str, Any]) -> str:
    """``key=value:Effect`` (``key:Effect`` without a value), as ``Taint.ToString()`` writes it."""
    key, value, effect = _text(taint.get("key")), _text(taint.get("value")), _text(taint.get("effect"))
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


class TaintToleration(Plugin):
    name = "TaintToleration"
    extension_points = frozenset({FILTER})

    def __init__(self, context: Context, args: Mapping[str, Any] | None = None) -> None:
        super().__init__(context, args)
        self.comparison = self.features.enabled(COMPARISON_GATE)
        # Whether the Pod's tolerations leave a taint blocking, by the taint's key, value and
        # effect as matching reads them (texts): the nodes of a cluster repeat a few taints, each
        # weighed once per Pod.
        self._pod: PodInfo | None = None
        self._blocking: dict[tuple[str, str, str], bool] = {}

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        if not node.taints:
            return SUCCESS
        comparison = self.comparison
        taints = self._untolerated(pod, node.taints)
        if not taints:
            return SUCCESS
        detail = ", ".join(taint_text(t) for t in taints)
        if not comparison and any(_text(t.get("operator")) in ("Gt", "Lt") for t in pod.tolerations):
            detail += f" (the Pod's Gt/Lt tolerations tolerate nothing without the {COMPARISON_GATE} feature gate)"
        return unresolvable(REASON, detail=detail)

    def _untolerated(self, pod: PodInfo, taints: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """:func:`untolerated_taints` of the Pod's tolerations, each taint weighed once per Pod."""
        if pod is not self._pod:
            self._pod, self._blocking = pod, {}
        blocking = self._blocking
        out = []
        for taint in taints:
            key, value, effect = taint.get("key"), taint.get("value"), taint.get("effect")
            texts = (key if type(key) is str else _text(key), value if type(value) is str else _text(value),
                     effect if type(effect) is str else _text(effect))
            blocks = blocking.get(texts)
            if blocks is None:
                blocks = blocking[texts] = texts[2] in BLOCKING_EFFECTS and not tolerated(
                    pod.tolerations, taint, comparison_operators=self.comparison)
            if blocks:
                out.append(taint)
        return out
