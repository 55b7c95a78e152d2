"""Differential testing of dractl's CEL engines against the upstream compiler (dra-upstream cel).

Run from the repository root:

    python scripts/cel_differential.py corpus                 # regenerate tests/cel/differential/
    python scripts/cel_differential.py compare [--engine E] [--write-ledgers] [-v]
    python scripts/cel_differential.py campaign [--seeds 1-50] [--per-topic 20] [--engine E]

``corpus`` needs the oracle (``../shared/oracle/bin/dra-upstream`` beside the repository, or
``$DRA_UPSTREAM``); it writes the slice files and one JSON-lines file of the oracle's answers per
configuration. ``compare`` runs the engines on the stored corpus (no oracle needed) and prints
the agreement rates and the differences by category; ``--write-ledgers`` rewrites the ledgers of
known differences from what it found. ``campaign`` generates fresh cases for many seeds, asks
the oracle and the engines, and prints the disagreements grouped by category.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "cel" / "differential"))

import cel_generator  # noqa: E402
import cel_harness  # noqa: E402

CORPUS_COMMAND = "python scripts/cel_differential.py corpus"


def _seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds.extend(range(int(first), int(last or first) + 1))
    return seeds


def _topics(config: cel_harness.Config) -> tuple[str, ...]:
    return config.topics or tuple(cel_generator.TOPICS)


def generate_cases(config: cel_harness.Config, seed: int | str, per_topic: int,
                   only: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(topic, expression) pairs, each expression once; ``only``: of these topics alone."""
    seen: set[str] = set()
    cases = []
    for topic in _topics(config):
        if only and topic not in only:
            continue
        count = per_topic * (4 if topic == "list-attributes" and config.slices == "lists" else 1)
        if topic in cel_generator.SLOW_TOPICS:
            limit, configs = cel_generator.SLOW_TOPICS[topic]
            if config.name not in configs:
                continue
            count = min(count, limit)
        count = min(count, cel_generator.TOPIC_LIMITS.get(topic, count))
        for expression in cel_generator.expressions(f"{seed}:{config.name}", topic, count):
            if expression not in seen:
                seen.add(expression)
                cases.append((topic, expression))
    return cases


def write_slices(seed: int, directory: Path) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for kind in cel_generator.SLICE_KINDS:
        path = directory / f"{kind}.yaml"
        path.write_text(cel_generator.slices_yaml(seed, kind), encoding="utf-8")
        paths[kind] = path
    return paths


def command_corpus(args: argparse.Namespace) -> int:
    reason = cel_harness.oracle_unavailable()
    if reason:
        print(f"cel_differential: {reason}", file=sys.stderr)
        return 2
    stored = {corpus.config.name: corpus.cases for corpus in cel_harness.load_corpus()} if not args.fresh else {}
    slices = write_slices(cel_harness.SEED, cel_harness.SLICES)
    total = 0
    for config in cel_harness.CONFIGS.values():
        cases = generate_cases(config, cel_harness.SEED, config.per_topic)
        if not args.fresh:
            # Keep every case of the stored corpus (its id and the ledgers' lines stay valid when
            # the generator changes); new cases come after them.
            kept = [(case["topic"], case["expr"]) for case in stored.get(config.name, [])]
            known = {expr for _, expr in kept}
            cases = kept + [(topic, expr) for topic, expr in cases if expr not in known]
        topics = dict((expr, topic) for topic, expr in cases)
        kept_records = {case["expr"]: case for case in stored.get(config.name, [])} if args.only_new else {}
        asked = [expr for _, expr in cases if expr not in kept_records]
        answered = {a["expr"]: cel_harness.record_of(config, topics[a["expr"]], a)
                    for a in cel_harness.run_oracle(config, slices[config.slices], asked)}
        records = [kept_records.get(expr) or answered[expr] for _, expr in cases]
        path = cel_harness.write_corpus(config, slices[config.slices], records, CORPUS_COMMAND)
        total += len(records)
        print(f"{path.relative_to(ROOT)}: {len(records)} cases")
    print(f"{total} cases")
    return 0


