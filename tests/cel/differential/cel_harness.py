"""The differential harness: the upstream oracle's answers, dractl's answers, and how they differ.

A *case* is one expression evaluated on every device of one slice file in one *configuration*
(release, feature gates, NewExpressions or stored environment). The corpus keeps the oracle's
answer per case (``corpus/<config>.jsonl``); dractl answers through its own entry points
(``compile_selector`` and ``CompiledSelector.evaluate`` on the devices ``devices_of_slices``
builds, as ``dractl select`` does).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cel_generator import TOPICS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CORPUS = HERE / "corpus"
SLICES = HERE / "slices"
ORACLE_ENV = "DRA_UPSTREAM"
DEFAULT_ORACLE = ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream"
SEED = 20261203
TOPIC_NAMES = tuple(TOPICS)
#: Lines the tests add for the end of the pytest run (agreement rates, ledger categories).
SUMMARIES: list[str] = []


@dataclass(frozen=True)
class Config:
    """How one corpus file was compiled: what the oracle was run with and dractl is asked for."""

    name: str
    release: str
    gates: dict[str, bool]
    stored: bool
    slices: str  # slice kind of cel_generator.slices_yaml
    per_topic: int  # expressions per topic
    topics: tuple[str, ...] | None = None  # None: every topic

    @property
    def purpose(self) -> str:
        return "stored" if self.stored else "new"

    def oracle_flags(self) -> list[str]:
        flags = ["-release", self.release]
        changed = [f"{gate}={str(on).lower()}" for gate, on in self.gates.items() if on != _DEFAULT_GATES[self.release].get(gate)]
        if changed:
            flags += ["-feature-gates", ",".join(changed)]
        if self.stored:
            flags.append("-stored")
        return flags


# The gates each release has by default (the oracle's README, "Releases and gates").
_DEFAULT_GATES = {
    "1.36": {"DRAConsumableCapacity": True, "DRAListTypeAttributes": False},
    "1.35": {"DRAConsumableCapacity": False, "DRAListTypeAttributes": False},
    "1.34": {"DRAConsumableCapacity": False, "DRAListTypeAttributes": False},
}
_LIST_GATES = {"DRAConsumableCapacity": True, "DRAListTypeAttributes": True}
_BASE_TOPICS = ("attributes", "quantity", "semver", "optional", "runtime-type-error", "ill-typed", "list-attributes",
                "lists-library", "ext-lists", "macros", "random")

CONFIGS = {c.name: c for c in (
    # NewExpressions is what lint checks (the apiserver on create); stored is what select and
    # explain use (the scheduler).
    Config("1.36-new", "1.36", _DEFAULT_GATES["1.36"], False, "scalars", 75),
    Config("1.36-stored", "1.36", _DEFAULT_GATES["1.36"], True, "scalars", 45),
    Config("1.36-listattr-new", "1.36", _DEFAULT_GATES["1.36"], False, "listattr", 6),
    Config("1.36-no-consumable-new", "1.36", {"DRAConsumableCapacity": False, "DRAListTypeAttributes": False},
           False, "scalars", 12, ("attributes", "list-attributes", "random")),
    Config("1.36-lists-new", "1.36", _LIST_GATES, False, "lists", 30),
    Config("1.36-lists-stored", "1.36", _LIST_GATES, True, "lists", 18),
    Config("1.35-new", "1.35", _DEFAULT_GATES["1.35"], False, "scalars", 18),
    Config("1.35-stored", "1.35", _DEFAULT_GATES["1.35"], True, "scalars", 12, _BASE_TOPICS),
    Config("1.34-new", "1.34", _DEFAULT_GATES["1.34"], False, "scalars", 18),
    Config("1.34-stored", "1.34", _DEFAULT_GATES["1.34"], True, "scalars", 12, _BASE_TOPICS),
)}


def case_id(config: str, expression: str) -> str:
    """Stable per content: a regenerated corpus keeps the ids of the cases it keeps."""
    return hashlib.sha1(f"{config}\0{expression}".encode()).hexdigest()[:12]


# --- the oracle --------------------------------------------------------------------------------


def oracle_path() -> Path:
    configured = os.environ.get(ORACLE_ENV)
    return Path(configured) if configured else DEFAULT_ORACLE


def oracle_unavailable() -> str | None:
    """Why the oracle cannot run here, or None when it can."""
    path = oracle_path()
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"the upstream oracle is a linux x86_64 binary (this is {platform.system()} {platform.machine()})"
    if not path.is_file():
        return f"no upstream oracle at {path} (set {ORACLE_ENV})"
    if not os.access(path, os.X_OK):
        return f"the upstream oracle {path} is not executable"
    return None


def run_oracle(config: Config, slices_file: Path, expressions: Sequence[str], *,
               jobs: int | None = None) -> list[dict[str, Any]]:
    """The oracle's answer for each expression, in order, each from its own oracle process.

    One process per expression, because upstream's answers depend on what the same process
    evaluated before: the quantity library's ``add()``/``sub()`` work on a shallow copy of the
    quantity (``copy := *q`` in ``k8s.io/apiserver`` ``pkg/cel/library/quantity.go``) and
    ``resource.Quantity.Add``/``Sub`` then change the ``*inf.Dec`` that copy shares with the
    device's capacity, so an expression that adds to a capacity held as a decimal changes the
    capacity every later expression sees on that device. A stored answer must be the answer to
    its case alone. The processes run ``jobs`` at a time (default: the number of CPUs).
    """
    workers = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda expression: _ask_oracle(config, slices_file, expression), expressions))


def _ask_oracle(config: Config, slices_file: Path, expression: str) -> dict[str, Any]:
    """One expression in a fresh oracle process (``-exprs -``: a JSON list on stdin, so an
    expression may hold any character)."""
    done = subprocess.run(
        [str(oracle_path()), "cel", *config.oracle_flags(), "-exprs", "-", str(slices_file)],
        input=json.dumps([expression]), capture_output=True, text=True, timeout=120, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the oracle failed ({done.returncode}) on {expression!r}: {done.stderr.strip()}")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(answers) != 1 or answers[0]["expr"] != expression:
        raise RuntimeError(f"the oracle's answer does not match the expression it was given: {expression!r}")
    return answers[0]


def record_of(config: Config, topic: str, answer: dict[str, Any]) -> dict[str, Any]:
    """One corpus line: per device ``true``/``false`` or the error text (a string)."""
    results = [d["error"] if d["error"] is not None else d["result"] for d in answer["devices"]]
    return {"id": case_id(config.name, answer["expr"]), "topic": topic, "expr": answer["expr"],
            "compile_error": answer["compile_error"], "cost": answer["cost"], "results": results}


# --- the corpus --------------------------------------------------------------------------------


@dataclass
class Corpus:
    config: Config
    slices_file: Path
    cases: list[dict[str, Any]]


def load_corpus(directory: Path = CORPUS) -> list[Corpus]:
    found = []
    for path in sorted(directory.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0])
        config = CONFIGS[header["config"]]
        found.append(Corpus(config, HERE / header["slices"], [json.loads(line) for line in lines[1:]]))
    return found


def write_corpus(config: Config, slices_file: Path, records: Iterable[dict[str, Any]], command: str,
                 directory: Path = CORPUS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    header = {"config": config.name, "release": config.release, "gates": config.gates, "stored": config.stored,
              "slices": slices_file.relative_to(HERE).as_posix(), "generated_by": command}
    path = directory / f"{config.name}.jsonl"
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(record, ensure_ascii=False, separators=(",", ":")) for record in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- dractl's answer ---------------------------------------------------------------------------


@dataclass
class Answer:
    compile_error: str | None
    cost: int | None
    results: list[Any]  # per device: True/False or the error text
    crashed: str | None = None  # an exception dractl should never raise


_devices_cache: dict[tuple[Path, str, bool], list[Any]] = {}


def devices_of(slices_file: Path, release: str, consumable_capacity: bool = True) -> list[Any]:
    """The devices as ``dractl select`` builds them: dractl's loader, model and slice reader."""
    key = (slices_file, release, consumable_capacity)
    if key not in _devices_cache:
        from dractl.api.decoding import decode_errors
        from dractl.api.model import build_all
        from dractl.cel.slices import devices_of_slices
        from dractl.load import load_paths

        loaded = load_paths([str(slices_file)])
        if loaded.failed or loaded.unreadable:
            raise RuntimeError(f"{slices_file}: cannot be loaded: {loaded.unreadable or loaded.diagnostics}")
        objects = [obj for obj in build_all(loaded.objects) if obj.kind == "ResourceSlice" and obj.dra]
        errors = decode_errors(objects, release)
        if errors:
            raise RuntimeError(f"{slices_file}: {errors[0]}")
        _devices_cache[key] = [entry.device for entry in devices_of_slices(
            [obj.data for obj in objects], consumable_capacity=consumable_capacity)]
    return _devices_cache[key]


