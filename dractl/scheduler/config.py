"""Scheduling profiles: which plugins each extension point runs, read from a
``kubescheduler.config.k8s.io/v1`` KubeSchedulerConfiguration as kube-scheduler reads it.

Upstream builds a profile's plugin lists in two steps, and so does this module:

1. Defaulting (``pkg/scheduler/apis/config/v1/default_plugins.go``, ``mergePlugins``). The
   default plugins are one multiPoint list. A profile's ``multiPoint.disabled`` removes defaults
   (``*``: all of them); a plugin in its ``multiPoint.enabled`` that is also a default replaces
   that default where it stands, any other is appended after the defaults, in the order given.
   The per-point sets have no defaults, so they stay as written.
2. Building the framework (``pkg/scheduler/framework/runtime/framework.go``,
   ``expandMultiPointPlugins``). Each extension point runs, in this order: the plugins enabled
   at that point that multiPoint enables too (in the point's own order: an explicit setting
   overrides multiPoint), then the multiPoint plugins that implement the point and are not
   disabled there, then the rest of the point's own plugins. ``*`` among a point's disabled
   plugins leaves only the point's own plugins.

kube-scheduler refuses to start on a plugin it does not know, on a plugin enabled at a point it
does not implement, and on a plugin enabled twice; so does dractl. It also needs exactly one
QueueSort and at least one Bind plugin per profile; dractl neither sorts nor binds and does not
ask for them, so that a configuration enabling only the plugins under test (as the upstream
tests do) can be read.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dractl.errors import InputError
from dractl.records import Record
from dractl.scheduler import plugins as registry
from dractl.scheduler.framework import Framework
from dractl.scheduler.plugin import (
    EXTENSION_POINTS,
    FILTER,
    POST_FILTER,
    PRE_ENQUEUE,
    PRE_FILTER,
    Context,
    Plugin,
)

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER = "default-scheduler"
MULTI_POINT = "multiPoint"
ALL_PLUGINS = "*"

# The configuration's key of each extension point dractl runs; the other keys under ``plugins``
# (queueSort, score, bind, ...) are read for unknown plugin names only.
POINT_KEYS = {
    PRE_ENQUEUE: "preEnqueue",
    PRE_FILTER: "preFilter",
    FILTER: "filter",
    POST_FILTER: "postFilter",
}

# In-tree plugins of kube-scheduler 1.36 outside the default profile (alpha features) that
# dractl has no model of: a configuration may enable them, and the verdict then misses theirs.
NOT_MODELLED = frozenset({"GangScheduling", "NodeDeclaredFeatures", "PodGroupPodsCount", "TopologyPlacement"})

Where = tuple[Any, ...]  # a path inside the configuration's data, for error positions


class Profile(Record):
    """One scheduling profile.

    ``points``: extension point (PreEnqueue, PreFilter, Filter, PostFilter) -> the names of the
    plugins it runs, in order; ``args``: pluginConfig args by plugin name; ``not_modelled``: the
    plugins it enables that dractl cannot run (see :data:`NOT_MODELLED`), whose verdicts are
    missing from dractl's.
    """

    __slots__ = ("args", "not_modelled", "points", "scheduler_name")

    def __init__(self, scheduler_name: str, points: dict[str, tuple[str, ...]],
                 args: dict[str, dict[str, Any]] | None = None, not_modelled: tuple[str, ...] = ()) -> None:
        self.scheduler_name = scheduler_name
        self.points = points
        self.args: dict[str, dict[str, Any]] = {} if args is None else args
        self.not_modelled = not_modelled


def default_profile() -> Profile:
    """kube-scheduler's profile when it is given no configuration."""
    return _profile(_Source("default profile"), DEFAULT_SCHEDULER, {}, {})


