"""Microseconds per selector evaluation over 10,000 devices, per CEL engine; and the selectors
at cel-go's limits.

Run from the repository root: ``python benchmarks/cel.py [--devices N] [--limits]``. For each
engine it prints the first pass (which includes converting every device to the engine's values
once) and a second pass (conversion cached), for three typical selectors: wall-clock time and
the CPU time of this process (the steadier figure on a shared machine).

``--limits`` also times, per engine, compiling expressions at cel-go's parser limits (100,000
characters, nesting 250 deep; each was quadratic or crashed before issue 25) and evaluating
selectors that build large values (the issue's lists of lists, cheap upstream; and selectors
upstream cancels for their actual cost) on 20 devices, with the peak memory of the process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dractl.cel import CelCompileError, CelDevice, compile_selector
from dractl.cel.engines import ENGINES, engine_available

SELECTORS = {
    "driver and model": 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100"',
    "int attributes": 'device.attributes["gpu.example.com"].cores >= 100 && device.attributes["gpu.example.com"].numa == 1',
    "quantity compare": 'device.capacity["gpu.example.com"].memory.compareTo(quantity("32Gi")) >= 0',
}


def make_devices(count: int) -> list[CelDevice]:
    return [
        CelDevice(
            driver="gpu.example.com",
            attributes={
                "model": {"string": "A100" if i % 2 else "H100"},
                "cores": {"int": i % 200},
                "numa": {"int": i % 4},
                "driverVersion": {"version": f"1.{i % 7}.0"},
            },
            capacity={"memory": {"value": "40Gi" if i % 3 else "16Gi"}},
        )
        for i in range(count)
    ]


def bench(engine: str, count: int) -> None:
    try:
        selectors = {
            name: compile_selector(expr, release="1.35", purpose="stored", engine=engine)
            for name, expr in SELECTORS.items()
        }
    except CelCompileError as exc:
        print(f"{engine}: cannot compile the benchmark selectors: {exc.detail}")
        return
    devices = make_devices(count)
    wall, cpu = time.perf_counter(), time.process_time()
    for device in devices:
        for selector in selectors.values():
            selector.evaluate(device)
    evaluations = count * len(selectors)
    first_wall = (time.perf_counter() - wall) / evaluations * 1e6
    first_cpu = (time.process_time() - cpu) / evaluations * 1e6
    print(
        f"{engine}: {'first pass, conversion included':<34} {first_wall:8.1f} µs wall {first_cpu:8.1f} µs CPU"
        " per evaluation"
    )
    for name, selector in selectors.items():
        wall, cpu = time.perf_counter(), time.process_time()
        for device in devices:
            selector.evaluate(device)
        per_wall = (time.perf_counter() - wall) / count * 1e6
        per_cpu = (time.process_time() - cpu) / count * 1e6
        print(
            f"{engine}:   {name:<32} {per_wall:8.1f} µs wall {per_cpu:8.1f} µs CPU per evaluation"
        )


L = "lists.range(3000)"
#: Expressions at cel-go's parser limits: compiled (each one is a compile error or compiles).
LIMIT_EXPRESSIONS = {
    "100,000 spaces": " " * 100_000,
    "99,996 spaces, then true": " " * 99_996 + "true",
    "sum of 25,000 ones (too long)": "1 + " * 25_000 + "1 == 1",
    "sum of 12,000 ones (too deep)": "1 + " * 12_000 + "1 == 1",
    "5,000 parentheses (too deep)": "(" * 5_000 + "true" + ")" * 5_000,
    "200 parentheses": "(" * 200 + "true" + ")" * 200,
}
#: Selectors that build large values (evaluated on 20 devices).
LARGE_SELECTORS = {
    "l.map(x, l), 3,000 elements": f"cel.bind(l, {L}, l.map(x, l).size() > 0)",
    "the same, nested three times": (
        f"cel.bind(l, {L}, cel.bind(m, l.map(x, l), "
        "cel.bind(n, m.map(y, m), n.map(z, n).size() > 0)))"
    ),
    "l.map(x, l.map(y, l)) (cancelled)": f"cel.bind(l, {L}, l.map(x, l.map(y, l)).size() > 0)",
    "a string doubled 25 times (cancelled)": "".join(
        f"cel.bind(v{i + 1}, v{i} + v{i}, " for i in range(25)
    ).join(["cel.bind(v0, 'xxxxxxxx', ", ""])
    + "v25.size() > 0"
    + ")" * 26,
}


def bench_limits(engine: str) -> None:
    import resource

    from dractl.cel import CelRuntimeError

    for name, expression in LIMIT_EXPRESSIONS.items():
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            compile_selector(expression, release="1.36", purpose="stored", engine=engine)
            outcome = "compiles"
        except CelCompileError as exc:
            outcome = exc.errors[0].message[:40] if exc.errors else exc.detail[:40]
        print(
            f"{engine}:   compile {name:<32} {(time.perf_counter() - wall) * 1e3:8.1f} ms wall "
            f"{(time.process_time() - cpu) * 1e3:8.1f} ms CPU  {outcome}"
        )
    devices = make_devices(20)
    for name, expression in LARGE_SELECTORS.items():
        selector = compile_selector(expression, release="1.36", purpose="stored", engine=engine)
        wall, cpu = time.perf_counter(), time.process_time()
        outcome = ""
        for device in devices:
            try:
                outcome = str(selector.evaluate(device))
            except CelRuntimeError as exc:
                outcome = exc.message[:40]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(
            f"{engine}:   evaluate {name:<39} {(time.perf_counter() - wall) * 1e3 / len(devices):8.1f} ms wall "
            f"{(time.process_time() - cpu) * 1e3 / len(devices):8.1f} ms CPU per device, peak {peak} MB  {outcome}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--engine", choices=ENGINES, action="append")
    parser.add_argument(
        "--limits", action="store_true", help="also time the expressions at cel-go's limits"
    )
    args = parser.parse_args()
    for engine in args.engine or ENGINES:
        if not engine_available(engine):
            print(f"{engine}: not installed")
            continue
        try:
            bench(engine, args.devices)
            if args.limits:
                bench_limits(engine)
        except Exception as exc:  # an engine that cannot run the benchmark is reported, not fatal
            print(f"{engine}: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
