"""DRA51x: YAML that kubectl reads differently from what its author sees.

kubectl decodes manifests with sigs.k8s.io/yaml, which resolves unquoted scalars the YAML 1.1 way
(go-yaml v2): `y`, `n`, `yes`, `no`, `on`, `off` in any of their spellings are booleans, `010`
is the octal number 8, `0b101` is 5 and `1_000` is 1000. (Base-60 numbers such as `1:30` are not
supported by go-yaml v2: they stay strings.) The loader reads them the same way and remembers
where they are (`Document.yaml11`).

Where the apiserver then refuses the object because a string field got a boolean or a number,
the DRA kinds are reported by the schema check (DRA011, with a YAML 1.1 hint); these rules add
the other kinds (labels and annotations of every object, ConfigMap data, Pod and workload
fields) and the values that are accepted but differ from what the author wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from dractl.api.model import ApiObject, plain
from dractl.api.workspace import POD_SPEC_PATHS
from dractl.diagnostics import Applicability, Fix, Position, Severity, TextEdit
from dractl.lint.engine import Finding, LintContext
from dractl.lint.registry import rule
from dractl.records import Record

_OCTAL_RE = r"^[-+]?0[0-7_]+$"
_BOOL_WORD_RE = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")

ANY_KEY = "*"
ANY_INDEX = -1

# Paths of string fields in objects that are not DRA kinds (those have schemas), with `*` for
# any map key and -1 for any list index. Prefixes are added for where a pod spec sits.
_META_STRINGS: tuple[tuple[Any, ...], ...] = (
    ("name",),
    ("namespace",),
    ("generateName",),
    ("labels", ANY_KEY),
    ("annotations", ANY_KEY),
)
_POD_SPEC_STRINGS: tuple[tuple[Any, ...], ...] = (
    ("nodeName",),
    ("serviceAccountName",),
    ("nodeSelector", ANY_KEY),
    ("resourceClaims", ANY_INDEX, "name"),
    ("resourceClaims", ANY_INDEX, "resourceClaimName"),
    ("resourceClaims", ANY_INDEX, "resourceClaimTemplateName"),
    *(
        (containers, ANY_INDEX, *field)
        for containers in ("containers", "initContainers")
        for field in (
            ("name",),
            ("image",),
            ("workingDir",),
            ("command", ANY_INDEX),
            ("args", ANY_INDEX),
            ("env", ANY_INDEX, "name"),
            ("env", ANY_INDEX, "value"),
            ("resources", "claims", ANY_INDEX, "name"),
            ("resources", "claims", ANY_INDEX, "request"),
        )
    ),
)
_KIND_STRINGS: dict[tuple[str, str], tuple[tuple[Any, ...], ...]] = {
    ("", "ConfigMap"): (("data", ANY_KEY),),
    ("", "Secret"): (("stringData", ANY_KEY),),
}


def string_paths(obj: ApiObject) -> list[tuple[Any, ...]]:
    """Patterns of the paths that must hold strings in a non-DRA object."""
    out = [("metadata", *p) for p in _META_STRINGS]
    out += list(_KIND_STRINGS.get((obj.group, obj.kind), ()))
    spec_path = POD_SPEC_PATHS.get((obj.group, obj.kind))
    if spec_path is not None:
        out += [(*spec_path, *p) for p in _POD_SPEC_STRINGS]
        template = spec_path[:-1]  # the pod template's own metadata
        if template:
            out += [(*template, "metadata", *p) for p in _META_STRINGS[3:]]
        out += [("spec", "selector", "matchLabels", ANY_KEY)]
    return out


def _matches(path: Sequence[Any], pattern: Sequence[Any]) -> bool:
    if len(path) != len(pattern):
        return False
    for part, want in zip(path, pattern, strict=True):
        if want == ANY_KEY and isinstance(part, str):
            continue
        if want == ANY_INDEX and isinstance(part, int):
            continue
        if part != want:
            return False
    return True


def _is_file_mode(path: Sequence[Any]) -> bool:
    last = path[-1] if path else None
    return isinstance(last, str) and (last == "mode" or last.endswith("Mode"))


class Scalar(Record):
    """An unquoted scalar that kubectl reads the YAML 1.1 way."""

    __slots__ = ("path", "position", "text", "value")
    __hash__ = Record.value_hash

    def __init__(self, path: tuple[Any, ...], text: str, value: Any, position: Position) -> None:
        self.path = path  # inside the object as written
        self.text = text
        self.value = value  # what kubectl sends
        self.position = position

    @property
    def is_bool(self) -> bool:
        return isinstance(self.value, bool)

    @property
    def is_octal(self) -> bool:
        return not self.is_bool and bool(re.match(_OCTAL_RE, self.text))

    def seen_as(self) -> str:
        if self.is_bool:
            return f"the boolean {'true' if self.value else 'false'}"
        number = self.value
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        if self.is_octal:
            return f"the octal number {self.text} = {number}"
        return f"the number {number}"


def quote_fix(obj: ApiObject, scalar: Scalar) -> Fix | None:
    """Quoting the scalar where it is written: the string its author sees. None when the text
    at its position is not the scalar's (nothing is certain then)."""
    text = scalar.text
    if '"' in text or "\\" in text:
        return None
    document = obj.source.document
    lines = document.text.split("\n")
    index = scalar.position.line - 1 - document.start_line
    if not 0 <= index < len(lines):
        return None
    start = scalar.position.column - 1
    if lines[index][start : start + len(text)] != text:
        return None
    line, column = scalar.position.line, scalar.position.column
    end = column + len(text)
    # The two quotes take two of the blanks before an aligned comment, which then stays put.
    if re.match(r" {3,}#", lines[index][start + len(text) :]):
        end += 2
    edit = TextEdit(line, column, line, end, f'"{text}"')
    return Fix(f'Quote {text}: "{text}"', Applicability.SAFE, (edit,))


