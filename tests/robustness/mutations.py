"""Random mutations of valid manifests: what a broken editor, a bad merge or a hostile pull
request makes of them. Shared by the fuzz tests (small budget) and ``benchmarks/fuzz.py``.

Every mutation takes the manifest text and a ``random.Random`` and returns new text, so a run is
reproduced from its seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
SEED_FILES = sorted((ROOT / "examples").rglob("*.yaml"))

NASTY_SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10**30,
    -(10**19),
    2**63,
    1e308,
    float("inf"),
    "",
    " ",
    "null",
    "~",
    "yes",
    "on",
    "0x1F",
    "010",
    "1e3",
    ".nan",
    "-.inf",
    "2001-12-14",
    "1:30",
    "'",
    '"',
    "\\",
    "\x00",
    "\t",
    "\u202e",
    "\ufeff",
    "💥",
    "ǅ",
    "İ",
    "\u0130" * 3,
    "a" * 300,
    "gpu.example.com",
    "gpu.example.com/model",
    "device.driver == 'x'",
    "{{ .Values.x }}",
    "*alias",
    "&anchor",
    "!!python/object/apply:os.system ['true']",
    "- item",
    "key: value",
    "---",
    "...",
    "%YAML 1.1",
    "# comment",
    "1Gi",
    "-1Gi",
    "1e400Gi",
    "0.000000001",
    "v1",
    "All",
    "ExactCount",
    "Sometimes",
    "resource.k8s.io/v1",
    "DeviceClass",
]

YAML_NOISE = [*":{}[]&*!|>'\"%@`#-?,\t\n ", "---\n", "...\n", "<<: ", "!!binary ", "\r"]

TAG_INJECTIONS = [
    "!!python/object/apply:os.system ['echo injected']",
    "!!python/object/new:subprocess.Popen [['true']]",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!binary AAECAw==",
    "!!set {a, b}",
    "!!omap [a: 1, b: 2]",
    "!custom {x: 1}",
    "!!timestamp 2001-12-14",
    "!!str 5",
    "!!int '12'",
    "!!float 'x'",
]


def seeds() -> list[str]:
    """Every example file, and each explain example's files as one stream (explain needs the
    slices, classes, nodes and claims together to get as far as the allocator)."""
    texts = [path.read_text(encoding="utf-8") for path in SEED_FILES]
    for folder in sorted(p for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir()):
        parts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.yaml"))]
        texts.append("---\n".join(part if part.endswith("\n") else part + "\n" for part in parts))
    return texts


def _documents(text: str) -> list[Any]:
    """The documents as data, or none if the text is broken or expands too much (aliases)."""
    try:
        docs = [doc for doc in YAML(typ="safe", pure=True).load_all(text) if doc is not None]
    except Exception:  # the text is already broken: mutate it as text only
        return []
    budget = [50_000]

    def small(node: Any, depth: int) -> bool:
        budget[0] -= 1
        if budget[0] < 0 or depth > 200:
            return False
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, dict | list):
            return all(small(child, depth + 1) for child in children)
        return True

    return docs if all(small(doc, 0) for doc in docs) else []


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if len(prefix) > 50:  # deep or recursive (aliases): far enough
        return out
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(6 if depth < 3 else 3)
    if choice == 0:
        return rng.choice(NASTY_SCALARS)
    if choice == 1:
        return _random_text(rng, rng.randrange(1, 40))
    if choice == 2:
        return rng.randrange(-(2**70), 2**70)
    if choice == 3:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if choice == 4:
        return {
            _random_text(rng, 8): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))
        }
    return rng.choice([{}, [], {"": None}, [None]])


def _random_text(rng: random.Random, length: int) -> str:
    alphabets = [
        "abcdefghijklmnopqrstuvwxyz0123456789.-_/",
        "".join(chr(c) for c in range(0x20, 0x7F)),
        "äöüßéèçñøåÆ€£¥µ中文字符日本語한국어עבריתالعربية",
        "\u200b\u200d\u202e\ufeff\u0301\u0308",
        "🚀💥🙂👩‍👩‍👧‍👦🏳️‍🌈",
    ]
    alphabet = rng.choice(alphabets)
    return "".join(rng.choice(alphabet) for _ in range(length))


def _dump(docs: list[Any], rng: random.Random) -> str:
    """Write documents back as YAML (block or flow) or as JSON, which is YAML too."""
    style = rng.randrange(3)
    if style == 0:
        return "\n---\n".join(json.dumps(doc, ensure_ascii=False, default=str) for doc in docs)
    import io

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = style == 1
    yaml.allow_unicode = True
    out = io.StringIO()
    try:
        yaml.dump_all(docs, out)
    except Exception:  # a value the emitter refuses (e.g. a NaN key): fall back to JSON
        return "\n---\n".join(json.dumps(doc, ensure_ascii=False, default=str) for doc in docs)
    return out.getvalue()


def _structural(edit: Callable[[Any, tuple[Any, ...], random.Random], None]) -> Callable:
    def mutate(text: str, rng: random.Random) -> str:
        docs = _documents(text)
        if not docs:
            return insert_noise(text, rng)
        doc_index = rng.randrange(len(docs))
        paths = _paths(docs[doc_index])
        path = rng.choice(paths)
        try:
            if not path:  # the whole document
                docs[doc_index] = _random_value(rng)
            else:
                edit(_get(docs[doc_index], path[:-1]), path, rng)
            return _dump(docs, rng)
        except (RecursionError, ValueError, TypeError):  # a recursive document (aliases)
            return insert_noise(text, rng)

    return mutate


@_structural
def delete_key(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    del parent[path[-1]]


@_structural
def retype_value(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    parent[path[-1]] = _random_value(rng)


@_structural
def wrong_scalar(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    parent[path[-1]] = rng.choice(NASTY_SCALARS)


@_structural
def same_type_value(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    """Another value of the same JSON type: the object still decodes, so validation and the
    allocator see it (counts of 0, -1 or 2**63 - 1, empty or foreign names, reordered lists)."""
    value = parent[path[-1]]
    if isinstance(value, bool):
        parent[path[-1]] = not value
    elif isinstance(value, int):
        parent[path[-1]] = rng.choice(
            [0, -1, 1, 2, 32, 33, 2**31, 2**63 - 1, -(2**63), rng.randrange(-100, 100)]
        )
    elif isinstance(value, float):
        parent[path[-1]] = rng.choice([0.0, -1.5, 1e300, value * 2])
    elif isinstance(value, str):
        siblings = [v for v in (parent.values() if isinstance(parent, dict) else parent)]
        others = [v for v in siblings if isinstance(v, str) and v != value]
        parent[path[-1]] = rng.choice(
            [
                "",
                value.upper(),
                value + "-x",
                value[: len(value) // 2],
                value * 2,
                _random_text(rng, rng.randrange(1, 70)),
                rng.choice(others) if others else value[::-1],
            ]
        )
    elif isinstance(value, list) and value:
        choice = rng.randrange(3)
        if choice == 0:
            value.reverse()
        elif choice == 1:
            del value[rng.randrange(len(value))]
        else:
            value.append(value[rng.randrange(len(value))])


@_structural
def unicode_value(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    parent[path[-1]] = _random_text(rng, rng.randrange(1, 80))


@_structural
def rename_key(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    if isinstance(parent, dict):
        parent[rng.choice([_random_text(rng, 6), path[-1].upper(), path[-1] + " "])] = parent.pop(
            path[-1]
        )


@_structural
def huge_value(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    size = rng.choice([1_000, 10_000, 100_000])
    kind = rng.randrange(4)
    if kind == 0:
        parent[path[-1]] = "x" * size
    elif kind == 1:
        parent[path[-1]] = [rng.choice(NASTY_SCALARS)] * min(size, 1_000)
    elif kind == 2:
        parent[path[-1]] = int("9" * min(size, 4_000))
    else:
        nested: Any = "leaf"
        for _ in range(rng.choice([20, 60, 99])):
            nested = [nested]
        parent[path[-1]] = nested


@_structural
def duplicate_item(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    if isinstance(parent, list):
        parent.insert(path[-1], parent[path[-1]])
    elif isinstance(parent, dict):
        parent[f"{path[-1]}-copy"] = parent[path[-1]]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def duplicate_line(text: str, rng: random.Random) -> str:
    """Duplicate keys, the commonest merge accident."""
    lines = _lines(text)
    index = rng.randrange(len(lines))
    lines.insert(index, lines[index])
    return "".join(lines)


def delete_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "".join(lines)


def reindent_line(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    index = rng.randrange(len(lines))
    lines[index] = rng.choice([" ", "  ", "\t", ""]) + lines[index].lstrip(" ")
    return "".join(lines)


def truncate(text: str, rng: random.Random) -> str:
    return text[: rng.randrange(len(text) + 1)]


def insert_noise(text: str, rng: random.Random) -> str:
    at = rng.randrange(len(text) + 1)
    noise = "".join(rng.choice(YAML_NOISE) for _ in range(rng.randrange(1, 6)))
    return text[:at] + noise + text[at:]


def inject_tag(text: str, rng: random.Random) -> str:
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if ": " in line]
    if not candidates:
        return insert_noise(text, rng)
    index = rng.choice(candidates)
    key, _, _ = lines[index].partition(": ")
    lines[index] = f"{key}: {rng.choice(TAG_INJECTIONS)}\n"
    return "".join(lines)


def alias_bomb(text: str, rng: random.Random) -> str:
    width, levels = rng.choice([(10, 9), (9, 9), (2, 40), (100, 4)])
    lines = [f"bomb0: &b0 [{', '.join(['lol'] * width)}]"]
    lines += [f"bomb{i}: &b{i} [{', '.join([f'*b{i - 1}'] * width)}]" for i in range(1, levels)]
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def recursive_alias(text: str, rng: random.Random) -> str:
    return text.rstrip("\n") + "\n" + rng.choice(["loop: &l [*l]\n", "loop: &l {self: *l}\n"])


def byte_order_and_newlines(text: str, rng: random.Random) -> str:
    choice = rng.randrange(3)
    if choice == 0:
        return "\ufeff" + text
    if choice == 1:
        return text.replace("\n", "\r\n")
    return text.replace("\n", "\r")


MUTATIONS: list[Callable[[str, random.Random], str]] = [
    delete_key,
    retype_value,
    wrong_scalar,
    same_type_value,
    unicode_value,
    rename_key,
    huge_value,
    duplicate_item,
    duplicate_line,
    delete_line,
    reindent_line,
    truncate,
    insert_noise,
    inject_tag,
    alias_bomb,
    recursive_alias,
    byte_order_and_newlines,
]


# Hostile families (issue 25), for benchmarks/fuzz.py's campaign. They stay out of MUTATIONS, which
# test_fuzz.py draws from with fixed seeds, so that its cases do not change under it.
NUMBERS_AT_LIMITS = [
    "9" * 4301,
    "9" * 4301 + "Gi",
    "1" + "0" * 5000,
    "0." + "0" * 5000 + "1",
    "1e999",
    "1e-999",
    "-1e999Ki",
    "18446744073709551616",
    "-9223372036854775809",
    "-.inf",
    ".inf",
    ".nan",
    "0x" + "f" * 5000,
    "1e" + "9" * 30,
    # the edges of the integer and float types that Go, JSON and CEL read them into
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "18446744073709551615",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "4.9e-324",
    "2.5e-324",
    "-0",
    "-0.0",
    "0o777",
    "0b1010",
    "1_000",
    "+.5",
    "NaN",
    "Infinity",
    "9223372036854775807Ki",
    "0.5m",
    "1e-9n",
]
CONTROL_CHARACTERS = [
    "\x1b",
    "\x9b",
    "\x08",
    "\x00",
    "\x07",
    "\x7f",
    "\x0c",
    "\x1b]0;t\x07",
    "\x1b[2J",
    "\x85",
    "\u2028",
    "\u202e",
]


def lone_surrogate(text: str, rng: random.Random) -> str:
    """Half a surrogate pair: as a JSON or double-quoted escape (valid input that no encoder can
    write back), or as raw bytes (``\xed\xa0\x80``: not UTF-8 at all)."""
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if ": " in line]
    if not candidates:
        return insert_noise(text, rng)
    index = rng.choice(candidates)
    key, _, _ = lines[index].partition(": ")
    escape = rng.choice(["\\ud800", "\\udfff", "\\uDBFF\\u0041", "\\U0000d800"])
    if rng.random() < 0.2:
        raw = rng.choice(["\ud800", "\udcff"])  # written with surrogatepass: bytes not UTF-8
        lines[index] = f"{key}: a{raw}b\n"
    else:
        lines[index] = f'{key}: "x{escape}y"\n'
    return "".join(lines)


def number_at_limit(parent: Any, path: tuple[Any, ...], rng: random.Random) -> None:
    value = rng.choice(NUMBERS_AT_LIMITS)
    parent[path[-1]] = value if rng.random() < 0.5 else _plain(value)


def _plain(value: str) -> Any:
    """The number as YAML would read it unquoted (an int, a float), where Python can hold it."""
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def control_character(text: str, rng: random.Random) -> str:
    """ESC, CSI, backspace, NUL and their kind: raw anywhere (a YAML error that must point at its
    line) or escaped in a double-quoted value (valid input whose value reaches the reports)."""
    char = rng.choice(CONTROL_CHARACTERS).encode().decode("unicode_escape")
    if rng.random() < 0.5:
        at = rng.randrange(len(text) + 1)
        return text[:at] + char + text[at:]
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if ": " in line]
    if not candidates:
        return text + char
    index = rng.choice(candidates)
    key, _, _ = lines[index].partition(": ")
    escaped = json.dumps(f"x{char}y")
    lines[index] = f"{key}: {escaped}\n"
    return "".join(lines)


# Byte sequences that are not UTF-8: overlong forms, encoded surrogates, code points past
# U+10FFFF, bytes that never start a character, a sequence cut short.
BAD_UTF8 = [
    b"\xc0\xaf",
    b"\xe0\x80\xaf",
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xe2\x82",
    b"\xc3",
]


def reencode(text: str, rng: random.Random) -> bytes:
    """The text as other encodings write it (issue 25, encodings): UTF-16 with and without a
    byte-order mark, cut after an odd byte, with a lone surrogate; UTF-32; Latin-1; bytes that
    are not UTF-8 anywhere in it; marks where none belongs. The result is bytes, so it ends the
    chain of mutations (:func:`mutate`)."""
    choice = rng.randrange(10)
    if choice == 0:
        return rng.choice([b"\xff\xfe", b"\xfe\xff"]) + text.encode(
            "utf-16-le" if rng.random() < 0.5 else "utf-16-be", "surrogatepass"
        )
    if choice == 1:  # no mark: NUL bytes between the ASCII characters
        return text.encode(rng.choice(["utf-16-le", "utf-16-be"]), "surrogatepass")
    if choice == 2:  # UTF-16 cut after an odd byte, or holding half a surrogate pair
        data = b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
        if rng.random() < 0.5:
            return data[: rng.randrange(3, max(4, len(data)), 2)]
        at = rng.randrange(1, max(2, len(data) // 2)) * 2
        return data[:at] + rng.choice([b"\x00\xd8", b"\x00\xdc", b"\xff\xdb"]) + data[at:]
    if choice == 3:  # UTF-32: its little-endian mark starts as UTF-16's
        return text.encode(rng.choice(["utf-32", "utf-32-le", "utf-32-be"]), "surrogatepass")
    if choice == 4:
        return text.encode("latin-1", "replace")
    if choice == 5:  # marks of two encodings, or a mark after the first line
        lines = _lines(text)
        at = rng.randrange(len(lines))
        if rng.random() < 0.5:
            return rng.choice(
                [b"\xef\xbb\xbf\xff\xfe", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xff\xfe\xef\xbb\xbf"]
            ) + text.encode("utf-8", "surrogatepass")
        return "".join([*lines[:at], "\ufeff", *lines[at:]]).encode("utf-8", "surrogatepass")
    data = text.encode("utf-8", "surrogatepass")
    for _ in range(rng.randrange(1, 3)):
        at = rng.randrange(len(data) + 1)
        data = data[:at] + rng.choice(BAD_UTF8) + data[at:]
    return data


def _doubling(depth: int, start: str, result: str, name: str = "l") -> str:
    """``cel.bind`` a value, then bind its double ``depth`` times: ``depth`` nested binds, and
    ``result`` on the last one (``{v}`` in it). The compile-time estimate counts list
    concatenation as O(1) (cel-go does: it concatenates lazily), so it passes; a value copied
    at each step holds 2**depth elements at the end."""
    expression = result.format(v=f"{name}{depth}")
    for level in range(depth, 0, -1):
        expression = f"cel.bind({name}{level}, {name}{level - 1} + {name}{level - 1}, {expression})"
    return f"cel.bind({name}0, {start}, {expression})"


_DIGITS = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"
# Selectors whose values grow at run time (issue 25, family 6). Most pass the compile-time cost
# estimate, which counts a list concatenation as O(1) (cel-go concatenates lazily): doubled lists
# of up to 2**27 elements, compared, mapped, concatenated again. The others are past it (joins,
# strings past 2**19 characters, deep nested maps): lint reports them (DRA202), and select and
# explain, which do not check the estimate (the scheduler does not, for stored objects),
# evaluate them under the run-time cost limit. Depths stop below the parser's recursion limit
# (32 nested calls with the comparison). A bounded evaluation answers each in milliseconds; one
# that copies needs up to 2**27 elements. (The order is kept: a campaign's input N picks by it.)
CEL_MEMORY_SELECTORS: list[str] = [
    *(_doubling(depth, "[1]", "{v}.size() > 0") for depth in (16, 20, 22, 24, 26, 27)),
    *(_doubling(depth, "[1]", "{v} == {v} + []") for depth in (18, 23, 26)),
    *(_doubling(depth, "[device.driver]", "{v}.size() > 1") for depth in (20, 25)),
    *(_doubling(depth, "['ab']", "{v}.join().size() > 0") for depth in (16, 24)),
    *(_doubling(depth, "[1]", _DIGITS + ".map(x, {v} + {v}).size() > 0") for depth in (14, 22)),
    *(_doubling(depth, "[1]", "{v}.map(x, x + 1).size() > 0") for depth in (12, 21)),
    *(_doubling(depth, "'ab'", "{v}.size() > 0", name="s") for depth in (16, 19, 23)),
    *(_doubling(depth, "device.driver", "{v}.startsWith('gpu')", name="s") for depth in (18, 22)),
    # nested map over lists: 10**depth results, the run-time cost limit stops the deep ones
    *(
        f"cel.bind(d, {_DIGITS}, "
        + "".join(f"d.map(x{i}, " for i in range(depth))
        + "x0"
        + ")" * depth
        + ".size() > 0)"
        for depth in (3, 5, 7)
    ),
    "cel.bind(d, " + _doubling(10, "[1]", "{v}") + ", d.map(x, d.map(y, d)).size() > 0)",
]


def cel_memory(text: str, rng: random.Random) -> str:
    """A selector of :data:`CEL_MEMORY_SELECTORS` in place of a CEL expression of the input (one
    of a DeviceClass or a request), or in a DeviceClass of its own if it has none."""
    expression = rng.choice(CEL_MEMORY_SELECTORS)
    docs = _documents(text)
    places = [
        (doc, path) for doc in docs for path in _paths(doc) if path and path[-1] == "expression"
    ]
    if places:
        doc, path = rng.choice(places)
        try:
            _get(doc, path[:-1])[path[-1]] = expression
            return _dump(docs, rng)
        except (RecursionError, ValueError, TypeError):  # a recursive document (aliases)
            pass
    device_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "grows"},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }
    return text.rstrip("\n") + "\n---\n" + json.dumps(device_class) + "\n"


numbers_at_limits = _structural(number_at_limit)
numbers_at_limits.__name__ = "numbers_at_limits"  # the name of its tests

HOSTILE_MUTATIONS: list[Callable[[str, random.Random], str | bytes]] = [
    lone_surrogate,
    numbers_at_limits,
    control_character,
    reencode,
    cel_memory,
]


MAX_TEXT = 512 * 1024  # inputs stay small enough to run hundreds per minute


def mutate(
    text: str,
    rng: random.Random,
    count: int | None = None,
    mutations: list[Callable[[str, random.Random], str | bytes]] | None = None,
) -> str | bytes:
    """Apply one to four random mutations (one that makes the text too large is skipped). A
    mutation that returns bytes (:func:`reencode`) ends the chain: the others edit text."""
    for _ in range(count if count is not None else rng.randrange(1, 5)):
        mutated = rng.choice(mutations or MUTATIONS)(text, rng)
        if len(mutated) > MAX_TEXT:
            continue
        if isinstance(mutated, bytes):
            return mutated
        text = mutated
    return text
