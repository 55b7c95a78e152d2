"""``dractl convert`` end to end: outputs, in-place writes, --check, --diff, exit codes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

CLAIM_V1BETA1 = """\
# a claim
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com  # the class
"""
CLAIM_V1 = """\
# a claim
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com  # the class
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: busybox}]
"""
V1ALPHA3 = """\
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: old}
spec: {devices: {requests: [{name: r, deviceClassName: x}]}}
"""
EMPTY_EXACTLY_V1 = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly: {}
"""
HELM = """\
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata:
  name: {{ .Values.name }}
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="")
    return path


def age(path: Path) -> None:
    """Make the file look old, so a rewrite would show in its mtime."""
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))


def test_prints_the_converted_file(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", str(claim))
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1
    assert claim.read_text() == CLAIM_V1BETA1


def test_reads_stdin(run_dractl) -> None:
    result = run_dractl("convert", "-", stdin=CLAIM_V1BETA1)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1


@pytest.mark.parametrize("text", [CLAIM_V1BETA1, CLAIM_V1], ids=["converted", "unchanged"])
def test_in_place_with_stdin_prints_the_result(run_dractl, text: str) -> None:
    result = run_dractl("convert", "-w", "-", stdin=text)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1


def test_to_v1beta1_goes_back(run_dractl) -> None:
    result = run_dractl("convert", "--to", "v1beta1", "-", stdin=CLAIM_V1)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1BETA1


def test_several_files_print_as_one_stream(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "a.yaml", CLAIM_V1BETA1)
    pod = write(tmp_path / "b.yaml", POD)
    result = run_dractl("convert", str(claim), str(pod))
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1 + "---\n" + POD


def test_in_place_writes_only_changed_files(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    pod = write(tmp_path / "pod.yaml", POD)
    os.chmod(claim, 0o640)
    age(claim)
    age(pod)
    before = pod.stat().st_mtime_ns

    result = run_dractl("convert", "-w", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert claim.read_text() == CLAIM_V1
    assert stat.S_IMODE(claim.stat().st_mode) == 0o640
    assert pod.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claim.yaml", "pod.yaml"]
    assert f"converted {claim}" in result.stderr


def test_in_place_writes_through_symlinks(run_dractl, tmp_path: Path) -> None:
    target = write(tmp_path / "real.yaml", CLAIM_V1BETA1)
    link = tmp_path / "link.yaml"
    link.symlink_to(target.name)
    result = run_dractl("convert", "-w", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert target.read_text() == CLAIM_V1


def test_check_lists_files_and_is_idempotent(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    write(tmp_path / "pod.yaml", POD)
    age(claim)
    before = claim.stat().st_mtime_ns

    result = run_dractl("convert", "--check", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout == f"would convert {claim}\n"
    assert claim.stat().st_mtime_ns == before

    assert run_dractl("convert", "-w", str(tmp_path)).returncode == 0
    again = run_dractl("convert", "--check", str(tmp_path))
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout == ""


def test_diff_is_a_unified_diff(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", "--diff", str(claim))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"--- {claim}\n"
        f"+++ {claim}\n"
        "@@ -1,5 +1,5 @@\n"
        " # a claim\n"
        "-apiVersion: resource.k8s.io/v1beta1\n"
        "+apiVersion: resource.k8s.io/v1\n"
        " kind: ResourceClaim\n"
        " metadata:\n"
        "   name: gpu\n"
        "@@ -7,4 +7,5 @@\n"
        "   devices:\n"
        "     requests:\n"
        "     - name: gpu\n"
        "-      deviceClassName: gpu.example.com  # the class\n"
        "+      exactly:\n"
        "+        deviceClassName: gpu.example.com  # the class\n"
    )


def test_check_with_diff_prints_the_diff(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", "--check", "--diff", str(claim))
    assert result.returncode == 1
    assert "+      exactly:\n" in result.stdout
    assert f"would convert {claim}" in result.stderr


def test_output_file(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    out = tmp_path / "out" / "claim-v1.yaml"
    out.parent.mkdir()
    result = run_dractl("convert", "-o", str(out), str(claim))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert out.read_text() == CLAIM_V1
    assert claim.read_text() == CLAIM_V1BETA1


def test_removed_version_fails_its_file_only(run_dractl, tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", V1ALPHA3)
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", "-w", str(tmp_path))
    assert result.returncode == 2
    assert f"{old}:1:13: error: resource.k8s.io/v1alpha3 ResourceClaim:" in result.stderr
    assert "set apiVersion to resource.k8s.io/v1beta1" in result.stderr
    assert old.read_text() == V1ALPHA3
    assert claim.read_text() == CLAIM_V1


def test_output_file_is_left_alone_when_no_input_converts(run_dractl, tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", V1ALPHA3)
    out = write(tmp_path / "out.yaml", "# the previous output\n")
    result = run_dractl("convert", "-o", str(out), str(old))
    assert result.returncode == 2
    assert out.read_text() == "# the previous output\n"


def test_output_file_gets_the_files_that_convert(run_dractl, tmp_path: Path) -> None:
    old = write(tmp_path / "a-old.yaml", V1ALPHA3)
    claim = write(tmp_path / "b-claim.yaml", CLAIM_V1BETA1)
    out = tmp_path / "out.yaml"
    result = run_dractl("convert", "-o", str(out), str(old), str(claim))
    assert result.returncode == 2
    assert out.read_text() == CLAIM_V1


def test_in_place_goes_on_after_a_file_that_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dractl.convert.writer as writer
    from dractl.cli.testing import invoke
    from dractl.errors import InputError

    first = write(tmp_path / "a.yaml", CLAIM_V1BETA1)
    second = write(tmp_path / "b.yaml", CLAIM_V1BETA1)
    real_write = writer.write_atomic

    def write_atomic(path: str, text: str, **kwargs: object) -> None:
        if Path(path).name == "a.yaml":
            raise InputError(f"{path}: changed on disk while it was being converted; not written")
        real_write(path, text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(writer, "write_atomic", write_atomic)
    result = invoke(["convert", "-w", str(first), str(second)])
    assert result.exit_code == 2
    assert f"dractl: error: {first}: changed on disk" in result.output
    assert first.read_text() == CLAIM_V1BETA1
    assert second.read_text() == CLAIM_V1


def test_lossy_conversion_needs_allow_lossy(run_dractl, tmp_path: Path) -> None:
    claim = write(tmp_path / "claim.yaml", EMPTY_EXACTLY_V1)
    refused = run_dractl("convert", "--to", "v1beta1", "-w", str(claim))
    assert refused.returncode == 1
    assert "lossy: v1beta1 cannot express an `exactly` with no field set" in refused.stderr
    assert claim.read_text() == EMPTY_EXACTLY_V1

    allowed = run_dractl("convert", "--to", "v1beta1", "--allow-lossy", "-w", str(claim))
    assert allowed.returncode == 0, allowed.stderr
    assert f"{claim}:8:7: dropped: v1beta1 cannot express an `exactly`" in allowed.stderr
    assert "exactly" not in claim.read_text()


SLICE_CLASHES_V1BETA1 = """\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: A100}}
    capacity: {memory: {value: 40Gi}}
    basic:
      attributes: {model: {string: H100}}
      capacity: {memory: {value: 80Gi}}
