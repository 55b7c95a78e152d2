"""The editor set-ups of docs/editors.md are what their editors read: the TOML and JSON parse,
the Emacs Lisp reads as one balanced form, the Lua compiles (in Neovim's Lua, when Neovim is
installed), each starts ``dractl server`` and sends only settings the server knows."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from dractl.server.settings import ServerSettings

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "editors.md"
NVIM = shutil.which("nvim")
# camelCase as clients send them (settings.updated reads these)
KNOWN_SETTINGS = {"kubernetesVersion", "featureGates", "celEngine", "configFile", "debounceMs"}


def snippets(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [
        m[1] for m in re.finditer(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    ]


@pytest.mark.parametrize(
    ("language", "count"), [("lua", 2), ("toml", 1), ("elisp", 1), ("json", 1)]
)
def test_every_editor_has_its_snippets(language: str, count: int) -> None:
    assert len(snippets(language)) == count


def knows(options: dict[str, Any]) -> None:
    assert options and set(options) <= KNOWN_SETTINGS, options
    assert ServerSettings().updated(options) != ServerSettings()


def test_helix_languages_toml() -> None:
    (text,) = snippets("toml")
    data = tomllib.loads(text)
    server = data["language-server"]["dractl"]
    assert (server["command"], server["args"]) == ("dractl", ["server"])
    knows(server["config"])
    languages = {entry["name"]: entry["language-servers"] for entry in data["language"]}
    assert set(languages) == {"yaml", "json"}
    assert all("dractl" in servers for servers in languages.values())


def test_vs_code_settings_json() -> None:
    (text,) = snippets("json")
    data = json.loads(text)
    assert data["glspc.server.command"] == "dractl"
    assert data["glspc.server.commandArguments"] == ["server"]
    assert data["glspc.server.languageId"] == ["yaml", "json"]
    knows(data["glspc.server.initializationOptions"])


def read_forms(text: str) -> list[str]:
    """The top-level forms of Emacs Lisp text; fails on unbalanced parentheses or an open
    string."""
    forms, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        if char == '"':
            end = i + 1
            while text[end] != '"':  # IndexError: a string that does not end
                end += 2 if text[end] == "\\" else 1
            i = end
        elif char == ";":
            i = text.index("\n", i)
        elif char == "(":
            if depth == 0:
                start = i
            depth += 1
        elif char == ")":
            depth -= 1
            assert depth >= 0, f"unbalanced ) at {i}"
            if depth == 0:
                forms.append(text[start : i + 1])
        i += 1
    assert depth == 0, "unbalanced ("
    return forms


def test_emacs_eglot_form() -> None:
    (text,) = snippets("elisp")
    (form,) = read_forms(text)
    assert '("dractl" "server" :initializationOptions' in form
    options = re.search(r":initializationOptions \((.*?)\)", form)
    assert options is not None
    keys = re.findall(r":(\w+)", options[1])
    knows({key: "1.35" for key in keys})


@pytest.mark.parametrize(
    ("text", "fails"),
    [('(a (b "c)") d)', False), ("(a (b)", True), ("(a))", True), ('(a "b)', True)],
)
def test_the_form_reader_itself(text: str, fails: bool) -> None:
    if fails:
        with pytest.raises((AssertionError, IndexError)):
            read_forms(text)
    else:
        assert read_forms(text) == [text]


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
@pytest.mark.parametrize("index", [0, 1])
def test_neovim_snippets_compile(index: int, tmp_path: Path) -> None:
    assert NVIM is not None
    snippet = tmp_path / "snippet.lua"
    snippet.write_text(snippets("lua")[index])
    out = tmp_path / "out.txt"
    check = (
        f"local f = assert(io.open('{snippet}')) local chunk, err = loadstring(f:read('*a')) "
        f"vim.fn.writefile({{chunk and 'ok' or err}}, '{out}')"
    )
    subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"lua {check}", "-c", "qall!"],
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        # no user configuration, no shada file in the real home
        env={
            **os.environ,
            "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
        },
    )
    assert out.read_text().strip() == "ok"
    options = re.search(r"init_options = \{ (.*?) \}", snippets("lua")[index])
    assert options is not None
    knows({key: "1.35" for key in re.findall(r"(\w+) =", options[1])})
