"""Profiles from a KubeSchedulerConfiguration: which plugins each extension point runs, in which
order, and what kube-scheduler refuses to start with.

The plugin classes are fakes implementing the extension points the upstream plugins implement,
so that these tests pin the merging rules whatever the real plugin modules declare; one test
reads the default profile with the real modules, once they import.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from dractl.api.releases import Features
from dractl.errors import InputError
from dractl.scheduler import plugins as registry
from dractl.scheduler.config import (
    Profile,
    build_framework,
    default_profile,
    load_scheduler_config,
    profile_for,
)
from dractl.scheduler.plugin import FILTER, POST_FILTER, PRE_ENQUEUE, PRE_FILTER, Context, Plugin

# The extension points (of those dractl runs) each upstream plugin implements.
UPSTREAM_POINTS: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({PRE_ENQUEUE}),
    "NodeUnschedulable": frozenset({FILTER}),
    "NodeName": frozenset({FILTER}),
    "TaintToleration": frozenset({FILTER}),
    "NodeAffinity": frozenset({PRE_FILTER, FILTER}),
    "NodePorts": frozenset({PRE_FILTER, FILTER}),
    "NodeResourcesFit": frozenset({PRE_FILTER, FILTER}),
    "VolumeRestrictions": frozenset({PRE_FILTER, FILTER}),
    "EBSLimits": frozenset({FILTER}),
    "GCEPDLimits": frozenset({FILTER}),
    "NodeVolumeLimits": frozenset({FILTER}),
    "AzureDiskLimits": frozenset({FILTER}),
    "VolumeBinding": frozenset({PRE_FILTER, FILTER}),
    "VolumeZone": frozenset({PRE_FILTER, FILTER}),
    "PodTopologySpread": frozenset({PRE_FILTER, FILTER}),
    "InterPodAffinity": frozenset({PRE_FILTER, FILTER}),
    "DynamicResources": frozenset({PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER}),
    "DefaultPreemption": frozenset({POST_FILTER}),
    # not a default plugin: enabled by some cases (added to the tables by the fixture)
    "CustomFilter": frozenset({FILTER}),
}

FAKES: dict[str, type[Plugin]] = {
    name: type(name, (Plugin,), {"name": name, "extension_points": points})
    for name, points in UPSTREAM_POINTS.items()
}


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "plugin_class", FAKES.get)
    monkeypatch.setitem(registry.MODULES, "CustomFilter", "custom:CustomFilter")


DEFAULT: dict[str, tuple[str, ...]] = {
    PRE_ENQUEUE: ("SchedulingGates", "DynamicResources"),
    PRE_FILTER: ("NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "VolumeBinding",
                 "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
    FILTER: ("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
             "VolumeRestrictions", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits", "AzureDiskLimits", "VolumeBinding",
             "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"),
    POST_FILTER: ("DynamicResources", "DefaultPreemption"),
}
NOTHING: dict[str, tuple[str, ...]] = {PRE_ENQUEUE: (), PRE_FILTER: (), FILTER: (), POST_FILTER: ()}

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def without(names: tuple[str, ...], *dropped: str) -> tuple[str, ...]:
    return tuple(name for name in names if name not in dropped)


def write(tmp_path: Path, text: str, name: str = "scheduler.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def one_profile(text: str) -> str:
    """A configuration with one profile whose body (under ``profiles[0]``) is ``text``."""
    body = textwrap.indent(textwrap.dedent(text), "    ")
    return HEADER + "profiles:\n  - schedulerName: default-scheduler\n" + body


POINTS_CASES: list[tuple[str, str, dict[str, tuple[str, ...]]]] = [
    ("no profiles: the default profile", HEADER, DEFAULT),
    ("empty profile list: the default profile", HEADER + "profiles: []\n", DEFAULT),
    ("a profile without plugins", one_profile(""), DEFAULT),
    (
        "other top-level fields are ignored",
        HEADER + textwrap.dedent("""\
            clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf, qps: 100}
            leaderElection: {leaderElect: true}
            percentageOfNodesToScore: 50
            parallelism: 8
            extenders: []
            profiles:
              - schedulerName: default-scheduler
                percentageOfNodesToScore: 30
            """),
        DEFAULT,
    ),
    (
        "only TaintToleration: multiPoint disabled * and one enabled",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: TaintToleration}]
                disabled: [{name: "*"}]
            """),
        {**NOTHING, FILTER: ("TaintToleration",)},
    ),
    (
        "only two plugins, in the order enabled",
        one_profile("""\
            plugins:
              multiPoint:
                enabled:
                  - name: DynamicResources
                  - name: NodePorts
                disabled:
                  - name: "*"
            """),
        {
            PRE_ENQUEUE: ("DynamicResources",),
            PRE_FILTER: ("DynamicResources", "NodePorts"),
            FILTER: ("DynamicResources", "NodePorts"),
            POST_FILTER: ("DynamicResources",),
        },
    ),
    (
        "multiPoint disabled * and nothing enabled: no plugin at all",
        one_profile("""\
            plugins:
              multiPoint:
                disabled: [{name: "*"}]
            """),
        NOTHING,
    ),
    (
        "one default disabled at one point only",
        one_profile("""\
            plugins:
              filter:
                disabled: [{name: NodeResourcesFit}]
            """),
        {**DEFAULT, FILTER: without(DEFAULT[FILTER], "NodeResourcesFit")},
    ),
    (
        "one default disabled at multiPoint: gone from every point",
        one_profile("""\
            plugins:
              multiPoint:
                disabled: [{name: DynamicResources}]
            """),
        {point: without(names, "DynamicResources") for point, names in DEFAULT.items()},
    ),
    (
        "PostFilter without preemption",
        one_profile("""\
            plugins:
              postFilter:
                disabled: [{name: DefaultPreemption}]
            """),
        {**DEFAULT, POST_FILTER: ("DynamicResources",)},
    ),
    (
        "all disabled at one point: the others keep the defaults",
        one_profile("""\
            plugins:
              filter:
                disabled: [{name: "*"}]
            """),
        {**DEFAULT, FILTER: ()},
    ),
    (
        "all disabled at one point and some enabled there, in their order",
        one_profile("""\
            plugins:
              filter:
                enabled: [{name: TaintToleration}, {name: NodeName}]
                disabled: [{name: "*"}]
            """),
        {**DEFAULT, FILTER: ("TaintToleration", "NodeName")},
    ),
    (
        "a default enabled again at one point runs first there (explicit setting overrides multiPoint)",
        one_profile("""\
            plugins:
              filter:
                enabled: [{name: NodePorts}, {name: TaintToleration}]
            """),
        {**DEFAULT, FILTER: ("NodePorts", "TaintToleration", *without(DEFAULT[FILTER], "NodePorts", "TaintToleration"))},
    ),
    (
        "a plugin enabled at one point that multiPoint does not enable runs after the multiPoint ones",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: NodeName}]
                disabled: [{name: "*"}]
              filter:
                enabled: [{name: TaintToleration}]
            """),
        {**NOTHING, FILTER: ("NodeName", "TaintToleration")},
    ),
    (
        "overrides first, then multiPoint, then the point's other plugins",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: NodeName}, {name: NodePorts}, {name: NodeAffinity}]
                disabled: [{name: "*"}]
              filter:
                enabled: [{name: TaintToleration}, {name: NodeAffinity}]
            """),
        {**NOTHING, PRE_FILTER: ("NodePorts", "NodeAffinity"),
         FILTER: ("NodeAffinity", "NodeName", "NodePorts", "TaintToleration")},
    ),
    (
        "a plugin enabled by multiPoint but disabled at one point",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: NodePorts}]
                disabled: [{name: "*"}]
              preFilter:
                disabled: [{name: NodePorts}]
            """),
        {**NOTHING, FILTER: ("NodePorts",)},
    ),
    (
        "a default re-enabled at multiPoint keeps its place (weights are ignored)",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: TaintToleration, weight: 10}]
            """),
        DEFAULT,
    ),
    (
        "a default disabled and enabled again at multiPoint moves after the defaults",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: TaintToleration}]
                disabled: [{name: TaintToleration}]
            """),
        {**DEFAULT, FILTER: (*without(DEFAULT[FILTER], "TaintToleration"), "TaintToleration")},
    ),
    (
        "a custom plugin is appended after the defaults",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: CustomFilter}]
            """),
        {**DEFAULT, FILTER: (*DEFAULT[FILTER], "CustomFilter")},
    ),
    (
        "points dractl does not run are read and ignored",
        one_profile("""\
            plugins:
              queueSort:
                enabled: [{name: PrioritySort}]
              score:
                enabled: [{name: ImageLocality, weight: 5}, {name: NodeResourcesBalancedAllocation}]
                disabled: [{name: "*"}]
              bind:
                enabled: [{name: DefaultBinder}]
              reserve: {}
              permit: null
            """),
        DEFAULT,
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in POINTS_CASES], ids=[c[0] for c in POINTS_CASES])
def test_points(fakes: None, tmp_path: Path, text: str, expected: dict[str, tuple[str, ...]]) -> None:
    profiles = load_scheduler_config(write(tmp_path, text))
    assert list(profiles) == ["default-scheduler"]
    assert profiles["default-scheduler"].points == expected


