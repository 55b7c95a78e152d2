"""The upstream compiler's answers about its limits, for tests/cel/test_cel_runtime_limits.py.

Three kinds of case, answered by ``dra-upstream cel -stored`` (the scheduler's compilation and
evaluation) on ``data/runtime-limits-slices.yaml`` and kept in ``data/runtime-limits.json``:

- ``costs``: the actual cost cel-go charges for evaluating an expression on the first device.
  The binary prints no actual cost; it is found by padding the expression with steps of known
  cost (:func:`pad`) up to the runtime limit of 1,000,000 and searching the pad at which the
  evaluation is cancelled: ``pad(q) && ((E) || true)`` runs when ``q + cost(E) <= 1,000,000``.
- ``evaluations``: expressions that pass the cost estimate (or are not estimated: the scheduler
  compiles without) and build large values at run time; upstream's answer per device, or what
  went wrong with the binary (it runs out of memory on some).
- ``parse``: expressions at cel-go's parser limits (size, nesting), made by :data:`SHAPES`;
  upstream's compile error.

Regenerate (linux x86_64, the binary at ../shared/oracle/bin/dra-upstream or $DRA_UPSTREAM):

    python tests/cel/runtime_limits_corpus.py [--all]

It asks only about the cases the stored corpus lacks, unless ``--all``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SLICES = HERE / "data" / "runtime-limits-slices.yaml"
CORPUS = HERE / "data" / "runtime-limits.json"
ORACLE = Path(
    os.environ.get("DRA_UPSTREAM", ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream")
)
LIMIT = 1_000_000
CANCELLED = "operation cancelled: actual cost limit exceeded"

# -- the pad: steps whose actual cost is known ------------------------------------------------------
# `cel.bind(s, '<90,000 x>', lists.range(n1).all(i, s == s))`: per step the loop condition (2),
# the accumulator (1), two reads of s (2) and a comparison of 90,000 characters (9,000); the range
# costs n1 + 11 and the result 1: 9,006 n1 + 12. `lists.range(n2).all(i, true)`: 4 n2 + 12.
# `!false`: 1. The oracle agrees (case "true" costs 0: pad(1,000,000) runs, pad(1,000,001) not).
_BIG = "x" * 90_000
_BIG_STEP, _SMALL_STEP, _PAD_BASE = 9_006, 4, 24


def pad(cost: int) -> str:
    """An expression that is true and costs exactly ``cost`` (at least 24)."""
    big, rest = divmod(cost - _PAD_BASE, _BIG_STEP)
    small, ones = divmod(rest, _SMALL_STEP)
    return (
        f"cel.bind(s, '{_BIG}', lists.range({big}).all(i, s == s)) && lists.range({small}).all(i, true)"
        + " && !false" * ones
    )


def padded(expression: str, cost: int) -> str:
    """``expression`` after a pad of ``cost``, its value ignored (errors too)."""
    return f"{pad(cost)} && (({expression}) || true)"


# -- the cases ---------------------------------------------------------------------------------------

A = 'device.attributes["gpu.example.com"]'
COSTS = [
    "true",
    "!false",
    'device.driver == "gpu.example.com"',
    f'{A}.model == "H100"',
    f'{A}.model.startsWith("H")',
    f'{A}.uuid.contains("0a1b")',
    f'{A}.uuid.matches("^GPU-[0-9a-f]+")',
    f"{A}.uuid.size() > 10",
    f'{A}.uuid + "abc" != ""',
    f'{A}.uuid < "zzz"',
    f'{A}.driverVersion.isGreaterThan(semver("1.0.0"))',
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("32Gi")) >= 0',
    'device.capacity["gpu.example.com"].memory == quantity("80Gi")',
    'device.capacity["gpu.example.com"].memory != quantity("80Gi")',
    'device.attributes["dra.example.com"].numa == 0',
    f'"model" in {A}',
    f"has({A}.model)",
    f'{A}.?model.orValue("x") == "H100"',
    f'{A}.?missing.orValue("x") == "x"',
    f"{A}.?missing.model.hasValue()",
    f'{A}[?"missing"].hasValue()',
    f'cel.bind(a, {A}, a.model == "H100" && a.uuid != "")',
    f"cel.bind(a, {A}, true)",
    "[1, 2, 3].size() == 3",
    '{"a": device.attributes["dra.example.com"].numa}.size() == 1',
    "1 in [1, 2, 3]",
    'device.attributes["dra.example.com"].numa in [0, 1, 2]',
    'cel.bind(l, [0, 1, 2], device.attributes["dra.example.com"].numa in l)',
    "[1, 2, 3][1] == 2",
    'cel.bind(m, {"a": 1, "b": 2}, cel.bind(k, "b", m[k] == 2))',
    "cel.bind(l, lists.range(20), cel.bind(i, 3, l[i] == 3))",
    "[1, 2, 3][?5].hasValue() == false",
    f"{A}.all(k, k.size() > 0)",
    f"{A}.map(k, k).size() == 4",
    f"{A}.map(k, 1).size() == 4",
    "lists.range(10).all(i, i < 5)",
    "lists.range(10).exists(i, i == 3)",
    "lists.range(10).exists_one(i, i == 3)",
    "lists.range(10).map(i, i * 2).size() == 10",
    "lists.range(10).filter(i, i % 2 == 0).size() == 5",
    "lists.range(10).map(i, i % 2 == 0, i).size() == 5",
    "lists.range(5).transformList(i, v, v).size() == 5",
    "lists.range(5).transformMap(i, v, i > 2, v).size() == 2",
    "lists.range(5).transformMapEntry(i, v, {v: i}).size() == 5",
    "lists.range(10).sum() == 45",
    "[3, 1, 2].sort()[0] == 1",
    '["b", "a", "c", "a"].sort()[0] == "a"',
    "[3, 1, 2, 2].distinct().size() == 3",
    "[[1], [2, 3]].flatten().size() == 3",
    "lists.range(10).sortBy(i, -i)[0] == 9",
    "lists.range(10).slice(2, 5).size() == 3",
    "sets.equivalent([1, 2, 3], [3, 2, 1])",
    '"a,b,c".split(",").size() == 3',
    '["a", "b"].join(",") == "a,b"',
    '"abc".replace("b", "xx") == "axxc"',
    '"%s-%d".format(["a", 1]) == "a-1"',
    'strings.quote("abc") != ""',
    'int("12") == 12',
    "type(1) == int",
    'dyn(device.attributes["dra.example.com"].numa) == 0',
    '-device.attributes["dra.example.com"].numa == 0',
    'cidr("10.0.0.0/8").containsIP("10.1.2.3")',
    'url("https://example.com/x").getHost() == "example.com"',
    'format.dns1123Label().validate("abc").hasValue() == false',
    "optional.of(1).optMap(x, x + 1).value() == 2",
    "optional.none().orValue(1) == 1",
    f'(device.attributes["dra.example.com"].numa == 0 ? {A}.model : "x") == "H100"',
    f"cel.bind(s, {A}.uuid, (s + s + s + s).size() > 10)",
    "cel.bind(s, 'abcdefghijabcdefghijabcdefghij', s + s + s + s != '')",
    f"lists.range(5).map(i, {A}.missing).size() == 5",
    f"lists.range(5).all(i, {A}.missing == 1)",
    "cel.bind(l, lists.range(30), l.all(x, l.exists(y, y > x) || x == 29))",
    "cel.bind(l, lists.range(30), l.map(x, l.filter(y, y < x).size()).sum() > 0)",
    "cel.bind(l, lists.range(3000), l.map(x, l).size() > 0)",
]


def chain(seed: str, step: str, depth: int, final: str = "X.size() > 0") -> str:
    """``cel.bind`` ``depth`` times, each value made from the one before by ``step`` (``A``)."""
    body = final.replace("X", f"v{depth}")
    for i in range(depth, 0, -1):
        body = f"cel.bind(v{i}, {step.replace('A', f'v{i - 1}')}, {body})"
    return f"cel.bind(v0, {seed}, {body})"


L = "lists.range(3000)"
EVALUATIONS = [
    # the lists of lists: cheap upstream (42,035 to 120,079), quadratic in cel-cpp
    f"cel.bind(l, {L}, l.map(x, l).size() > 0)",
    f"cel.bind(l, {L}, cel.bind(m, l.map(x, l), m.map(y, m).size() > 0))",
    f"cel.bind(l, {L}, cel.bind(m, l.map(x, l), cel.bind(n, m.map(y, m), n.map(z, n).size() > 0)))",
    # and the same nested, past the limit
    f"{L}.map(x, {L}).size() > 0",
    f"cel.bind(l, {L}, l.map(x, l.map(y, l)).size() > 0)",
    # a list doubled by `+` (cost 1 each): 8 × 2^n elements upstream holds as a concatenation
    chain("[1, 2, 3, 4, 5, 6, 7, 8]", "A + A", 10),
    chain("[1, 2, 3, 4, 5, 6, 7, 8]", "A + A", 20),
    chain("[1, 2, 3, 4, 5, 6, 7, 8]", "A + A", 24),
    chain("[1, 2, 3, 4, 5, 6, 7, 8]", "A + A", 12, "X.exists(e, e == 9)"),
    # strings doubled by `+` (charged by length): cancelled once 16 × 2^n passes about 4 million
    chain('"xxxxxxxxxxxxxxxx"', "A + A", 10),
    chain('"xxxxxxxxxxxxxxxx"', "A + A", 20),
    chain('"xxxxxxxxxxxxxxxx"', "A + A", 30),
    # strings doubled by format (charged by the format string only)
    chain('"xxxxxxxxxxxxxxxx"', '"%s%s".format([A, A])', 10),
    chain('"xxxxxxxxxxxxxxxx"', '"%s%s".format([A, A])', 20),
    chain('"xxxxxxxxxxxxxxxx"', '"%s%s".format([A, A])', 30),
    # joined lists of strings (charged by the result)
    chain('["xxxxxxxxxxxxxxxx"]', "[A.join(), A.join()]", 20),
    # replace multiplies the length (charged by the input)
    chain('"xxxxxxxxxxxxxxxx"', 'A.replace("x", A)', 3),
    chain('"xxxxxxxxxxxxxxxx"', 'A.replace("x", A)', 20),
    # ranges: built, then charged by their length
    "lists.range(999000).size() > 0",
    "lists.range(1000000).size() > 0",
    "lists.range(1000000000).size() > 0",
    "lists.range(10000).all(i, true)",
    # cancelled on the second device only (its numa is 1)
    f"cel.bind(s, '{'x' * 1000}', lists.range(device.attributes[\"dra.example.com\"].numa * 10000).all(i, s == s))",
]

SHAPES: dict[str, Callable[[int], str]] = {
    "parens": lambda n: "(" * n + "true" + ")" * n,
    "lists": lambda n: "[" * n + "true" + "]" * n + " == []",
    "calls": lambda n: "size(" * n + "'a'" + ")" * n + " == 1",
    "not": lambda n: "!" * n + "true",
    "negation": lambda n: "-" * n + "1 == 1",
    "and": lambda n: " && ".join(["true"] * n),
    "plus": lambda n: " + ".join(["1"] * n) + f" == {n}",
    "selections": lambda n: "device" + ".a" * n + " == 1",
    "indexes": lambda n: 'device.attributes["gpu.example.com"]' + '["a"]' * n + " == 1",
    "methods": lambda n: "'a'" + ".lowerAscii()" * n + " == 'a'",
    "binds": lambda n: chain("1", "A + 1", n, "X > 0"),
    "spaces": lambda n: " " * n + "true",
    "space-only": lambda n: " " * n,
    "or-chain": lambda n: "true || " * n + "true",
}
PARSE = [
    ("parens", 33),
    ("parens", 249),
    ("parens", 250),
    ("parens", 5000),
    ("lists", 100),
    ("lists", 249),
    ("lists", 250),
    ("calls", 249),
    ("calls", 250),
    ("not", 5000),
    ("negation", 5000),
    ("and", 5000),
    ("or-chain", 12000),
    ("plus", 33),
    ("plus", 250),
    ("plus", 251),
    ("plus", 25_000),
    ("selections", 249),
    ("selections", 250),
    ("indexes", 248),
    ("indexes", 249),
    ("methods", 249),
    ("methods", 250),
    ("binds", 40),
    ("binds", 249),
    ("spaces", 99_996),
    ("spaces", 99_997),
    ("space-only", 100_000),
    ("space-only", 100_001),
]


# -- asking the oracle -------------------------------------------------------------------------------


def _memory_limit() -> None:
    # Some cases make the binary itself allocate without bound: keep it to 3 GB.
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _oracle(expressions: list[str]) -> list[dict[str, Any]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as listing:
        json.dump(expressions, listing)
        listing.flush()
        try:
            done = subprocess.run(
                [str(ORACLE), "cel", "-stored", "-exprs", listing.name, str(SLICES)],
                capture_output=True,
                text=True,
                check=False,
                preexec_fn=_memory_limit,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            return [{"crash": "no answer within ten minutes"}]
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    if len(answers) != len(expressions):
        return [
            {"crash": done.stderr.strip().splitlines()[0] if done.stderr.strip() else "no answer"}
        ]
    return answers


def _first_device(answer: dict[str, Any]) -> Any:
    if answer.get("compile_error"):
        raise ValueError(answer["compile_error"])
    device = answer["devices"][0]
    return device["error"] if device["error"] is not None else device["result"]


def measure_cost(expression: str) -> int:
    """Upstream's actual cost of ``expression`` on the first device."""
    low, high = _PAD_BASE, LIMIT + 1  # pad(low) + cost runs, pad(high) + cost is cancelled
    while high - low > 1:
        points = sorted({low + (high - low) * k // 33 for k in range(1, 33)} - {low, high})
        answers = [
            _first_device(answer) for answer in _oracle([padded(expression, q) for q in points])
        ]
        for point, answer in zip(points, answers, strict=True):
            if answer == CANCELLED:
                high = min(high, point)
            else:
                low = max(low, point)
    return LIMIT - low


def _answer(answer: dict[str, Any]) -> Any:
    if "crash" in answer:
        return {"oracle": answer["crash"]}
    if answer["compile_error"]:
        return {"compile_error": answer["compile_error"]}
    return [
        device["error"] if device["error"] is not None else device["result"]
        for device in answer["devices"]
    ]


def _first_error(answer: Any) -> Any:
    """A compile error's first line (the rest quotes the expression, some kilobytes of it)."""
    if isinstance(answer, dict) and "compile_error" in answer:
        return {"compile_error": answer["compile_error"].split("\n", 1)[0]}
    return answer


def main() -> None:
    """Ask the oracle about every case the stored corpus lacks (``--all``: every case)."""
    stored = json.loads(CORPUS.read_text()) if CORPUS.exists() and "--all" not in sys.argv else {}
    corpus = {
        "generated_by": "python tests/cel/runtime_limits_corpus.py",
        "costs": stored.get("costs", {}),
        "evaluations": stored.get("evaluations", {}),
        "parse": stored.get("parse", {}),
    }
    asks: list[tuple[str, str, Callable[[], Any]]] = [
        *(("costs", e, lambda e=e: measure_cost(e)) for e in COSTS),
        *(("evaluations", e, lambda e=e: _answer(_oracle([e])[0])) for e in EVALUATIONS),
        *(
            (
                "parse",
                f"{shape} {n}",
                lambda shape=shape, n=n: _first_error(_answer(_oracle([SHAPES[shape](n)])[0])),
            )
            for shape, n in PARSE
        ),
    ]
    for section, key, ask in asks:
        if key in corpus[section]:
            continue
        corpus[section][key] = ask()
        print(f"{section:<12} {str(corpus[section][key])[:60]:<60} {key[:100]}", file=sys.stderr)
        CORPUS.write_text(
            json.dumps(corpus, indent=1) + "\n"
        )  # after each answer: some take minutes


if __name__ == "__main__":
    main()