def yaml11_scalars(obj: ApiObject) -> list[Scalar]:
    """Every value in the object (not map keys) that the loader read the YAML 1.1 way."""
    doc = obj.source.document
    if not doc.yaml11:
        return []
    out: list[Scalar] = []

    def visit(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            items: Any = node.items()
            locate = getattr(getattr(node, "lc", None), "value", None)
        elif isinstance(node, list):
            items = enumerate(node)
            locate = getattr(getattr(node, "lc", None), "item", None)
        else:
            return
        for key, child in items:
            part = key if isinstance(node, list) else next(iter(plain({key: None})))
            if isinstance(child, dict | list):
                visit(child, (*path, part))
                continue
            if locate is None:
                continue
            try:
                line, col = locate(key)
            except (KeyError, IndexError, TypeError):
                continue
            where = (doc.start_line + line + 1, col + 1)
            text = doc.yaml11.get(where)
            if text is not None:
                position = Position(doc.file.path, where[0], where[1])
                out.append(Scalar((*path, part), text, plain(child), position))

    visit(obj.source.raw, ())
    return out


# --- what the schema of a DRA kind says a path holds -------------------------------------------


def _deref(defs: dict[str, Any], node: Any) -> tuple[dict[str, Any], str | None]:
    name = None
    for _ in range(16):
        if not isinstance(node, dict):
            return {}, name
        ref = node.get("$ref")
        if ref is None and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            ref = node["allOf"][0].get("$ref")
        if ref is None:
            return node, name
        name = ref.rsplit("/", 1)[-1]
        node = defs.get(name, {})
    return node, name


def field_kind(schema: dict[str, Any], path: Sequence[Any]) -> str | None:
    """``string``, ``boolean``, ``number``, ``quantity``, ``any`` (raw JSON) or None (unknown)."""
    defs = schema.get("$defs", {})
    node, name = _deref(defs, schema)
    for part in path:
        if name is not None and name.endswith("RawExtension"):
            return "any"
        if isinstance(part, int):
            node, name = _deref(defs, node.get("items"))
        elif part in node.get("properties", {}):
            node, name = _deref(defs, node["properties"][part])
        elif isinstance(node.get("additionalProperties"), dict):
            node, name = _deref(defs, node["additionalProperties"])
        else:
            return None
    if name is not None and name.endswith("RawExtension"):
        return "any"
    if "oneOf" in node:
        return "quantity"
    kind = node.get("type")
    if kind == "integer":
        return "number"
    return kind if isinstance(kind, str) else None


def dra_field_kind(obj: ApiObject, path: Sequence[Any], ctx: LintContext) -> str | None:
    """What the schema of a DRA object's own version says ``path`` (the author's) holds."""
    from dractl.api.schemas import load_schema

    schema = load_schema(ctx.features.release, obj.version, obj.kind)
    return field_kind(schema, path) if schema is not None else None


@rule("DRA510", "yaml11-string-field", Severity.ERROR, fix=Applicability.SAFE)
def yaml11_string_field(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """An unquoted `yes`, `no`, `on`, `off`, `y`, `n` or `010` in a string field of a label, Pod or ConfigMap.

    Why:
    kubectl reads these YAML 1.1 spellings as a boolean or a number, and the apiserver rejects
    a boolean or a number where a string belongs (`cannot unmarshal bool into Go struct field
    ... of type string`): a label `gpu: yes` or an env value `value: on` makes the whole object
    fail. Quote the value (`dractl lint --fix` does). This rule covers labels and annotations of
    every object, ConfigMap and Secret data and the string fields of Pods and workload pod
    templates; in the DRA kinds the schema check (DRA011) reports such values.

    Bad:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
          labels:
            gpu-admin: yes
    Good:
        apiVersion: v1
        kind: Namespace
        metadata:
          name: gpu-monitoring
          labels:
            gpu-admin: "yes"
    Upstream:
    sigs.k8s.io/yaml goyaml.v2/resolve.go (the YAML 1.1 booleans and octal integers).
    """
    if obj.dra:
        return
    scalars = yaml11_scalars(obj)
    if not scalars:
        return
    patterns = string_paths(obj)
    for scalar in scalars:
        if not any(_matches(scalar.path, p) for p in patterns):
            continue
        yield Finding(
            f"kubectl reads the unquoted {scalar.text} as {scalar.seen_as()} (YAML 1.1), and "
            f'the apiserver rejects it in a string field; quote it: "{scalar.text}"',
            position=scalar.position,
            fix=quote_fix(obj, scalar),
        )


@rule("DRA511", "yaml11-changed-value", Severity.WARNING)
def yaml11_changed_value(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """An unquoted scalar that kubectl accepts but reads as something else than it looks.

    Why:
    kubectl reads `010` as the octal number 8, and `yes`, `no`, `on`, `off`, `y`, `n` as
    booleans. In a number or quantity field the object is accepted with a different value
    (`count: 010` asks for 8 devices); in opaque driver `parameters`, which the apiserver passes
    on unchecked, the driver receives a boolean or a number where it may expect the text. In
    kinds without a bundled schema only octal numbers are reported, except in file-mode fields
    (`defaultMode: 0644` is meant to be octal).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: eight-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                count: 010
            config:
            - opaque:
                driver: gpu.example.com
                parameters:
                  sharing: on
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: eight-gpus
        spec:
          devices:
            requests:
            - name: gpus
              exactly:
                deviceClassName: gpu.example.com
                count: 8
            config:
            - opaque:
                driver: gpu.example.com
                parameters:
                  sharing: "on"
    """
    scalars = yaml11_scalars(obj)
    if not scalars:
        return
    patterns = [] if obj.dra else string_paths(obj)
    for scalar in scalars:
        kind = None
        if obj.dra:
            kind = dra_field_kind(obj, scalar.path, ctx)
            # A boolean in a number field and anything in a string field are the schema check's
            # (DRA011, DRA012); a yes/no in a boolean field means what it says.
            numeric = kind in ("number", "quantity")
            report = scalar.is_octal if numeric else kind == "any"
        else:
            if any(_matches(scalar.path, p) for p in patterns):
                continue  # DRA510
            # A boolean word in a field of unknown type is likely meant as one, and octal is the
            # usual way to write file modes (`defaultMode: 0644`).
            report = scalar.is_octal and not _is_file_mode(scalar.path)
        if not report:
            continue
        if scalar.is_octal:
            decimal = int(scalar.text.replace("_", ""), 10)
            fix = f"write {scalar.value} or {decimal}, whichever you mean"
            if kind == "any":
                fix += f' (or "{scalar.text}" if the driver expects the text)'
            elif not obj.dra:
                fix += f' (or "{scalar.text}" if the field holds text)'

        else:
            fix = f'quote it ("{scalar.text}") if the driver expects the text'
        yield Finding(
            f"kubectl reads the unquoted {scalar.text} as {scalar.seen_as()} (YAML 1.1); {fix}",
            position=scalar.position,
        )