def load_scheduler_config(path: str) -> dict[str, Profile]:
    """The profiles of the KubeSchedulerConfiguration at ``path`` (YAML or JSON), by scheduler
    name. Anything kube-scheduler would refuse to start with is an
    :class:`~dractl.errors.InputError` naming the file and, where known, line and column."""
    source, data = _read(path)
    if not isinstance(data, dict):
        raise source.error((), f"expected a {KIND} (a mapping), found {_kind_of(data)}")
    _check_type(source, data)
    profiles = data.get("profiles")
    if profiles is None or profiles == []:
        # kube-scheduler's defaulting: one profile, named default-scheduler below
        profiles = [{}]
    if not isinstance(profiles, list):
        raise source.error(("profiles",), f"profiles must be a list, found {_kind_of(profiles)}")
    found: dict[str, Profile] = {}
    for index, entry in enumerate(profiles):
        where = ("profiles", index)
        if not isinstance(entry, dict):
            raise source.error(where, f"a profile must be a mapping, found {_kind_of(entry)}")
        name = _scheduler_name(source, entry, where, only=len(profiles) == 1)
        if name in found:
            raise source.error((*where, "schedulerName"), f'two profiles have schedulerName "{name}"')
        sets = _plugin_sets(source, entry.get("plugins"), (*where, "plugins"))
        args = _plugin_args(source, entry.get("pluginConfig"), (*where, "pluginConfig"))
        found[name] = _profile(source, name, sets, args)
    return found


def profile_for(profiles: Mapping[str, Profile], scheduler_name: str | None) -> Profile | None:
    """The profile that schedules a Pod with this ``spec.schedulerName`` (empty: the default);
    None when no profile does, and kube-scheduler leaves the Pod to another scheduler."""
    return profiles.get(scheduler_name or DEFAULT_SCHEDULER)


def build_framework(profile: Profile, context: Context) -> Framework:
    """The profile's plugins, each made once with its args, at the points that run them; the
    framework is also set as ``context.framework``."""
    made: dict[str, Plugin] = {}
    points: dict[str, list[Plugin]] = {}
    for point in EXTENSION_POINTS:
        running = points[point] = []
        for name in profile.points.get(point, ()):
            plugin = made.get(name)
            if plugin is None:
                cls = registry.plugin_class(name)
                if cls is None:  # only in a Profile made by hand: the ones read here have a class
                    continue
                plugin = made[name] = cls(context, profile.args.get(name))
            running.append(plugin)
    framework = Framework(points)
    context.framework = framework
    return framework


# -- the plugin lists --------------------------------------------------------------------------

class _PluginSet(Record):
    """One ``PluginSet`` as written: the enabled names (with where each is written) and the
    disabled names."""

    __slots__ = ("disabled", "enabled")

    def __init__(self, enabled: tuple[tuple[str, Where], ...] = (), disabled: frozenset[str] = frozenset()) -> None:
        self.enabled = enabled
        self.disabled = disabled


def _profile(source: _Source, name: str, sets: Mapping[str, _PluginSet], args: dict[str, dict[str, Any]]) -> Profile:
    _check_known(source, sets.values())
    multi_point = _merged_multi_point(source, sets.get(MULTI_POINT))
    points = {point: _point_plugins(source, point, sets.get(key), multi_point)
              for point, key in POINT_KEYS.items()}
    enabled = [n for n, _ in multi_point] + [n for key in POINT_KEYS.values() for n, _ in _enabled(sets.get(key))]
    not_modelled = tuple(dict.fromkeys(n for n in enabled if n in NOT_MODELLED))
    return Profile(name, points, args, not_modelled)


def _check_known(source: _Source, sets: Iterable[_PluginSet]) -> None:
    # Looked up when a profile is read, so that a test may add plugins to the tables.
    known = {*registry.DEFAULT_ORDER, *registry.MODULES, *NOT_MODELLED}
    for plugin_set in sets:
        for name, where in plugin_set.enabled:
            if name not in known:
                raise source.error(where, f'plugin "{name}" does not exist')


