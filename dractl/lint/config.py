"""Configuration: ``.dractl.yaml`` or ``[tool.dractl]`` in ``pyproject.toml``, merged with the CLI.

The file is found by walking up from the current directory (the first folder holding a
``.dractl.yaml``, ``.dractl.yml`` or a ``pyproject.toml`` with a ``[tool.dractl]`` table wins).
It is validated against ``config.schema.json`` (shipped for editors); anything wrong is a
:class:`~dractl.errors.UsageError` naming the file, line and column.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from dractl.diagnostics import Severity
from dractl.errors import UsageError
from dractl.records import Record

if TYPE_CHECKING:
    from pathlib import Path

    from dractl.lint.engine import Settings

CONFIG_NAMES = (".dractl.yaml", ".dractl.yml")
PYPROJECT = "pyproject.toml"
SCHEMA_FILE = "config.schema.json"


class PathPattern:
    """A glob relative to the configuration's folder: ``**`` spans folders, ``*`` and ``?`` do not.

    A pattern without ``/`` matches a file or folder name at any depth; a pattern matches a file
    when it matches the file or one of the folders above it (``vendor`` excludes ``vendor/x.yaml``).
    """

    def __init__(self, pattern: str, root: Path | str) -> None:
        self.pattern = pattern
        self.root = root
        text = pattern.strip()
        if text.startswith("./"):
            text = text[2:]
        self.anchored = "/" in text.rstrip("/")
        self._regex = re.compile(_glob_regex(text.strip("/")))

    def __repr__(self) -> str:
        return f"PathPattern({self.pattern!r})"

    def matches(self, path: str) -> bool:
        return _matches(self._regex, self.anchored, str(self.root), path)


@lru_cache(maxsize=65536)
def _matches(regex: re.Pattern[str], anchored: bool, root: str, path: str) -> bool:
    parts = _relative_parts(root, path)
    if anchored:
        return any(regex.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1))
    return any(regex.fullmatch(part) for part in parts)


def _relative_parts(root: str, path: str) -> list[str]:
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive on Windows
        relative = absolute
    if relative.startswith(".."):
        relative = absolute.lstrip("/")
    return [p for p in relative.replace(os.sep, "/").split("/") if p and p != "."]


def _glob_regex(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[" and "]" in glob[i + 1 :]:
            end = glob.index("]", i + 1)
            body = glob[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


class Config(Record):
    """The settings a configuration file holds (``None``: not set there)."""

    __slots__ = (
        "cel_engine",
        "exclude",
        "feature_gates",
        "ignore",
        "kubernetes_version",
        "path",
        "per_file_ignores",
        "require_classes",
        "root",
        "select",
        "severity",
        "strict",
    )

    def __init__(
        self,
        path: Path | None = None,
        root: Path | str | None = None,
        kubernetes_version: str | None = None,
        feature_gates: dict[str, bool] | None = None,
        select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] = (),
        severity: dict[str, Severity] | None = None,
        exclude: tuple[PathPattern, ...] = (),
        per_file_ignores: tuple[tuple[PathPattern, tuple[str, ...]], ...] = (),
        strict: bool | None = None,
        require_classes: bool | None = None,
        cel_engine: str | None = None,
    ) -> None:
        self.path = path
        self.root = os.getcwd() if root is None else root
        self.kubernetes_version = kubernetes_version
        self.feature_gates = {} if feature_gates is None else feature_gates
        self.select = select
        self.ignore = ignore
        self.severity = {} if severity is None else severity
        self.exclude = exclude
        self.per_file_ignores = per_file_ignores
        self.strict = strict
        self.require_classes = require_classes
        self.cel_engine = cel_engine

    def excluded(self, path: str) -> bool:
        """Whether to skip ``path``: an ``exclude`` pattern matches it, or it is a config file."""
        if path == "-":
            return False
        return os.path.basename(path) in CONFIG_NAMES or any(p.matches(path) for p in self.exclude)


# --- finding and reading --------------------------------------------------------------------


def find_config(start: Path | None = None) -> Path | None:
    """The nearest configuration file at or above ``start`` (default: the current directory).
    The walk uses os.path: pathlib is imported only for a file found (it is a twentieth of a lint
    of one small file)."""
    folder = os.path.realpath(os.getcwd() if start is None else start)
    while True:
        found = next((p for p in (os.path.join(folder, n) for n in CONFIG_NAMES) if os.path.isfile(p)), None)
        pyproject = os.path.join(folder, PYPROJECT)
        if found is None and os.path.isfile(pyproject) and _has_tool_table(pyproject):
            found = pyproject
        if found is not None:
            from pathlib import Path

            return Path(found)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_tool_table(pyproject: str) -> bool:
    try:
        with open(pyproject, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r"^\s*\[tool\.dractl\]", text, re.MULTILINE) is not None


def config_path(explicit: str | None = None, *, discover: bool = True) -> Path | None:
    """The configuration file to read: ``explicit`` if given, else the one found (None: none)."""
    if explicit is not None:
        from pathlib import Path

        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"{explicit}: configuration file not found")
        return path
    return find_config() if discover else None


def load_config(explicit: str | None = None, *, discover: bool = True) -> Config:
    """The configuration to use: ``explicit`` if given, else the one found, else the defaults."""
    path = config_path(explicit, discover=discover)
    return read_config(path) if path is not None else Config()


def read_config(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the configuration: {exc}") from None
    if path.name == PYPROJECT:
        data, locate = _read_toml(path, text)
    else:
        data, locate = _read_yaml(path, text)
    _validate(data, locate)
    return _build(path, data, locate)


Locator = Any  # (path inside the data, key: bool) -> "file:line:col"


def _read_yaml(path: Path, text: str) -> tuple[dict[str, Any], Locator]:
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError

    from dractl.api.model import plain

    yaml = YAML(typ="rt")
    yaml.Constructor = _constructor_naming_nodes()
    try:
        documents = [d for d in yaml.load_all(text) if d is not None]
    except _ValueError as exc:
        # a tag the value does not fit (`strict: !!bool maybe`, `!!int x`, `!!timestamp 1`)
        node = exc.node
        mark = node.start_mark
        dotted = _key_of(yaml, text, node)
        what = f"{dotted}: " if dotted else ""
        tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
        value = repr(str(node.value)[:80]) if isinstance(node.value, str) else "this value"
        raise UsageError(
            f"{path}:{mark.line + 1}:{mark.column + 1}: {what}{value} is not a valid {tag}"
        ) from None
    except DuplicateKeyError as exc:
        key = re.search(r'found duplicate key "(.*?)"', str(exc))
        raise UsageError(
            f"{_mark(path, exc)}: duplicate key \"{key.group(1) if key else '?'}\""
        ) from None
    except MarkedYAMLError as exc:
        detail = " ".join(str(exc.problem or exc).split())
        raise UsageError(f"{_mark(path, exc)}: YAML syntax error: {detail}") from None
    if len(documents) > 1:
        raise UsageError(f"{path}: expected one YAML document, found {len(documents)}")
    if not documents:
        return {}, lambda where, key=False: f"{path}:1:1"
    root = documents[0]
    if not isinstance(root, dict):
        raise UsageError(f"{path}:1:1: the configuration must be a mapping")
    data = plain(root)

    def locate(where: Sequence[Any], key: bool = False) -> str:
        from dractl.load.documents import child
        from dractl.load.documents import locate as locate_in

        if key and where:
            parent: Any = root
            for part in where[:-1]:
                parent = child(parent, part)
            try:
                line, col = parent.lc.key(where[-1])
                return f"{path}:{line + 1}:{col + 1}"
            except (AttributeError, KeyError, TypeError):
                pass
        line, col = locate_in(root, where)
        return f"{path}:{line + 1}:{col + 1}"

    return data, locate


class _ValueError(Exception):
    """A node whose tag its value does not fit, with the node (for its position)."""

    def __init__(self, node: Any, cause: Exception) -> None:
        super().__init__(str(cause))
        self.node = node
        self.cause = cause


def _constructor_naming_nodes() -> type:
    """ruamel's round-trip constructor, whose errors in building one value (a KeyError for
    ``!!bool maybe``, a ValueError for ``!!int x``) say which node they come from."""
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.error import YAMLError

    class Constructor(RoundTripConstructor):  # type: ignore[misc]
        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep=deep)
            except (_ValueError, YAMLError, RecursionError):
                raise
            except (ArithmeticError, AttributeError, KeyError, LookupError, TypeError,
                    ValueError) as exc:
                raise _ValueError(node, exc) from None

    return Constructor


def _key_of(yaml: Any, text: str, target: Any) -> str | None:
    """The dotted key under which ``target`` (a node) stands, found again in the composed tree."""
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    def find(node: Any, where: list[str]) -> list[str] | None:
        if node.start_mark.index == target.start_mark.index and node.tag == target.tag:
            return where
        if isinstance(node, MappingNode):
            for key, value in node.value:
                found = find(value, [*where, str(key.value)])
                if found is not None:
                    return found
        elif isinstance(node, SequenceNode):
            for index, value in enumerate(node.value):
                found = find(value, [*where, f"[{index}]"])
                if found is not None:
                    return found
        return None

    try:
        for root in yaml.compose_all(text):
            found = find(root, [])
            if found:
                return ".".join(found).replace(".[", "[")
    except Exception:  # only a better message is lost: the error itself is reported anyway
        return None
    return None


def _mark(path: Path, exc: Any) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)


def _read_toml(path: Path, text: str) -> tuple[dict[str, Any], Locator]:
    import tomllib

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: {exc}") from None
    data = document.get("tool", {}).get("dractl", {})
    lines = text.splitlines()
    header = next(
        (i for i, line in enumerate(lines) if re.match(r"^\s*\[tool\.dractl\]", line)), 0
    )

    def locate(where: Sequence[Any], key: bool = False) -> str:
        # tomllib keeps no positions: find the key's line below the [tool.dractl] header.
        names = [str(w) for w in where if isinstance(w, str)]
        line_no = header
        for name in names:
            pattern = re.compile(rf'^\s*(?:"{re.escape(name)}"|{re.escape(name)})\s*=')
            for i in range(line_no, len(lines)):
                if pattern.match(lines[i]):
                    line_no = i
                    break
        column = len(lines[line_no]) - len(lines[line_no].lstrip()) + 1 if lines else 1
        return f"{path}:{line_no + 1}:{column}"

    if not isinstance(data, dict):
        raise UsageError(f"{locate(())}: [tool.dractl] must be a table")
    return data, locate


@lru_cache(maxsize=1)
def config_schema() -> dict[str, Any]:
    """The JSON Schema of the configuration (also for editors: ``dractl/lint/config.schema.json``)."""
    with open(os.path.join(os.path.dirname(__file__), SCHEMA_FILE), encoding="utf-8") as stream:
        text = stream.read()
    schema: dict[str, Any] = json.loads(text)
    return schema


def _validate(data: dict[str, Any], locate: Locator) -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(config_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), str(e)))
    if not errors:
        return
    error = errors[0]
    where = list(error.absolute_path)
    if error.context:  # oneOf: point at the deepest value a branch complained about
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        where = list(deepest.absolute_path)
    message = _explain(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        unknown = sorted(k for k in error.instance if k not in allowed)
        if unknown:
            where.append(unknown[0])
            expected = ", ".join(sorted(allowed)) if allowed else "none"
            message = f"unknown key {unknown[0]!r} (expected one of: {expected})"
            raise UsageError(f"{locate(where, True)}: {message}")
    raise UsageError(f"{locate(where)}: {message}")


def _explain(error: Any) -> str:
    where = "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
        for i, p in enumerate(error.absolute_path)
    )
    prefix = f"{where}: " if where else ""
    kind = error.validator
    if kind == "pattern":
        return f"{prefix}{error.instance!r} is not a rule ID or prefix (such as DRA101 or DRA1)"
    if kind == "enum":
        choices = ", ".join(str(c) for c in error.validator_value)
        return f"{prefix}{error.instance!r} is not one of {choices}"
    if kind == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{prefix}expected {_article(expected)}, got {_json_type(error.instance)}"
    if kind == "oneOf":
        return f"{prefix}expected a mapping of gate names to true/false, or Name=true,Other=false"
    return f"{prefix}{error.message}"


def _article(word: str) -> str:
    word = {"object": "mapping", "array": "list"}.get(word, word)
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "a number"
    return "a string"


def _build(path: Path, data: Mapping[str, Any], locate: Locator) -> Config:
    from dractl.api.releases import normalize_release, parse_feature_gates

    root = path.resolve().parent
    config = Config(path=path, root=root)

    def checked(where: Sequence[Any], func: Any, *args: Any, key: bool = False) -> Any:
        try:
            return func(*args)
        except UsageError as exc:
            raise UsageError(f"{locate(where, key)}: {exc}") from None

    if "kubernetes-version" in data:
        config.kubernetes_version = checked(
            ["kubernetes-version"], normalize_release, str(data["kubernetes-version"])
        )
    gates = data.get("feature-gates")
    if isinstance(gates, str):
        config.feature_gates = checked(["feature-gates"], parse_feature_gates, gates)
    elif isinstance(gates, dict):
        for gate, value in gates.items():
            spec = f"{gate}={'true' if value else 'false'}"
            config.feature_gates.update(
                checked(["feature-gates", gate], parse_feature_gates, spec, key=True)
            )
    if "select" in data:
        config.select = _codes(data["select"], ["select"], locate)
    config.ignore = _codes(data.get("ignore", []), ["ignore"], locate)
    for code, level in data.get("severity", {}).items():
        _codes([code], ["severity", code], locate, key=True)
        config.severity[code.upper()] = Severity(level)
    config.exclude = tuple(PathPattern(p, root) for p in data.get("exclude", []))
    config.per_file_ignores = tuple(
        (PathPattern(pattern, root), _codes(codes, ["per-file-ignores", pattern], locate))
        for pattern, codes in data.get("per-file-ignores", {}).items()
    )
    config.strict = data.get("strict")
    config.require_classes = data.get("require-classes")
    config.cel_engine = data.get("cel-engine")
    return config


def _codes(
    codes: Sequence[str], where: list[Any], locate: Locator, *, key: bool = False
) -> tuple[str, ...]:
    from dractl.lint.registry import all_rules

    known = [r.id for r in all_rules()]
    out = []
    for i, code in enumerate(codes):
        upper = code.upper()
        if not any(rule_id.startswith(upper) for rule_id in known):
            at = locate(where, True) if key else locate([*where, i])
            raise UsageError(f"{at}: unknown rule {code!r}: no rule ID starts with it")
        out.append(upper)
    return tuple(out)


# --- merging with the command line ----------------------------------------------------------


def severity_overrides(by_prefix: Mapping[str, Severity]) -> dict[str, Severity]:
    """Expand ID-or-prefix overrides to rule IDs; the longest matching prefix wins."""
    from dractl.lint.registry import all_rules

    out: dict[str, Severity] = {}
    for rule_ in all_rules():
        matching = [p for p in by_prefix if rule_.id.startswith(p)]
        if matching:
            out[rule_.id] = by_prefix[max(matching, key=len)]
    return out


def validate_codes(codes: Sequence[str], option: str) -> tuple[str, ...]:
    """Command-line rule IDs or prefixes, upper-cased; an unknown one is a usage error."""
    from dractl.lint.registry import all_rules

    known = [r.id for r in all_rules()]
    out = []
    for code in codes:
        upper = code.strip().upper()
        if not re.fullmatch(r"DRA\d{0,3}", upper) or not any(k.startswith(upper) for k in known):
            raise UsageError(f"{option}: unknown rule {code!r}; see `dractl rules`")
        out.append(upper)
    return tuple(out)


def build_settings(
    config: Config,
    *,
    kubernetes_version: str | None = None,
    feature_gates: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    require_classes: bool | None = None,
    cel_engine: str | None = None,
) -> Settings:
    """Lint settings: the command line wins over the configuration, which wins over defaults.

    ``--select`` replaces the configuration's ``select`` and ``ignore`` (the command line then
    says exactly which rules run); ``--ignore`` adds to the configuration's ``ignore``.
    Feature gates are merged gate by gate.
    """
    from dractl.api.releases import DEFAULT_RELEASE, Features, normalize_release
    from dractl.api.releases import parse_feature_gates as parse_gates
    from dractl.lint.engine import Settings

    release = normalize_release(kubernetes_version or config.kubernetes_version or DEFAULT_RELEASE)
    if config.feature_gates:
        try:
            Features(release, config.feature_gates)
        except UsageError as exc:
            raise UsageError(f"{config.path}: feature-gates: {exc}") from None
    gates = {**config.feature_gates, **parse_gates(feature_gates)}
    cli_select = validate_codes(select, "--select")
    cli_ignore = validate_codes(ignore, "--ignore")
    if cli_select:
        chosen_select, chosen_ignore = cli_select, cli_ignore
    else:
        chosen_select = config.select or ()
        chosen_ignore = config.ignore + cli_ignore
    return Settings(
        features=Features(release, gates),
        select=chosen_select,
        ignore=chosen_ignore,
        severity_overrides=severity_overrides(config.severity),
        require_classes=bool(require_classes or config.require_classes),
        cel_engine=_cel_engine(cel_engine, config),
        per_file_ignores=config.per_file_ignores,
    )


def _cel_engine(from_command_line: str | None, config: Config) -> str | None:
    from dractl.cel.engines import validate_engine_name

    if from_command_line is not None:
        return validate_engine_name(from_command_line, "--cel-engine")
    return validate_engine_name(config.cel_engine, f"{config.path}: cel-engine")
