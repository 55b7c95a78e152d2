"""``dractl convert`` over 1,000 mixed files: files per second.

Run from the repository root: ``python benchmarks/convert.py [--files N] [--to VERSION]``.
The files are copies of every file in ``examples/`` (v1beta1, v1beta2 and v1; YAML and JSON;
single and multi-document; good and bad), repeated until there are N of them, in a temporary
folder. It prints files per second (wall clock and CPU) for:

* loading alone (what every dractl command pays);
* loading and converting (what ``--check`` and ``--diff`` do);
* loading, converting and writing the changed files atomically (what ``-w`` does).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dractl.convert.engine import Options, convert_loaded  # noqa: E402
from dractl.convert.writer import write_atomic  # noqa: E402
from dractl.load import load_paths  # noqa: E402


def make_files(folder: Path, count: int) -> list[Path]:
    sources = sorted(
        p for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".yml", ".json")
    )
    files = []
    for index in range(count):
        source = sources[index % len(sources)]
        target = folder / f"{index:05d}-{source.name}"
        shutil.copyfile(source, target)
        files.append(target)
    return files


def timed(label: str, files: int, run: Callable[[], object]) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<34} {files / wall:8.0f} files/s   {files / cpu:8.0f} files/s of CPU")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--to", default="v1", choices=("v1", "v1beta2", "v1beta1"))
    args = parser.parse_args()
    options = Options(args.to)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = [str(p) for p in make_files(folder, args.files)]
        timed("load", args.files, lambda: load_paths(paths))
        results = timed(
            "load + convert", args.files, lambda: convert_loaded(load_paths(paths), options)
        )
        statuses = Counter(r.status.value for r in results)  # type: ignore[attr-defined]

        def convert_and_write() -> None:
            for result in convert_loaded(load_paths(paths), options):
                if result.changed and result.source.real_path:
                    write_atomic(result.source.real_path, result.text)

        timed("load + convert + write (-w)", args.files, convert_and_write)
    print(
        f"{args.files} files from {len({Path(p).name.split('-', 1)[1] for p in paths})} examples "
        f"to {args.to}: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
    )


if __name__ == "__main__":
    main()
