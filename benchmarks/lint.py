"""``dractl lint`` over many files, and on one small file (the pre-commit case).

Run from the repository root: ``python benchmarks/lint.py [--documents N] [--repeat R]``.

The many-files case writes the DRA documents of ``examples/good`` and ``examples/bad``
(every kind, every API version, CEL selectors, some with mistakes), the DeviceClasses once and
the others repeated and renamed until there are N, one to three documents per file, into a
temporary folder. It prints the best of R
wall times, each a fresh process as a user runs it, of:

* ``load``: Python reading every file with ruamel.yaml's round-trip loader and nothing else
  (the floor any YAML linter that keeps positions and comments pays);
* ``dractl lint``: the whole command, text report written to /dev/null;
* the ratio of the two (goal: at most 1.5);

and, for one small file, ``python -c "import ruamel.yaml"`` against ``dractl lint FILE``
(goal: at most 2x). A profile of the in-process lint, stage by stage, follows.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dractl.lint.parallel import default_jobs  # noqa: E402

LOAD_ONLY = """
import sys
from pathlib import Path
from ruamel.yaml import YAML
for name in sorted(Path(sys.argv[1]).rglob("*.yaml")):
    yaml = YAML(typ="rt")
    list(yaml.load_all(name.read_text(encoding="utf-8")))
"""


def documents() -> list[str]:
    out = []
    for folder in ("good", "bad"):
        for path in sorted((ROOT / "examples" / folder).glob("*.yaml")):
            for chunk in path.read_text(encoding="utf-8").split("\n---"):
                text = chunk.strip().removeprefix("---").strip()
                if "resource.k8s.io/" in text and "kind:" in text:
                    out.append(text)
    return out


def write_corpus(folder: Path, count: int) -> int:
    """``count`` documents in files of 1-3 documents; returns the number of files.

    DeviceClasses are written once each (a repository has a few classes and many claims, slices
    and templates); every other document is repeated with a new ``metadata.name``.
    """
    sources = documents()
    classes = [d for d in sources if "\nkind: DeviceClass" in "\n" + d]
    others = [d for d in sources if d not in classes]
    texts = classes[:count]
    i = 0
    while len(texts) < count:
        texts.append(others[i % len(others)].replace("  name: ", f"  name: copy{i}-", 1))
        i += 1
    files = 0
    while texts:
        chunk, texts = texts[: 1 + files % 3], texts[1 + files % 3 :]
        sub = folder / f"team-{files % 20:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"manifest-{files:04d}.yaml").write_text("\n---\n".join(chunk) + "\n")
        files += 1
    return files


PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)


def wall(command: list[str], repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (user + system, children included) of ``repeat`` runs.

    Byte code is cached (in a temporary folder) and one unmeasured run comes first, as for an
    installed package: compiling dractl's modules would otherwise be counted in every run.
    """
    import resource

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONPYCACHEPREFIX=PYCACHE)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def profile(folder: Path) -> None:
    from dractl.api.model import build_all
    from dractl.lint.engine import Settings, lint
    from dractl.load import load_paths
    from dractl.report import ReportContext
    from dractl.report.text import report

    start = time.perf_counter()
    load_paths([str(folder)])
    round_trip_seconds = time.perf_counter() - start
    start = time.perf_counter()
    loaded = load_paths([str(folder)], comments=False)
    load_seconds = time.perf_counter() - start
    start = time.perf_counter()
    build_all(loaded.objects)
    build_seconds = time.perf_counter() - start
    start = time.perf_counter()
    result = lint(loaded, Settings(), jobs=1)
    lint_seconds = time.perf_counter() - start
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        report(result, ReportContext(loaded), sink)
    report_seconds = time.perf_counter() - start
    print(f"  load, round-trip reader   {round_trip_seconds:7.2f} s   (comments kept: convert, select)")
    print(f"  load, libyaml reader      {load_seconds:7.2f} s   (lint, explain)")
    print(f"  build model (once more)   {build_seconds:7.2f} s   (lint builds it itself)")
    print(f"  lint, one process         {lint_seconds:7.2f} s")
    print(f"  text report               {report_seconds:7.2f} s   ({len(result.diagnostics)} diagnostics)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    python = sys.executable
    lint_cmd = [python, "-m", "dractl", "lint", "--no-config"]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "manifests"
        folder.mkdir()
        files = write_corpus(folder, args.documents)
        print(f"{args.documents} documents in {files} files, best of {args.repeat} runs")
        print(f"{'':34}{'wall':>8}{'ratio':>7}{'CPU':>9}{'ratio':>7}")
        load = wall([python, "-c", LOAD_ONLY, str(folder)], args.repeat)
        rows = [("load with ruamel.yaml rt", load)]
        rows.append((f"dractl lint (-j {default_jobs()}, default)", wall([*lint_cmd, str(folder)], args.repeat)))
        rows.append(("dractl lint -j 1", wall([*lint_cmd, "-j", "1", str(folder)], args.repeat)))
        for label, (w, c) in rows:
            print(f"  {label:32}{w:7.2f}s{w / load[0]:7.2f}{c:8.2f}s{c / load[1]:7.2f}")
        print("  goal: dractl lint at most 1.5x the load")

        small = ROOT / "examples" / "good" / "claim-gpu-v1.yaml"
        # the same size, no CEL selector: no CEL engine to import
        no_cel = ROOT / "examples" / "good" / "resourceslice-gpu-node-v1.yaml"
        runs = max(args.repeat, 5)
        imports = wall([python, "-c", "import ruamel.yaml"], runs)
        print(f"one small file ({small.relative_to(ROOT)}), best of {runs} runs")
        rows = [
            ("python -c 'import ruamel.yaml'", imports),
            ("dractl lint FILE", wall([*lint_cmd, str(small)], runs)),
            ("dractl lint FILE without CEL", wall([*lint_cmd, str(no_cel)], runs)),
            ("dractl --version", wall([python, "-m", "dractl", "--version"], runs)),
            ("python -c pass", wall([python, "-c", "pass"], runs)),
        ]
        for label, (w, c) in rows:
            print(f"  {label:32}{w:7.3f}s{w / imports[0]:7.2f}{c:8.3f}s{c / imports[1]:7.2f}")
        print("  goal: dractl lint FILE at most 2x importing ruamel.yaml")

        if not args.no_profile:
            print("in-process stages, many files")
            profile(folder)


if __name__ == "__main__":
    main()