def dractl_answer(config: Config, slices_file: Path, expression: str, engine: str) -> Answer:
    from dractl.cel import CelCompileError, CelRuntimeError, compile_selector

    try:
        selector = compile_selector(expression, release=config.release, gates=config.gates,
                                    purpose=config.purpose, engine=engine)  # type: ignore[arg-type]
    except CelCompileError as exc:
        return Answer(exc.detail, None, [])
    except Exception as exc:
        return Answer(None, None, [], crashed=f"compile: {type(exc).__name__}: {exc}")
    results: list[Any] = []
    for device in devices_of(slices_file, config.release, bool(config.gates.get("DRAConsumableCapacity"))):
        try:
            results.append(selector.evaluate(device))
        except CelRuntimeError as exc:
            results.append(exc.message)
        except Exception as exc:
            return Answer(None, _reported_cost(config, selector.cost), results,
                          crashed=f"evaluate: {type(exc).__name__}: {exc}")
    return Answer(None, _reported_cost(config, selector.cost), results)


def _reported_cost(config: Config, cost: int | None) -> int | None:
    """The cost as the oracle reports it: in NewExpressions it leaves out a MaxCost of
    MaxUint64 (an estimate without bound, which the apiserver rejects as too complex)."""
    return None if not config.stored and cost == 2**64 - 1 else cost


