"""Shell completion through argcomplete: the shell calls dractl with ``_ARGCOMPLETE`` set and
reads the candidates back (subcommands, options, the choices of an option, file names)."""

from __future__ import annotations

import os
from pathlib import Path

# Where each shell finds a completion script, and what its start-up file needs to read it.
_INSTALL = {
    "bash": (".bash_completions/dractl.sh", ".bashrc", "source ~/.bash_completions/dractl.sh"),
    "zsh": (".zfunc/_dractl", ".zshrc", "fpath+=~/.zfunc; autoload -Uz compinit && compinit"),
    "fish": (".config/fish/completions/dractl.fish", None, None),
}


def complete() -> None:
    """Answer the shell's completion request and exit (argcomplete's protocol)."""
    import argcomplete

    from dractl.cli import root_parser

    argcomplete.autocomplete(root_parser(commands=True))


def login_shell() -> str:
    return Path(os.environ.get("SHELL", "bash")).name


def script(shell: str) -> str:
    import argcomplete

    from dractl.errors import UsageError

    shell = shell or login_shell()
    if shell not in ("bash", "zsh", "fish", "powershell"):
        raise UsageError(f"no completion for the shell {shell!r}; name one of bash, zsh, fish, powershell")
    return argcomplete.shellcode(["dractl"], shell=shell)


def install(shell: str) -> None:
    from dractl.errors import UsageError

    shell = shell or login_shell()
    if shell not in _INSTALL:
        raise UsageError(
            f"cannot install completion for {shell!r}; for PowerShell add the output of "
            "`dractl --show-completion powershell` to your profile"
        )
    target, rc_file, rc_line = _INSTALL[shell]
    home = Path.home()
    path = home / target
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(shell), encoding="utf-8")
    if rc_file and rc_line:
        rc = home / rc_file
        existing = rc.read_text(encoding="utf-8") if rc.exists() else ""
        if rc_line not in existing:
            with rc.open("a", encoding="utf-8") as out:
                out.write(f"\n# dractl completion\n{rc_line}\n")
    print(f"{shell} completion installed in {path}; it works in new shells.")
