"""Microseconds per selector evaluation over 10,000 devices, per CEL engine.

Run from the repository root: ``python benchmarks/cel.py [--devices N]``. For each engine it
prints the first pass (which includes converting every device to the engine's values once) and
a second pass (conversion cached), for three typical selectors: wall-clock time and the CPU time
of this process (the steadier figure on a shared machine).
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
        selectors = {name: compile_selector(expr, release="1.35", purpose="stored", engine=engine)
                     for name, expr in SELECTORS.items()}
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
    print(f"{engine}: {'first pass, conversion included':<34} {first_wall:8.1f} µs wall {first_cpu:8.1f} µs CPU"
          " per evaluation")
    for name, selector in selectors.items():
        wall, cpu = time.perf_counter(), time.process_time()
        for device in devices:
            selector.evaluate(device)
        per_wall = (time.perf_counter() - wall) / count * 1e6
        per_cpu = (time.process_time() - cpu) / count * 1e6
        print(f"{engine}:   {name:<32} {per_wall:8.1f} µs wall {per_cpu:8.1f} µs CPU per evaluation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--engine", choices=ENGINES, action="append")
    args = parser.parse_args()
    for engine in args.engine or ENGINES:
        if not engine_available(engine):
            print(f"{engine}: not installed")
            continue
        try:
            bench(engine, args.devices)
        except Exception as exc:  # an engine that cannot run the benchmark is reported, not fatal
            print(f"{engine}: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