def _merged_multi_point(source: _Source, custom: _PluginSet | None) -> list[tuple[str, Where]]:
    """The default plugins with the profile's multiPoint set merged in (``mergePluginSet``)."""
    if custom is None:
        return [(name, ()) for name in registry.DEFAULT_ORDER]
    # A name enabled twice replaces the default with its last entry; the earlier one is appended
    # and then found enabled twice, as upstream finds it.
    last = {name: index for index, (name, _) in enumerate(custom.enabled)}
    merged: list[tuple[str, Where]] = []
    replacing: set[int] = set()
    if ALL_PLUGINS not in custom.disabled:
        for name in registry.DEFAULT_ORDER:
            if name in custom.disabled:
                continue
            if name in last:
                replacing.add(last[name])
                merged.append(custom.enabled[last[name]])
            else:
                merged.append((name, ()))
    merged.extend(entry for index, entry in enumerate(custom.enabled) if index not in replacing)
    seen: set[str] = set()
    for name, where in merged:
        if name in seen:
            raise source.error(where, f'plugin "{name}" is enabled twice in multiPoint')
        seen.add(name)
    return merged


def _point_plugins(source: _Source, point: str, own: _PluginSet | None,
                   multi_point: Sequence[tuple[str, Where]]) -> tuple[str, ...]:
    """The plugins ``point`` runs, in order (``expandMultiPointPlugins``)."""
    listed: list[str] = []
    for name, where in _enabled(own):
        if name in NOT_MODELLED:
            continue
        if not _implements(name, point):
            raise source.error(where, f'plugin "{name}" does not extend {point}Plugin plugin')
        if name in listed:
            raise source.error(where, f'plugin "{name}" already registered as "{point}Plugin"')
        listed.append(name)
    disabled = own.disabled if own is not None else frozenset()
    if ALL_PLUGINS in disabled:
        return tuple(listed)
    overridden: set[str] = set()
    expanded: list[str] = []
    for name, _ in multi_point:
        if name in NOT_MODELLED or name in disabled or not _implements(name, point):
            continue
        if name in listed:
            overridden.add(name)
        else:
            expanded.append(name)
    first = [name for name in listed if name in overridden]
    rest = [name for name in listed if name not in overridden]
    return (*first, *expanded, *rest)


def _enabled(plugin_set: _PluginSet | None) -> tuple[tuple[str, Where], ...]:
    return plugin_set.enabled if plugin_set is not None else ()


def _implements(name: str, point: str) -> bool:
    cls = registry.plugin_class(name)
    return cls is not None and point in cls.extension_points


# -- reading the file ---------------------------------------------------------------------------

class _Source:
    """The file being read and its YAML tree (None for JSON read without positions), to say
    where an error is."""

    def __init__(self, path: str, root: Any = None) -> None:
        self.path = path
        self.root = root

    def error(self, where: Where, message: str) -> InputError:
        if self.root is None:
            return InputError(f"{self.path}: {message}")
        from dractl.load.documents import locate

        line, column = locate(self.root, where)
        return InputError(f"{self.path}:{line + 1}:{column + 1}: {message}")


def _read(path: str) -> tuple[_Source, Any]:
    from dractl.load.sources import decode

    try:
        with open(path, "rb") as file:
            raw = file.read()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the scheduler configuration: {exc.strerror or exc}") from None
    text = decode(raw, path)
    try:
        root = _load_yaml(path, text)
    except InputError:
        # JSON that YAML does not take (a tab before a key): read as JSON, without positions.
        if text.lstrip().startswith("{"):
            try:
                return _Source(path), json.loads(text)
            except ValueError:
                pass
        raise  # the YAML error, which names the position
    from dractl.api.model import plain

    return _Source(path, root), plain(root)