def test_default_profile(fakes: None) -> None:
    assert default_profile() == Profile("default-scheduler", DEFAULT, {})


def test_plugin_config_args(fakes: None, tmp_path: Path) -> None:
    text = one_profile("""\
        pluginConfig:
          - name: NodeResourcesFit
            args:
              ignoredResources: [example.com/foo]
              scoringStrategy: {type: MostAllocated}
          - name: DefaultPreemption
            args: {minCandidateNodesPercentage: 20}
          - name: TaintToleration
        """)
    profile = load_scheduler_config(write(tmp_path, text))["default-scheduler"]
    assert profile.args == {
        "NodeResourcesFit": {"ignoredResources": ["example.com/foo"], "scoringStrategy": {"type": "MostAllocated"}},
        "DefaultPreemption": {"minCandidateNodesPercentage": 20},
        "TaintToleration": {},
    }
    assert profile.points == DEFAULT


def test_two_profiles(fakes: None, tmp_path: Path) -> None:
    text = HEADER + textwrap.dedent("""\
        profiles:
          - schedulerName: default-scheduler
          - schedulerName: gpu-scheduler
            plugins:
              multiPoint:
                enabled: [{name: NodeResourcesFit}, {name: DynamicResources}]
                disabled: [{name: "*"}]
            pluginConfig:
              - name: NodeResourcesFit
                args: {ignoredResources: [nvidia.com/gpu]}
        """)
    profiles = load_scheduler_config(write(tmp_path, text))
    assert list(profiles) == ["default-scheduler", "gpu-scheduler"]
    assert profiles["default-scheduler"] == Profile("default-scheduler", DEFAULT, {})
    gpu = profiles["gpu-scheduler"]
    assert gpu.points == {
        PRE_ENQUEUE: ("DynamicResources",),
        PRE_FILTER: ("NodeResourcesFit", "DynamicResources"),
        FILTER: ("NodeResourcesFit", "DynamicResources"),
        POST_FILTER: ("DynamicResources",),
    }
    assert gpu.args == {"NodeResourcesFit": {"ignoredResources": ["nvidia.com/gpu"]}}
    assert profile_for(profiles, "gpu-scheduler") is gpu
    assert profile_for(profiles, "") is profiles["default-scheduler"]
    assert profile_for(profiles, None) is profiles["default-scheduler"]
    assert profile_for(profiles, "volcano") is None
    assert profile_for({"gpu-scheduler": gpu}, "default-scheduler") is None


