"""Schema checks over 2,000 DRA documents: compiled checker, jsonschema, and the DRA01x rules.

Run from the repository root: ``python benchmarks/schema.py [--documents N] [--release R]``.
The documents are the DRA objects of ``examples/`` repeated (each copy renamed) until there are
N of them, written as one multi-document YAML file. It prints, in seconds:

* the compiled checker's verdict on every object (what lint runs on every object);
* full jsonschema validation of every object (what lint runs only on the rejected ones);
* ``dractl lint --select DRA01`` on the file, loading included, and the loading alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsonschema import Draft7Validator

from dractl.api.decoding import author_data, compiled_schema
from dractl.api.model import build_all
from dractl.api.releases import Features
from dractl.api.schemas import load_schema
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths

ROOT = Path(__file__).resolve().parent.parent


def corpus(count: int) -> str:
    sources = [p for p in sorted((ROOT / "examples").rglob("*.yaml")) if "bad" not in p.parts]
    documents: list[str] = []
    for path in sources:
        for chunk in path.read_text().split("\n---"):
            if "resource.k8s.io/" in chunk and "kind:" in chunk:
                documents.append(chunk.strip().removeprefix("---").strip())
    out = []
    for i in range(count):
        text = documents[i % len(documents)]
        out.append(text.replace("  name: ", f"  name: copy{i}-", 1))
    return "\n---\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--release", default="1.36")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dra.yaml"
        path.write_text(corpus(args.documents))

        start = time.perf_counter()
        loaded = load_paths([str(path)])
        load_seconds = time.perf_counter() - start
        objects = [o for o in build_all(loaded.objects) if o.dra]
        data = [(o.version, o.kind, author_data(o)) for o in objects]

        start = time.perf_counter()
        checkers = {(v, k): compiled_schema(args.release, v, k) for v, k, _ in data}
        compile_seconds = time.perf_counter() - start
        start = time.perf_counter()
        accepted = sum(1 for v, k, d in data if checkers[(v, k)][1](d))  # type: ignore[index]
        checker_seconds = time.perf_counter() - start

        validators = {key: Draft7Validator(load_schema(args.release, *key)) for key in checkers}
        start = time.perf_counter()
        for v, k, d in data:
            validators[(v, k)].is_valid(d)
        jsonschema_seconds = time.perf_counter() - start

        settings = Settings(features=Features(args.release), select=("DRA01",))
        start = time.perf_counter()
        lint(load_paths([str(path)]), settings)
        lint_seconds = time.perf_counter() - start

    print(f"{len(data)} DRA objects, Kubernetes {args.release}, {accepted} accepted by the checker")
    print(f"compile the schemas:             {compile_seconds:7.3f} s")
    print(f"compiled checker, every object:  {checker_seconds:7.3f} s")
    print(f"jsonschema, every object:        {jsonschema_seconds:7.3f} s")
    print(f"load only (ruamel round-trip):   {load_seconds:7.3f} s")
    print(f"lint --select DRA01, with load:  {lint_seconds:7.3f} s")


if __name__ == "__main__":
    main()