def _load_yaml(path: str, text: str) -> Any:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from dractl.load.roundtrip import round_trip_yaml

    yaml = round_trip_yaml()
    try:
        with warnings.catch_warnings():
            # ruamel warns about a reused anchor name; YAML allows it (the latest wins)
            warnings.simplefilter("ignore")
            documents = [doc for doc in yaml.load_all(text) if doc is not None]
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else path
        detail = " ".join(str(exc.problem or exc).split())
        raise InputError(f"{at}: YAML syntax error: {detail}") from None
    except (YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise InputError(f"{path}: YAML syntax error: {' '.join(str(exc).split())}") from None
    if len(documents) != 1:
        found = "nothing" if not documents else f"{len(documents)} documents"
        raise InputError(f"{path}: expected one {KIND}, found {found}")
    return documents[0]


# -- the configuration's fields ------------------------------------------------------------------

def _check_type(source: _Source, data: Mapping[str, Any]) -> None:
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if api_version == API_VERSION and kind == KIND:
        return
    where: Where = ("apiVersion",) if api_version != API_VERSION else ("kind",)
    found = f"apiVersion {_shown(api_version)}, kind {_shown(kind)}"
    hint = ""
    if kind == KIND and isinstance(api_version, str) and api_version.startswith("kubescheduler.config.k8s.io/"):
        hint = f" (kube-scheduler 1.36 reads only {API_VERSION})"
    raise source.error(where, f"expected apiVersion {API_VERSION}, kind {KIND}; found {found}{hint}")


def _scheduler_name(source: _Source, profile: Mapping[str, Any], where: Where, only: bool) -> str:
    name = profile.get("schedulerName")
    if name is None:
        if only:  # defaulting names a lone profile; several must each be named
            return DEFAULT_SCHEDULER
        raise source.error(where, "schedulerName is required when there are several profiles")
    if not isinstance(name, str):
        raise source.error((*where, "schedulerName"), f"schedulerName must be a string, found {_kind_of(name)}")
    if not name:
        raise source.error((*where, "schedulerName"), "schedulerName must not be empty")
    return name


def _plugin_sets(source: _Source, plugins: Any, where: Where) -> dict[str, _PluginSet]:
    """Every extension point's set under ``plugins`` (also the points dractl does not run: their
    plugin names must exist all the same)."""
    if plugins is None:
        return {}
    if not isinstance(plugins, dict):
        raise source.error(where, f"plugins must be a mapping, found {_kind_of(plugins)}")
    sets: dict[str, _PluginSet] = {}
    for key, value in plugins.items():
        at = (*where, key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise source.error(at, f"plugins.{key} must be a mapping with enabled and disabled, found {_kind_of(value)}")
        enabled = _plugin_names(source, value.get("enabled"), (*at, "enabled"))
        disabled = _plugin_names(source, value.get("disabled"), (*at, "disabled"))
        sets[key] = _PluginSet(tuple(enabled), frozenset(name for name, _ in disabled))
    return sets


def _plugin_names(source: _Source, entries: Any, where: Where) -> list[tuple[str, Where]]:
    """The names of a list of ``Plugin`` (``{name, weight}``; weights only matter for scoring)."""
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise source.error(where, f"{where[-1]} must be a list of plugins, found {_kind_of(entries)}")
    names: list[tuple[str, Where]] = []
    for index, entry in enumerate(entries):
        at = (*where, index)
        if not isinstance(entry, dict):
            raise source.error(at, f"a plugin must be a mapping with a name, found {_kind_of(entry)}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise source.error((*at, "name") if "name" in entry else at, "a plugin needs a name (a string)")
        names.append((name, (*at, "name")))
    return names


def _plugin_args(source: _Source, entries: Any, where: Where) -> dict[str, dict[str, Any]]:
    """``pluginConfig``: each plugin's args, by plugin name."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise source.error(where, f"pluginConfig must be a list, found {_kind_of(entries)}")
    args: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        at = (*where, index)
        if not isinstance(entry, dict):
            raise source.error(at, f"a pluginConfig entry must be a mapping, found {_kind_of(entry)}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise source.error((*at, "name") if "name" in entry else at, "a pluginConfig entry needs a name (a string)")
        if name in args:
            raise source.error((*at, "name"), f'pluginConfig has two entries for plugin "{name}"')
        value = entry.get("args")
        if value is None:
            value = {}
        elif not isinstance(value, dict):
            raise source.error((*at, "args"), f"args must be a mapping, found {_kind_of(value)}")
        args[name] = value
    return args


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value) if isinstance(value, str) else str(value)
