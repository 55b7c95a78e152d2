"""What an editor configures: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

The same four knobs as ``dractl lint``'s options; a configuration file of the workspace folder is
read as lint reads it, and these settings win over it as the command line does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.records import Record

# camelCase as LSP clients write settings; the snake_case spelling is accepted too.
_KEYS = {
    "kubernetesVersion": "kubernetes_version",
    "featureGates": "feature_gates",
    "celEngine": "cel_engine",
    "configFile": "config_file",
    "debounceMs": "debounce_ms",
}
DEFAULT_DEBOUNCE_MS = 250  # typing pauses are longer than this; a lint of a folder is shorter


class ServerSettings(Record):
    __slots__ = ("cel_engine", "config_file", "debounce_ms", "feature_gates", "kubernetes_version")

    def __init__(
        self,
        kubernetes_version: str | None = None,
        feature_gates: str | None = None,
        cel_engine: str | None = None,
        config_file: str | None = None,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    ) -> None:
        self.kubernetes_version = kubernetes_version
        self.feature_gates = feature_gates  # "A=true,B=false", as --feature-gates takes them
        self.cel_engine = cel_engine
        self.config_file = config_file
        self.debounce_ms = debounce_ms

    def updated(self, options: Any) -> ServerSettings:
        """These settings with the ones ``options`` names replaced (others kept).

        ``options`` is what the client sent: the settings themselves or under a ``dractl`` key
        (VS Code's and Neovim's habit for ``didChangeConfiguration``); anything else is ignored.
        """
        if not isinstance(options, Mapping):
            return self
        if isinstance(options.get("dractl"), Mapping):
            options = options["dractl"]
        values = {name: getattr(self, name) for name in self.__slots__}
        for key, value in options.items():
            name = _KEYS.get(key, key if key in self.__slots__ else None)
            if name is None:
                continue
            if name == "feature_gates":
                value = _gates_text(value)
            elif name == "debounce_ms":
                value = int(value) if isinstance(value, int | float) else DEFAULT_DEBOUNCE_MS
            elif value is not None:
                value = str(value) or None
            values[name] = value
        return ServerSettings(**values)


def _gates_text(value: Any) -> str | None:
    """Gates as text: editors' settings are JSON, so a mapping of gate names to booleans too."""
    if isinstance(value, Mapping):
        return ",".join(f"{gate}={'true' if on else 'false'}" for gate, on in value.items()) or None
    return str(value) if value else None