def _report(engine: str, comparisons: list[cel_harness.Comparison], verbose: bool, limit: int) -> None:
    print(cel_harness.format_rates(engine, comparisons))
    for category, group in cel_harness.by_category(comparisons):
        print(f"  {category}: {len(group)}")
        for comparison in group[: (len(group) if verbose else limit)]:
            print("    " + comparison.describe().replace("\n", "\n    "))


def _engines(name: str | None) -> list[str]:
    from dractl.cel.engines import ENGINES, engine_available

    chosen = [name] if name else list(ENGINES)
    return [e for e in chosen if engine_available(e)]


def command_compare(args: argparse.Namespace) -> int:
    corpora = cel_harness.load_corpus()
    for engine in _engines(args.engine):
        comparisons = cel_harness.compare_corpus(engine, corpora)
        _report(engine, comparisons, args.verbose, args.examples)
        if args.write_ledgers:
            path = cel_harness.LEDGERS[engine]
            keep = cel_harness.read_ledger(path) if path.exists() else {}
            cel_harness.write_ledger(path, engine, comparisons, keep)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


def command_campaign(args: argparse.Namespace) -> int:
    import tempfile

    reason = cel_harness.oracle_unavailable()
    if reason:
        print(f"cel_differential: {reason}", file=sys.stderr)
        return 2
    configs = [cel_harness.CONFIGS[name] for name in args.config] if args.config else list(cel_harness.CONFIGS.values())
    engines = _engines(args.engine)
    found: dict[str, list[cel_harness.Comparison]] = {engine: [] for engine in engines}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in _seeds(args.seeds):
            slices = write_slices(seed, Path(tmp) / str(seed))
            for config in configs:
                cases = generate_cases(config, seed, args.per_topic, args.topic or ())
                if not cases:
                    continue
                topics = dict((expr, topic) for topic, expr in cases)
                answers = cel_harness.run_oracle(config, slices[config.slices], [expr for _, expr in cases])
                for answer in answers:
                    record = cel_harness.record_of(config, topics[answer["expr"]], answer)
                    record["id"] = f"{seed}/{config.name}/{record['id']}"
                    for engine in engines:
                        mine = cel_harness.dractl_answer(config, slices[config.slices], answer["expr"], engine)
                        found[engine].append(cel_harness.compare(record, mine, with_cost=engine == "cel-expr-python",
                                                                 config=config))
            print(f"seed {seed} done", file=sys.stderr)
    for engine in engines:
        _report(engine, found[engine], args.verbose, args.examples)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    corpus = sub.add_parser("corpus", help="regenerate the stored corpus with the oracle")
    corpus.add_argument("--fresh", action="store_true",
                        help="only the generator's cases (default: also keep every case of the stored corpus)")
    corpus.add_argument("--only-new", action="store_true",
                        help="keep the stored answers as they are; ask the oracle only about cases the corpus lacks")
    compare = sub.add_parser("compare", help="compare the engines with the stored corpus")
    campaign = sub.add_parser("campaign", help="fresh cases for many seeds against the oracle")
    for p in (compare, campaign):
        p.add_argument("--engine", choices=("cel-expr-python", "cel-python"))
        p.add_argument("-v", "--verbose", action="store_true", help="every difference, not a few per category")
        p.add_argument("--examples", type=int, default=3, help="differences shown per category (default 3)")
    compare.add_argument("--write-ledgers", action="store_true", help="rewrite the known-differences ledgers")
    campaign.add_argument("--seeds", default="1-20", help="seeds, e.g. 1-50 or 3,7,9 (default 1-20)")
    campaign.add_argument("--per-topic", type=int, default=10, help="expressions per topic and configuration")
    campaign.add_argument("--topic", action="append", choices=sorted(cel_generator.TOPICS),
                          help="only this topic's expressions (repeatable; default: every topic)")
    campaign.add_argument("--config", action="append", choices=sorted(cel_harness.CONFIGS),
                          help="only this configuration (repeatable)")
    args = parser.parse_args(argv)
    handler = {"corpus": command_corpus, "compare": command_compare, "campaign": command_campaign}[args.command]
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