def test_json(fakes: None, tmp_path: Path) -> None:
    data = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": "TaintToleration"}], "disabled": [{"name": "*"}]}}}],
    }
    path = write(tmp_path, json.dumps(data, indent="\t"), "scheduler.json")
    assert load_scheduler_config(path)["default-scheduler"].points == {**NOTHING, FILTER: ("TaintToleration",)}


def test_not_modelled_in_tree_plugin(fakes: None, tmp_path: Path) -> None:
    text = one_profile("""\
        plugins:
          multiPoint:
            enabled: [{name: GangScheduling}]
        """)
    profile = load_scheduler_config(write(tmp_path, text))["default-scheduler"]
    assert profile.points == DEFAULT
    assert profile.not_modelled == ("GangScheduling",)


ERROR_CASES: list[tuple[str, str, str]] = [
    (
        "unknown plugin at multiPoint",
        one_profile("""\
            plugins:
              multiPoint:
                enabled:
                  - name: TaintToleration
                  - name: GPUTopology
            """),
        r'CFG:9:19: plugin "GPUTopology" does not exist',
    ),
    (
        "unknown plugin at a point dractl does not run",
        one_profile("""\
            plugins:
              score:
                enabled: [{name: MyScore, weight: 2}]
            """),
        r'CFG:7:26: plugin "MyScore" does not exist',
    ),
    (
        "wrong apiVersion",
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
        r'CFG:1:13: expected apiVersion kubescheduler\.config\.k8s\.io/v1, kind KubeSchedulerConfiguration; '
        r'found apiVersion "kubescheduler\.config\.k8s\.io/v1beta3", kind "KubeSchedulerConfiguration" '
        r'\(kube-scheduler 1\.36 reads only kubescheduler\.config\.k8s\.io/v1\)',
    ),
    (
        "wrong kind",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeProxyConfiguration\n",
        r'CFG:2:7: expected .*; found apiVersion "kubescheduler\.config\.k8s\.io/v1", kind "KubeProxyConfiguration"$',
    ),
    ("no apiVersion", "kind: KubeSchedulerConfiguration\n", r"CFG:1:1: expected .*found apiVersion \(none\)"),
    (
        "malformed YAML",
        HEADER + "profiles:\n  - schedulerName: a\n   plugins: {}\n",
        r"CFG:5:\d+: YAML syntax error: ",
    ),
    (
        "unclosed flow mapping",
        HEADER + "profiles: [{schedulerName: a\n",
        r"CFG:\d+:\d+: YAML syntax error: ",
    ),
    ("duplicate key", HEADER + "kind: KubeSchedulerConfiguration\n", r'CFG:3:1: YAML syntax error: found duplicate key "kind"'),
    ("empty file", "", r"CFG: expected one KubeSchedulerConfiguration, found nothing"),
    ("two documents", HEADER + "---\n" + HEADER, r"CFG: expected one KubeSchedulerConfiguration, found 2 documents"),
    ("not a mapping", "- a\n- b\n", r"CFG:1:1: expected a KubeSchedulerConfiguration \(a mapping\), found a list"),
    ("profiles not a list", HEADER + "profiles: {schedulerName: a}\n", r"CFG:3:1: profiles must be a list"),
    (
        "a point's plugin that does not implement it",
        one_profile("""\
            plugins:
              filter:
                enabled: [{name: PrioritySort}]
            """),
        r'CFG:7:26: plugin "PrioritySort" does not extend FilterPlugin plugin',
    ),
    (
        "a point's plugin that implements other points only",
        one_profile("""\
            plugins:
              preFilter:
                enabled: [{name: TaintToleration}]
            """),
        r'CFG:7:26: plugin "TaintToleration" does not extend PreFilterPlugin plugin',
    ),
    (
        "enabled twice at one point",
        one_profile("""\
            plugins:
              filter:
                enabled: [{name: NodeName}, {name: NodeName}]
            """),
        r'CFG:7:44: plugin "NodeName" already registered as "FilterPlugin"',
    ),
    (
        "enabled twice at multiPoint",
        one_profile("""\
            plugins:
              multiPoint:
                enabled: [{name: CustomFilter}, {name: CustomFilter}]
            """),
        r'CFG:7:\d+: plugin "CustomFilter" is enabled twice in multiPoint',
    ),
    (
        "two profiles with one name",
        HEADER + "profiles:\n  - schedulerName: a\n  - schedulerName: a\n",
        r'CFG:5:20: two profiles have schedulerName "a"',
    ),
    (
        "a second profile without a name",
        HEADER + "profiles:\n  - schedulerName: a\n  - plugins: {}\n",
        r"CFG:5:5: schedulerName is required when there are several profiles",
    ),
    (
        "an empty scheduler name",
        HEADER + 'profiles:\n  - schedulerName: ""\n',
        r"CFG:4:20: schedulerName must not be empty",
    ),
    (
        "pluginConfig twice for one plugin",
        one_profile("""\
            pluginConfig:
              - name: NodeResourcesFit
                args: {}
              - name: NodeResourcesFit
                args: {}
            """),
        r'CFG:8:15: pluginConfig has two entries for plugin "NodeResourcesFit"',
    ),
    (
        "args not a mapping",
        one_profile("""\
            pluginConfig:
              - name: NodeResourcesFit
                args: [a]
            """),
        r"CFG:7:\d+: args must be a mapping, found a list",
    ),
    (
        "a plugin without a name",
        one_profile("""\
            plugins:
              filter:
                enabled: [{weight: 1}]
            """),
        r"CFG:7:\d+: a plugin needs a name",
    ),
]