# --- where the oracle is not the release it emulates -------------------------------------------

EMULATED_RELEASE = "emulated-release"


@dataclass(frozen=True)
class EmulationGap:
    """A kind of case where the oracle, the 1.36 code emulating an older release, answers what
    that release's own code does not: dractl follows the release, so the case is no wrong answer
    of dractl's. It is listed in the ledger under ``emulated-release`` and counted apart from the
    agreement rates. Each gap names the upstream source that shows the release's own answer."""

    name: str
    source: str
    releases: tuple[str, ...]
    #: dractl's compile error consists of these errors only (one per line ``ERROR: <input>:L:C: ...``).
    only_compile_error: re.Pattern[str]

    def explains(self, config: Config | None, case: dict[str, Any], answer: Answer) -> bool:
        if config is None or config.release not in self.releases:
            return False
        if case["compile_error"] is not None or answer.compile_error is None:
            return False
        errors = re.findall(r"^(?:compilation failed: )?ERROR: (.*)$", answer.compile_error, re.MULTILINE)
        return bool(errors) and all(self.only_compile_error.fullmatch(error) for error in errors)


EMULATION_GAPS = (
    EmulationGap(
        "includes-before-1.36",
        "k8s.io/dynamic-resource-allocation cel/compile.go declares includes() from v0.36.0 on (KEP-5491, "
        "commit f166b00, gate DRAListTypeAttributes); v0.34.0-v0.34.9 and v0.35.0-v0.35.6 declare no "
        "includes, so no 1.34 or 1.35 environment has it. The oracle's emulated StoredExpressions "
        "environment takes every option of the 1.36 code, includes with it.",
        ("1.34", "1.35"),
        re.compile(r"<input>:\d+:\d+: undeclared reference to 'includes' \(in container ''\)"),
    ),
)


# --- comparing ---------------------------------------------------------------------------------

#: Kinds of difference; the first four are wrong answers, the others wrong wording or cost.
SEMANTIC = ("crash", "compile-verdict", "verdict", "value")
KINDS = (*SEMANTIC, "compile-message", "error-message", "cost")


