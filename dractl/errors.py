"""Errors that end a command with exit code 2 (usage errors, unreadable input)."""


class DractlError(Exception):
    """A problem the user must fix before dractl can run; printed as one line, exit code 2."""


class UsageError(DractlError):
    """A command-line or configuration value dractl does not accept."""


class InputError(DractlError):
    """An input that cannot be read at all (missing file, undecodable bytes)."""