@pytest.mark.parametrize(("text", "pattern"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_errors(fakes: None, tmp_path: Path, text: str, pattern: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_scheduler_config(path)
    message = str(caught.value)
    assert "\n" not in message
    assert re.match(pattern, message.replace(path, "CFG")), message


def test_missing_file(tmp_path: Path) -> None:
    path = str(tmp_path / "absent.yaml")
    with pytest.raises(InputError, match=re.escape(path) + ": cannot read the scheduler configuration"):
        load_scheduler_config(path)


def test_build_framework(fakes: None, tmp_path: Path) -> None:
    text = one_profile("""\
        plugins:
          multiPoint:
            enabled: [{name: TaintToleration}, {name: DynamicResources}]
            disabled: [{name: "*"}]
        pluginConfig:
          - name: DynamicResources
            args: {filterTimeout: 5s}
        """)
    profile = load_scheduler_config(write(tmp_path, text))["default-scheduler"]
    context = Context(Features())
    framework = build_framework(profile, context)
    assert context.framework is framework
    names = {point: [p.name for p in framework.plugins(point)] for point in (PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER)}
    assert names == {
        PRE_ENQUEUE: ["DynamicResources"],
        PRE_FILTER: ["DynamicResources"],
        FILTER: ["TaintToleration", "DynamicResources"],
        POST_FILTER: ["DynamicResources"],
    }
    # one instance per plugin, shared by its points, made with its args and the context
    dra = framework.plugins(FILTER)[1]
    assert all(framework.plugins(point)[-1] is dra for point in (PRE_ENQUEUE, PRE_FILTER, POST_FILTER))
    assert dra.args == {"filterTimeout": "5s"}
    assert dra.context is context
    assert framework.plugins(FILTER)[0].args == {}


REAL_PLUGIN_CLASS = registry.plugin_class


def _importable_plugin_class(name: str) -> type[Plugin] | None:
    """The real class, or None while its module is still to be written."""
    try:
        return REAL_PLUGIN_CLASS(name)
    except ImportError:
        return None


def test_real_default_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "plugin_class", _importable_plugin_class)
    present = [name for name in registry.MODULES if _importable_plugin_class(name) is not None]
    if not present:
        pytest.skip("no plugin module is written yet")
    profile = default_profile()
    framework = build_framework(profile, Context(Features()))
    for point, names in profile.points.items():
        expected = tuple(n for n in registry.DEFAULT_ORDER
                         if (cls := _importable_plugin_class(n)) is not None and point in cls.extension_points)
        assert names == expected
        assert [p.name for p in framework.plugins(point)] == list(names)
    # the plugins the Filter reasons come from, in the documented order
    documented = ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                  "NodeResourcesFit", "DynamicResources"]
    assert [n for n in profile.points[FILTER] if n in documented] == [n for n in documented if n in present]
    if {"DynamicResources", "DefaultPreemption"} <= set(present):
        assert profile.points[POST_FILTER] == ("DynamicResources", "DefaultPreemption")