@dataclass
class Comparison:
    case: dict[str, Any]
    answer: Answer
    kinds: list[str] = field(default_factory=list)
    #: The EmulationGap that explains the difference: the oracle is not the release it emulates.
    emulation_gap: str | None = None

    @property
    def category(self) -> str:
        """The ledger category: the case's topic for a wrong answer, else the wording or cost."""
        if "crash" in self.kinds:
            return "crash"
        if self.emulation_gap:
            return EMULATED_RELEASE
        if any(kind in SEMANTIC for kind in self.kinds):
            return str(self.case["topic"])
        return "error-text" if "cost" not in self.kinds or len(self.kinds) > 1 else "cost"

    def describe(self) -> str:
        case, answer = self.case, self.answer
        lines = [f"{case['id']} [{self.category}] {', '.join(self.kinds)}: {case['expr']}"]
        if self.emulation_gap:
            lines.append(f"    the oracle emulates an older release with newer code: {self.emulation_gap}")
        if answer.crashed:
            lines.append(f"    dractl crashed: {answer.crashed}")
        if (case["compile_error"] is None) != (answer.compile_error is None) or "compile-message" in self.kinds:
            lines.append(f"    upstream compile: {case['compile_error']!r}")
            lines.append(f"    dractl compile:   {answer.compile_error!r}")
        if "cost" in self.kinds:
            lines.append(f"    cost: upstream {case['cost']}, dractl {answer.cost}")
        if answer.compile_error is None and case["compile_error"] is None:
            for index, (want, got) in enumerate(zip(case["results"], answer.results, strict=False)):
                if want != got or type(want) is not type(got):
                    lines.append(f"    device {index}: upstream {want!r}, dractl {got!r}")
        return "\n".join(lines)


def compare(case: dict[str, Any], answer: Answer, *, with_cost: bool, config: Config | None = None) -> Comparison:
    """How dractl's answer differs from the oracle's; ``config`` (the case's configuration) lets
    a difference be explained by an EmulationGap."""
    found = Comparison(case, answer)
    kinds = found.kinds
    if answer.crashed:
        kinds.append("crash")
        return found
    want_error, got_error = case["compile_error"], answer.compile_error
    if (want_error is None) != (got_error is None):
        kinds.append("compile-verdict")
        found.emulation_gap = next((gap.name for gap in EMULATION_GAPS if gap.explains(config, case, answer)), None)
        return found
    if want_error is not None:
        if want_error != got_error:
            kinds.append("compile-message")
        return found
    if with_cost and answer.cost is not None and answer.cost != case["cost"]:
        kinds.append("cost")
    wanted, got = case["results"], answer.results
    if len(wanted) != len(got):
        raise AssertionError(f"{case['id']}: {len(got)} devices, the corpus has {len(wanted)}")
    for want, have in zip(wanted, got, strict=True):
        want_is_error, have_is_error = isinstance(want, str), isinstance(have, str)
        if want_is_error != have_is_error:
            kinds.append("verdict")
        elif not want_is_error and want is not have:
            kinds.append("value")
        elif want_is_error and want != have:
            kinds.append("error-message")
    found.kinds = sorted(set(kinds), key=KINDS.index)
    return found


def compare_corpus(engine: str, corpora: Sequence[Corpus]) -> list[Comparison]:
    with_cost = engine == "cel-expr-python"
    comparisons = []
    for corpus in corpora:
        for case in corpus.cases:
            comparisons.append(compare(case, dractl_answer(corpus.config, corpus.slices_file, case["expr"], engine),
                                       with_cost=with_cost, config=corpus.config))
    return comparisons


# --- agreement rates ---------------------------------------------------------------------------