"""


def test_lossy_file_is_not_written_and_the_others_are(run_dractl, tmp_path: Path) -> None:
    lossy = write(tmp_path / "a-slice.yaml", SLICE_CLASHES_V1BETA1)
    claim = write(tmp_path / "b-claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", "-w", str(tmp_path))
    assert result.returncode == 1
    assert lossy.read_text() == SLICE_CLASHES_V1BETA1
    assert claim.read_text() == CLAIM_V1
    assert f"{lossy}:10:5: lossy: v1beta1 has no device field `attributes`" in result.stderr

    printed = run_dractl("convert", str(lossy), str(claim))
    assert printed.returncode == 1
    assert printed.stdout == CLAIM_V1


def test_allow_lossy_reports_each_dropped_field(run_dractl, tmp_path: Path) -> None:
    lossy = write(tmp_path / "slice.yaml", SLICE_CLASHES_V1BETA1)
    result = run_dractl("convert", "--allow-lossy", "-w", str(lossy))
    assert result.returncode == 0, result.stderr
    dropped = [line for line in result.stderr.splitlines() if ": dropped: " in line]
    assert dropped == [
        f"{lossy}:10:5: dropped: v1beta1 has no device field `attributes` next to "
        "`basic.attributes`, which takes its place",
        f"{lossy}:11:5: dropped: v1beta1 has no device field `capacity` next to "
        "`basic.capacity`, which takes its place",
    ]
    text = lossy.read_text()
    assert "A100" not in text and "40Gi" not in text
    assert "H100" in text and "80Gi" in text and "basic" not in text


def test_helm_templates_are_skipped(run_dractl, tmp_path: Path) -> None:
    chart = write(tmp_path / "class.yaml", HELM)
    result = run_dractl("convert", "-w", str(chart))
    assert result.returncode == 0
    assert "skipped: Helm or Go template" in result.stderr
    assert chart.read_text() == HELM


def test_apply_defaults(run_dractl) -> None:
    result = run_dractl("convert", "--apply-defaults", "-", stdin=CLAIM_V1BETA1)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLAIM_V1 + "        allocationMode: ExactCount\n        count: 1\n"


@pytest.mark.parametrize(
    "args",
    [["-w", "-o", "x.yaml"], ["--check", "-w"], ["--to", "v2"]],
    ids=["in-place-and-output", "check-and-in-place", "unknown-version"],
)
def test_usage_errors(run_dractl, tmp_path: Path, args: list[str]) -> None:
    claim = write(tmp_path / "claim.yaml", CLAIM_V1BETA1)
    result = run_dractl("convert", *args, str(claim))
    assert result.returncode == 2
    assert claim.read_text() == CLAIM_V1BETA1
    assert "Traceback" not in result.stderr


def test_max_file_size(run_dractl) -> None:
    refused = run_dractl("convert", "--max-file-size", "50", "-", stdin=CLAIM_V1BETA1)
    assert refused.returncode == 2
    assert "<stdin>: larger than the limit of 50 bytes (raise it with --max-file-size SIZE)" in refused.stderr
    assert refused.stdout == ""
    assert run_dractl("convert", "--max-file-size", "1k", "-", stdin=CLAIM_V1BETA1).returncode == 0


def test_missing_file(run_dractl, tmp_path: Path) -> None:
    result = run_dractl("convert", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2
    assert "no such file or directory" in result.stderr


def test_help_says_no_defaults_are_added(run_dractl) -> None:
    result = run_dractl("convert", "--help")
    assert result.returncode == 0
    assert "No defaults are added" in result.stdout
