"""Configuration files: discovery, every key, the command line winning, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from dractl.diagnostics import Severity
from dractl.errors import UsageError
from dractl.lint.config import (
    Config,
    PathPattern,
    build_settings,
    config_schema,
    find_config,
    load_config,
    read_config,
)

FULL = """\
kubernetes-version: "1.34"
feature-gates:
  DRADeviceTaints: true
select: [DRA0, DRA9]
ignore: [DRA003]
severity:
  DRA0: warning
  DRA001: info
exclude:
  - charts
  - "generated/**/*.yaml"
per-file-ignores:
  "tests/**": [DRA004]
strict: true
require-classes: true
"""


def test_every_key_is_read(tmp_path: Path) -> None:
    path = tmp_path / ".dractl.yaml"
    path.write_text(FULL)
    config = read_config(path)
    assert config.kubernetes_version == "1.34"
    assert config.feature_gates == {"DRADeviceTaints": True}
    assert config.select == ("DRA0", "DRA9")
    assert config.ignore == ("DRA003",)
    assert config.strict is True and config.require_classes is True
    settings = build_settings(config)
    assert settings.features.release == "1.34"
    assert settings.features.enabled("DRADeviceTaints")
    assert settings.require_classes
    # severity: the longest matching prefix wins
    assert settings.severity_overrides["DRA001"] is Severity.INFO
    assert settings.severity_overrides["DRA002"] is Severity.WARNING
    assert "DRA901" not in settings.severity_overrides
    assert not settings.enabled("DRA003") and settings.enabled("DRA001")


def test_pyproject_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.dractl]\nkubernetes-version = "1.35"\n'
        'ignore = ["DRA9"]\n\n[tool.dractl.per-file-ignores]\n"legacy/*.yaml" = ["DRA0"]\n'
    )
    config = read_config(tmp_path / "pyproject.toml")
    assert config.kubernetes_version == "1.35"
    assert config.ignore == ("DRA9",)
    assert config.per_file_ignores[0][1] == ("DRA0",)


def test_discovery_walks_up_and_skips_pyproject_without_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".dractl.yaml").write_text("ignore: [DRA9]\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(inner) == (tmp_path / ".dractl.yaml").resolve()
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.dractl]\nignore = ["DRA0"]\n')
    assert find_config(inner) == (tmp_path / "a" / "pyproject.toml").resolve()
    monkeypatch.chdir(inner)
    assert load_config().ignore == ("DRA0",)
    assert load_config(discover=False).ignore == ()


# (config text, the one-line error: position and message)
ERRORS = [
    ("selct: [DRA1]\n", ":1:1: unknown key 'selct' (expected one of: "),
    ("ignore: [DRA0]\nseverity:\n  DRA001: fatal\n", ":3:11: severity.DRA001: 'fatal' is not one of"),
    ("select: DRA0\n", ":1:9: select: expected a list, got a string"),
    ("ignore: [DRA0, E501]\n", ":1:16: ignore[1]: 'E501' is not a rule ID or prefix"),
    ("ignore: [DRA0, DRA8]\n", ":1:16: unknown rule 'DRA8': no rule ID starts with it"),
    ("kubernetes-version: '1.20'\n", ":1:21: unknown Kubernetes version '1.20'"),
    ("feature-gates: {DRANope: true}\n", ":1:17: unknown feature gate 'DRANope'"),
    ("feature-gates: {DRADeviceTaints: 1}\n", ":1:34: feature-gates: expected a mapping of gate"),
    ("exclude: [a]\nexclude: [b]\n", ':2:1: duplicate key "exclude"'),
    ("per-file-ignores:\n  x/*: [DRA0]\n  y/*: DRA0\n", ":3:8: per-file-ignores.y/*: expected a list"),
    ("- a\n", ":1:1: the configuration must be a mapping"),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_errors_are_one_line_with_position(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / ".dractl.yaml"
    path.write_text(text)
    with pytest.raises(UsageError) as info:
        read_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path) + expected.split(":", 1)[0] + ":" + expected.split(":")[1])
    assert expected in message


def test_toml_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n\n[tool.dractl]\nstrict = true\nselct = ["DRA0"]\n')
    with pytest.raises(UsageError, match=r"pyproject.toml:6:1: unknown key 'selct'"):
        read_config(path)


def test_command_line_wins(tmp_path: Path) -> None:
    path = tmp_path / ".dractl.yaml"
    path.write_text(FULL)
    config = read_config(path)
    settings = build_settings(
        config,
        kubernetes_version="1.36",
        feature_gates="DRADeviceTaints=false",
        ignore=["DRA002"],
    )
    assert settings.features.release == "1.36"
    assert not settings.features.enabled("DRADeviceTaints")
    assert settings.select == ("DRA0", "DRA9")
    assert settings.ignore == ("DRA003", "DRA002")
    # --select replaces the configuration's select and ignore
    settings = build_settings(config, select=["dra003"])
    assert settings.select == ("DRA003",) and settings.ignore == ()
    assert settings.enabled("DRA003")


def test_unknown_code_on_the_command_line() -> None:
    with pytest.raises(UsageError, match="--select: unknown rule 'DRA8'"):
        build_settings(Config(), select=["DRA8"])


# (pattern, path relative to the configuration folder, matches)
GLOBS = [
    ("charts", "charts/gpu/claim.yaml", True),
    ("charts", "deploy/charts/claim.yaml", True),
    ("charts", "chartsx/claim.yaml", False),
    ("*.tmpl.yaml", "a/b/claim.tmpl.yaml", True),
    ("generated/**/*.yaml", "generated/claim.yaml", True),
    ("generated/**/*.yaml", "generated/a/b/claim.yaml", True),
    ("generated/**/*.yaml", "src/generated/claim.yaml", False),
    ("generated/*.yaml", "generated/a/claim.yaml", False),
    ("./tests/", "tests/x.yaml", True),
    ("claim-?.yaml", "claim-1.yaml", True),
    ("claim-[!0-9].yaml", "claim-1.yaml", False),
]


@pytest.mark.parametrize(("pattern", "relative", "matches"), GLOBS)
def test_path_patterns(tmp_path: Path, pattern: str, relative: str, matches: bool) -> None:
    assert PathPattern(pattern, tmp_path).matches(str(tmp_path / relative)) is matches


def test_shipped_schema_is_valid_and_matches_the_reader(tmp_path: Path) -> None:
    schema = config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    path = tmp_path / ".dractl.yaml"
    path.write_text(FULL)
    from ruamel.yaml import YAML

    jsonschema.validate(YAML(typ="safe").load(FULL), schema)
    assert set(schema["properties"]) >= {
        "kubernetes-version",
        "feature-gates",
        "select",
        "ignore",
        "severity",
        "exclude",
        "per-file-ignores",
    }
    json.dumps(schema)


def test_cli_uses_config_and_excludes(tmp_path: Path, run_dractl) -> None:
    (tmp_path / ".dractl.yaml").write_text(
        "exclude: [skipped]\nper-file-ignores:\n  'quiet/*': [DRA004]\n"
    )
    for folder in ("skipped", "quiet", "loud"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.yaml").write_text("metadata: {name: x}\n")
    out = run_dractl("lint", ".", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert out.stdout.startswith("./loud/x.yaml:1:1: error DRA004")
    assert "skipped" not in out.stdout and "quiet/" not in out.stdout
    assert "(0 objects in 2 files)" in out.stdout
    out = run_dractl("lint", "--no-config", ".", cwd=tmp_path)
    assert out.stdout.count("DRA004") == 3


def test_cli_config_error_is_exit_2(tmp_path: Path, run_dractl) -> None:
    (tmp_path / "bad.yaml").write_text("strict: maybe\n")
    out = run_dractl("lint", "--config", str(tmp_path / "bad.yaml"), "-", stdin="a: 1\n")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"dractl: error: {tmp_path / 'bad.yaml'}:1:9: strict: expected a boolean, got a string"
    )
    out = run_dractl("lint", "--config", str(tmp_path / "missing.yaml"), "-", stdin="a: 1\n")
    assert out.returncode == 2
    assert "configuration file not found" in out.stderr
