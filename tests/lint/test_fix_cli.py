"""``dractl lint --fix``, ``--diff`` and ``--unsafe-fixes`` end to end: what is written, printed
and returned; and the fixes in the JSON, SARIF and rules outputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

LABELLED = """\
apiVersion: v1
kind: Namespace
metadata:
  name: gpu-debug          # the namespace of the admin claims
  labels:
    gpu-admin: yes         # a string for the apiserver: quoted by --fix
    resource.k8s.io/admin-access: "true"
"""
QUOTED = LABELLED.replace("gpu-admin: yes   ", 'gpu-admin: "yes" ')
RENAMED = QUOTED.replace("resource.k8s.io/admin-access", "resource.kubernetes.io/admin-access")

V1BETA1 = """\
# a claim written for Kubernetes 1.32
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: one-gpu
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com   # the class
"""
V1 = """\
# a claim written for Kubernetes 1.32
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: one-gpu
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com   # the class
"""


def _lint(run_dractl, folder: Path, *args: str, stdin: str | None = None):
    return run_dractl("lint", "--no-config", "--color", "never", *args, cwd=folder, stdin=stdin)


def test_fix_writes_the_safe_fixes_and_reports_what_is_left(run_dractl, tmp_path: Path) -> None:
    (tmp_path / "ns.yaml").write_text(LABELLED)
    out = _lint(run_dractl, tmp_path, "--fix", "ns.yaml")
    assert (tmp_path / "ns.yaml").read_text() == QUOTED
    assert out.returncode == 0, out.stderr  # the warning DRA311 is left: no error
    assert "DRA510" not in out.stdout
    assert 'ns.yaml:7:5: warning DRA311 label "resource.k8s.io/admin-access"' in out.stdout
    assert out.stdout.endswith(
        "0 errors, 1 warning (1 object in 1 file)\n"
        "Fixed 1 finding in 1 file.\n"
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"
    )
    assert out.stderr == ""


def test_unsafe_fixes(run_dractl, tmp_path: Path) -> None:
    (tmp_path / "ns.yaml").write_text(LABELLED)
    shown = _lint(run_dractl, tmp_path, "--unsafe-fixes", "ns.yaml")
    assert "error DRA510 [*] kubectl reads" in shown.stdout
    assert "warning DRA311 [*] label" in shown.stdout
    assert shown.stdout.endswith("[*] 2 fixable with the `--fix --unsafe-fixes` options.\n")
    plain = _lint(run_dractl, tmp_path, "ns.yaml")
    assert "warning DRA311 label" in plain.stdout
    assert plain.stdout.endswith(
        "[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the "
        "`--unsafe-fixes` option).\n"
    )
    assert plain.returncode == 1
    assert (tmp_path / "ns.yaml").read_text() == LABELLED

    out = _lint(run_dractl, tmp_path, "--fix", "--unsafe-fixes", "ns.yaml")
    assert (tmp_path / "ns.yaml").read_text() == RENAMED
    assert out.returncode == 0
    assert out.stdout.endswith(
        "0 errors, 0 warnings (1 object in 1 file)\nFixed 2 findings in 1 file.\n"
    )


def test_diff_writes_nothing(run_dractl, tmp_path: Path) -> None:
    (tmp_path / "ns.yaml").write_text(LABELLED)
    (tmp_path / "claim.yaml").write_text(V1BETA1)
    out = _lint(run_dractl, tmp_path, "--diff", ".")
    assert out.returncode == 1
    assert (tmp_path / "ns.yaml").read_text() == LABELLED
    assert (tmp_path / "claim.yaml").read_text() == V1BETA1
    assert out.stdout == (
        "--- a/./claim.yaml\n+++ b/./claim.yaml\n@@ -1,5 +1,5 @@\n"
        " # a claim written for Kubernetes 1.32\n"
        "-apiVersion: resource.k8s.io/v1beta1\n+apiVersion: resource.k8s.io/v1\n"
        " kind: ResourceClaim\n metadata:\n   name: one-gpu\n"
        "@@ -7,4 +7,5 @@\n"
        "   devices:\n     requests:\n     - name: gpu\n"
        "-      deviceClassName: gpu.example.com   # the class\n"
        "+      exactly:\n+        deviceClassName: gpu.example.com   # the class\n"
        "--- a/./ns.yaml\n+++ b/./ns.yaml\n@@ -3,5 +3,5 @@\n"
        " metadata:\n   name: gpu-debug          # the namespace of the admin claims\n"
        "   labels:\n"
        "-    gpu-admin: yes         # a string for the apiserver: quoted by --fix\n"
        '+    gpu-admin: "yes"       # a string for the apiserver: quoted by --fix\n'
        '     resource.k8s.io/admin-access: "true"\n'
    )
    assert out.stderr == "Would fix 2 findings in 2 files.\n"
    clean = _lint(run_dractl, tmp_path, "--diff", "--select", "DRA1", ".")
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "No fixes to apply.\n")


def test_fix_converts_deprecated_versions_keeping_comments(run_dractl, tmp_path: Path) -> None:
    (tmp_path / "claim.yaml").write_text(V1BETA1 + "---\n" + V1BETA1.replace("one-gpu", "two"))
    out = _lint(run_dractl, tmp_path, "--fix", "claim.yaml")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "claim.yaml").read_text() == V1 + "---\n" + V1.replace("one-gpu", "two")
    assert out.stdout == "0 errors, 0 warnings (2 objects in 1 file)\nFixed 2 findings in 1 file.\n"


def test_a_clean_file_is_not_rewritten(run_dractl, tmp_path: Path) -> None:
    path = tmp_path / "ns.yaml"
    path.write_text(QUOTED)
    before = os.stat(path)
    out = _lint(run_dractl, tmp_path, "--fix", "ns.yaml")
    after = os.stat(path)
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    assert "Fixed" not in out.stdout


def test_written_files_keep_their_mode_and_byte_order_mark(run_dractl, tmp_path: Path) -> None:
    path = tmp_path / "ns.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + LABELLED.replace("\n", "\r\n").encode())
    path.chmod(0o640)
    out = _lint(run_dractl, tmp_path, "--fix", "ns.yaml")
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() == b"\xef\xbb\xbf" + QUOTED.replace("\n", "\r\n").encode()
    assert path.stat().st_mode & 0o777 == 0o640


def test_stdin_is_printed_fixed_and_the_report_goes_to_stderr(run_dractl, tmp_path: Path) -> None:
    out = _lint(run_dractl, tmp_path, "--fix", "-", stdin=LABELLED)
    assert out.returncode == 0
    assert out.stdout == QUOTED
    assert "<stdin>:7:5: warning DRA311" in out.stderr
    assert "Fixed 1 finding in 1 file." in out.stderr
    unchanged = _lint(run_dractl, tmp_path, "--fix", "-", stdin=QUOTED)
    assert unchanged.stdout == QUOTED
    diff = _lint(run_dractl, tmp_path, "--diff", "-", stdin=LABELLED)
    assert diff.returncode == 1
    assert diff.stdout.startswith("--- <stdin>\n+++ <stdin>\n")


def test_stdin_with_other_paths_is_a_usage_error(run_dractl, tmp_path: Path) -> None:
    (tmp_path / "ns.yaml").write_text(LABELLED)
    out = _lint(run_dractl, tmp_path, "--fix", "-", "ns.yaml", stdin=LABELLED)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr.startswith("dractl: error: --fix with - prints the fixed standard input")
    assert out.stderr.count("\n") == 1
    assert (tmp_path / "ns.yaml").read_text() == LABELLED


def test_unreadable_and_template_files_are_left_alone(run_dractl, tmp_path: Path) -> None:
    broken = LABELLED + "---\nkind: [unclosed\n"
    template = LABELLED + "    app: {{ .Values.app }}\n"
    (tmp_path / "broken.yaml").write_text(broken)
    (tmp_path / "template.yaml").write_text(template)
    (tmp_path / "ns.yaml").write_text(LABELLED.replace("gpu-debug", "other"))
    out = _lint(run_dractl, tmp_path, "--fix", ".")
    assert out.returncode == 2  # the syntax error
    assert (tmp_path / "broken.yaml").read_text() == broken
    assert (tmp_path / "template.yaml").read_text() == template
    assert (tmp_path / "ns.yaml").read_text() == QUOTED.replace("gpu-debug", "other")
    assert "broken.yaml:6:16: error DRA510 kubectl reads" in out.stdout  # reported, no [*]
    assert "Fixed 1 finding in 1 file." in out.stdout


def test_an_unwritable_file_is_named_and_the_others_are_written(run_dractl, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "ns.yaml").write_text(LABELLED)
    (tmp_path / "ns.yaml").write_text(LABELLED.replace("gpu-debug", "other"))
    folder.chmod(0o500)  # no new file (the atomic write's temporary one) can be made there
    try:
        if os.access(folder, os.W_OK):  # root writes anyway
            return
        out = _lint(run_dractl, tmp_path, "--fix", ".")
    finally:
        folder.chmod(0o700)
    assert out.returncode == 2
    assert "dractl: error: ./locked/ns.yaml: cannot write in" in out.stderr
    assert (folder / "ns.yaml").read_text() == LABELLED
    assert (tmp_path / "ns.yaml").read_text() == QUOTED.replace("gpu-debug", "other")
    assert "Fixed 1 finding in 1 file." in out.stdout


def test_json_and_sarif_carry_the_fixes(run_dractl, tmp_path: Path) -> None:
    import jsonschema

    (tmp_path / "ns.yaml").write_text(LABELLED)
    payload = json.loads(_lint(run_dractl, tmp_path, "-f", "json", "ns.yaml").stdout)
    fixes = {d["rule"]: d["fix"] for d in payload["diagnostics"]}
    assert fixes["DRA510"] == {
        "applicability": "safe",
        "message": 'Quote yes: "yes"',
        "edits": [
            {
                "content": '"yes"',
                "location": {"line": 6, "column": 16},
                "end_location": {"line": 6, "column": 21},
            }
        ],
    }
    assert fixes["DRA311"]["applicability"] == "unsafe"

    log = json.loads(_lint(run_dractl, tmp_path, "-f", "sarif", "ns.yaml").stdout)
    schema_path = Path(__file__).parents[1] / "report" / "sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator(json.loads(schema_path.read_text())).validate(log)
    result = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "DRA510")
    assert result["fixes"] == [
        {
            "description": {"text": 'Quote yes: "yes"'},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "ns.yaml", "uriBaseId": "SRCROOT"},
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": 6,
                                "startColumn": 16,
                                "endLine": 6,
                                "endColumn": 21,
                            },
                            "insertedContent": {"text": '"yes"'},
                        }
                    ],
                }
            ],
            "properties": {"applicability": "safe"},
        }
    ]


def test_rules_say_which_have_a_fix(run_dractl) -> None:
    listing = run_dractl("rules", "DRA31").stdout.splitlines()
    assert [line.split()[:4] for line in listing] == [
        ["DRA310", "admin-access-namespace-not-labelled", "error", "-"],
        ["DRA311", "admin-access-label-wrong-key", "warning", "unsafe"],
    ]
    entries = json.loads(run_dractl("rules", "-f", "json", "DRA01").stdout)
    assert {e["id"]: e.get("fix") for e in entries} == {
        "DRA010": "safe",
        "DRA011": "safe",
        "DRA012": None,
        "DRA013": None,
    }
    one = run_dractl("rules", "DRA510").stdout
    assert "; fix: safe (dractl lint --fix)\n" in one.splitlines()[1] + "\n"


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_expression_beside_cel_in_files_with_cr_line_breaks(
    run_dractl, tmp_path: Path, newline: str
) -> None:
    """YAML breaks lines at CR as at LF: the finding is reported, the file is never garbled."""
    text = newline.join(
        [
            "apiVersion: resource.k8s.io/v1",
            "kind: DeviceClass",
            "metadata:",
            "  name: gpu",
            "spec:",
            "  selectors:",
            "  - cel:",
            '    expression: device.driver == "x"',
            "",
        ]
    )
    (tmp_path / "class.yaml").write_bytes(text.encode())
    out = _lint(run_dractl, tmp_path, "--fix", "class.yaml")
    assert out.returncode == 1, out.stderr
    assert "DRA010" in out.stdout and "internal error" not in out.stderr
    assert (tmp_path / "class.yaml").read_bytes() == text.encode()
