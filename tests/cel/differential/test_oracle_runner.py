"""How the harness asks the upstream oracle: every expression in a process of its own.

Upstream's answer to an expression can depend on the expressions the same process evaluated
before (``add()``/``sub()`` change a device's decimal capacity in place), so a stored answer is
only the answer to its case when nothing ran before it. A stand-in oracle that remembers what it
was asked shows whether the harness shares processes between expressions; no real oracle is
needed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cel_harness
import pytest

# Answers true on every device for the first expression a process is given and false for the
# ones after it, and echoes its arguments, so the test sees history and flags.
FAKE_ORACLE = """\
import json, sys
args = sys.argv[1:]
assert args[args.index("-exprs") + 1] == "-", args
expressions = json.load(sys.stdin)
for index, expr in enumerate(expressions):
    print(json.dumps({"expr": expr, "compile_error": None, "cost": 1, "argv": args,
                      "devices": [{"driver": "d", "pool": "p", "device": "x", "result": index == 0, "error": None}]}))
"""


@pytest.fixture
def fake_oracle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "oracle.py"
    script.write_text(FAKE_ORACLE, encoding="utf-8")
    launcher = tmp_path / "dra-upstream"
    launcher.write_text(f"#!/bin/sh\nexec {json.dumps(sys.executable)} {json.dumps(str(script))} \"$@\"\n",
                        encoding="utf-8")
    launcher.chmod(0o755)
    monkeypatch.setenv(cel_harness.ORACLE_ENV, str(launcher))
    return launcher


@pytest.mark.parametrize("jobs", [1, 3])
def test_every_expression_is_answered_by_a_fresh_process(fake_oracle: Path, jobs: int) -> None:
    config = cel_harness.CONFIGS["1.36-lists-stored"]
    expressions = ["device.driver == 'a'", "-1 < 0", 'device.attributes["x"].y == "\\u0000"', "true"]
    answers = cel_harness.run_oracle(config, cel_harness.SLICES / "lists.yaml", expressions, jobs=jobs)
    assert [a["expr"] for a in answers] == expressions, "in input order, each expression unchanged"
    assert [a["devices"][0]["result"] for a in answers] == [True] * len(expressions), \
        "an expression was evaluated after another one in the same oracle process"
    argv = answers[0]["argv"]
    assert argv[:1] == ["cel"] and "-stored" in argv and "DRAListTypeAttributes=true" in ",".join(argv)


def test_a_failing_oracle_names_the_expression(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "dra-upstream"
    broken.write_text("#!/bin/sh\necho 'unusable input' >&2\nexit 2\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setenv(cel_harness.ORACLE_ENV, str(broken))
    with pytest.raises(RuntimeError, match=r"the oracle failed \(2\) on 'true': unusable input"):
        cel_harness.run_oracle(cel_harness.CONFIGS["1.36-new"], cel_harness.SLICES / "scalars.yaml", ["true"])
