"""argparse, set up to read like kubectl's and ruff's help: ``-o, --output FORMAT``, flags shown
without a value, defaults and environment variables after the help, examples at the end."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import NoReturn

MAX_WIDTH = 100


@functools.cache
def help_width() -> int:
    # shutil.get_terminal_size's rule, without importing shutil (argparse builds a formatter for
    # every option it declares, so this runs on every start)
    try:
        columns = int(os.environ.get("COLUMNS", "0")) or os.get_terminal_size(sys.__stdout__.fileno()).columns
    except (AttributeError, ValueError, OSError):
        columns = 80
    return min(columns - 2, MAX_WIDTH)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32, width=help_width())

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings:
            return super()._format_action_invocation(action)
        names = ", ".join(action.option_strings)
        if action.option_strings[0].startswith("--"):
            names = "    " + names  # long options line up after the short ones: `-o, --output`
        if action.nargs == 0:
            return names
        return f"{names} {self._format_args(action, self._get_default_metavar_for_optional(action))}"

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        if action.nargs == "+" and not action.option_strings:
            return f"{self._metavar_formatter(action, default_metavar)(1)[0]}..."
        return super()._format_args(action, default_metavar)

    def _get_help_string(self, action: argparse.Action) -> str:
        help = action.help or ""
        default = action.default
        if (
            action.option_strings
            and action.nargs != 0
            and default not in (None, False, [], argparse.SUPPRESS)
            and "[default" not in help
        ):
            help += " [default: %(default)s]"
        return help

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        # Paragraphs are filled; lines that start with two spaces (examples) are kept as written.
        import textwrap

        out: list[str] = []
        for paragraph in textwrap.dedent(text).strip("\n").split("\n\n"):
            if paragraph.startswith("  ") or "\n  " in paragraph:
                out.append(paragraph)
            else:
                out.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out) + "\n"


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors read like kubectl's: one line, then where to find help."""

    def __init__(self, prog: str, **kwargs: object) -> None:
        super().__init__(
            prog=prog,
            formatter_class=HelpFormatter,
            allow_abbrev=False,
            add_help=False,
            **kwargs,  # type: ignore[arg-type]
        )
        self._positionals.title = "Arguments"
        self._optionals.title = "Options"
        self.add_argument("-h", "--help", action="help", help="Show this help and exit.")

    def format_usage(self) -> str:
        return f"Usage: {self.usage_line()}\n"

    def usage_line(self) -> str:
        if self.usage:  # (parse_intermixed_args sets it to format_usage()'s text, then resets it)
            return (self.usage % {"prog": self.prog}).strip()
        words = [self.prog]
        if any(action.option_strings for action in self._actions):
            words.append("[OPTIONS]")
        for action in self._get_positional_actions():
            metavar = action.metavar or action.dest.upper()
            words.append({"+": f"{metavar}...", "?": f"[{metavar}]", "*": f"[{metavar}...]"}.get(
                str(action.nargs), str(metavar)))
        return " ".join(words)

    def format_help(self) -> str:
        formatter = self._get_formatter()
        parts = [f"Usage: {self.usage_line()}\n"]
        if self.description:
            parts.append("\n" + formatter._fill_text(self.description, formatter._width, ""))
        for group in self._action_groups:
            # -h, --help last, as in ruff's and kubectl's help
            actions = sorted(
                (a for a in group._group_actions if a.help is not argparse.SUPPRESS),
                key=lambda a: isinstance(a, argparse._HelpAction),
            )
            if not actions:
                continue
            section = self._get_formatter()
            section.start_section(group.title)
            section.add_arguments(actions)
            section.end_section()
            parts.append("\n" + section.format_help().lstrip("\n"))
        if self.epilog:
            parts.append("\n" + formatter._fill_text(self.epilog, formatter._width, ""))
        return "".join(parts)

    def error(self, message: str) -> NoReturn:
        from dractl.report.escape import visible  # arguments are echoed: no raw ESC from them

        sys.stderr.write(f"{self.prog}: error: {visible(message)}\nSee '{self.prog} --help'.\n")
        sys.exit(2)