def rates(comparisons: Sequence[Comparison]) -> dict[str, tuple[int, int]]:
    """Agreement as (agreeing, total) per measure, the measures of the issue's "done when":

    - compile verdicts: every case, compiled on both sides or rejected on both;
    - verdicts: cases compiled on both sides whose every device is value on both or error on both;
    - values: of those, cases whose every device with a value on both sides has the same value;
    - error messages: cases with an error on both sides (compile, or a device) whose texts agree;
    - cost: cases compiled on both sides with a cost estimate from dractl, same cost.

    A case an EmulationGap explains is in none of them (``format_rates`` counts those apart): the
    oracle's answer there is not the emulated release's.
    """
    counts: dict[str, list[int]] = {m: [0, 0] for m in ("compile verdicts", "verdicts", "values", "error messages", "cost")}

    def count(measure: str, agrees: bool) -> None:
        counts[measure][0] += agrees
        counts[measure][1] += 1

    for c in comparisons:
        if c.emulation_gap:
            continue
        if "crash" in c.kinds:
            count("compile verdicts", False)
            continue
        count("compile verdicts", "compile-verdict" not in c.kinds)
        if c.case["compile_error"] is not None and c.answer.compile_error is not None:
            count("error messages", "compile-message" not in c.kinds)
        if c.case["compile_error"] is None and c.answer.compile_error is None:
            count("verdicts", "verdict" not in c.kinds)
            if "verdict" not in c.kinds:
                count("values", "value" not in c.kinds)
            both_error = any(isinstance(w, str) and isinstance(h, str)
                             for w, h in zip(c.case["results"], c.answer.results, strict=False))
            if both_error:
                count("error messages", "error-message" not in c.kinds)
            if c.answer.cost is not None:
                count("cost", "cost" not in c.kinds)
    return {m: (a, t) for m, (a, t) in counts.items()}


def format_rates(engine: str, comparisons: Sequence[Comparison]) -> str:
    parts = []
    for measure, (agree, total) in rates(comparisons).items():
        if total:
            parts.append(f"{measure} {100 * agree / total:.2f}% ({agree}/{total})")
    gaps = Counter(c.emulation_gap for c in comparisons if c.emulation_gap)
    if gaps:
        parts.append("not counted, the oracle emulating an older release with newer code: "
                     + ", ".join(f"{name} {n}" for name, n in sorted(gaps.items())))
    return f"{engine}: {len(comparisons)} cases; " + "; ".join(parts)


def format_categories(comparisons: Iterable[Comparison]) -> str:
    by_category = Counter(c.category for c in comparisons if c.kinds)
    return ", ".join(f"{category} {n}" for category, n in by_category.most_common()) or "none"


# --- ledgers of known differences --------------------------------------------------------------

LEDGERS = {"cel-expr-python": HERE / "known-differences-cel-expr.txt",
           "cel-python": HERE / "known-differences-cel-python.txt"}


def read_ledger(path: Path) -> dict[str, str]:
    """Case id → category, from lines ``<id> <category>  # note``."""
    ledger: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path.name}:{number}: expected '<case id> <category>', got {raw!r}")
        if parts[0] in ledger:
            raise ValueError(f"{path.name}:{number}: {parts[0]} is listed twice")
        ledger[parts[0]] = parts[1]
    return ledger


def write_ledger(path: Path, engine: str, comparisons: Iterable[Comparison], keep: dict[str, str]) -> None:
    """The ledger of the current differences; a listed case keeps its category."""
    lines = [
        f"# Known differences of the {engine} engine from the upstream oracle, one case per line:",
        "# <case id> <category>  # what differs: the expression. The test fails for a case that",
        "# differs and is not listed, and for a listed case that agrees (remove it from the ledger).",
        "# Regenerate with: python scripts/cel_differential.py compare --write-ledgers",
    ]
    def category(c: Comparison) -> str:
        # The emulated-release category follows from the case, never from the old ledger.
        kept = keep.get(c.case["id"], c.category)
        return c.category if c.emulation_gap or kept == EMULATED_RELEASE else kept

    for c in sorted((c for c in comparisons if c.kinds), key=lambda c: (category(c), c.case["id"])):
        expr = c.case["expr"].replace("\n", " ")
        if len(expr) > 90:
            expr = expr[:87] + "..."
        kinds = ",".join(c.kinds) + (f" ({c.emulation_gap})" if c.emulation_gap else "")
        lines.append(f"{c.case['id']} {category(c)}  # {kinds}: {expr}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def by_category(comparisons: Iterable[Comparison]) -> Iterator[tuple[str, list[Comparison]]]:
    groups: dict[str, list[Comparison]] = {}
    for c in comparisons:
        if c.kinds:
            groups.setdefault(c.category, []).append(c)
    yield from sorted(groups.items(), key=lambda item: -len(item[1]))
