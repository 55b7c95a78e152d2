"""The Kubernetes CEL ``url`` library's values, parsed as Go's ``net/url`` parses them.

``url(s)`` accepts what both ``url.ParseRequestURI`` and ``url.Parse`` accept (an absolute URL
or an absolute path); :class:`URLError` carries upstream's message.
"""

from __future__ import annotations

import re

from dractl.cel.network import go_quote
from dractl.records import Record


def _quote(text: str, safe: str) -> str:
    from urllib.parse import quote  # on first use: the module costs start-up

    return quote(text, safe=safe)

# Patterns as text, compiled on first use by re's cache: few selectors parse URLs.
_PORT = r"(:[0-9]*)?\Z"
# ASCII Go's shouldEscape(c, encodeHost) refuses in a host; every character from U+0080 up is
# allowed. The look-ahead keeps the class to ASCII: a class ranging up to U+10FFFF costs the
# regex compiler milliseconds, paid on every start.
_HOST_INVALID = r"(?=[\x00-\x7f])[^A-Za-z0-9\-._~!$&'()*+,;=:\[\]<>\"%]"
_PERCENT = r"%(?![0-9a-fA-F]{2})"
# Go's shouldEscape(c, encodePath) leaves these unescaped besides letters and digits.
_PATH_SAFE = "-_.~$&+,/:;=@!*'()"


class URLError(ValueError):
    """A URL upstream refuses; the message is upstream's."""


class URL(Record):
    __slots__ = ("host", "path", "raw_path", "raw_query", "scheme")
    __hash__ = Record.value_hash

    def __init__(self, scheme: str, host: str, path: str, raw_path: str, raw_query: str) -> None:
        self.scheme = scheme
        self.host = host
        self.path = path
        self.raw_path = raw_path
        self.raw_query = raw_query

    @property
    def hostname(self) -> str:
        host, _port = _split_host_port(self.host)
        return host

    @property
    def port(self) -> str:
        _host, port = _split_host_port(self.host)
        return port

    @property
    def escaped_path(self) -> str:
        if self.raw_path and _valid_encoded(self.raw_path) and _unescape(self.raw_path) == self.path:
            return self.raw_path
        if self.path == "*":
            return "*"
        return _quote(self.path, safe=_PATH_SAFE)

    def query(self) -> dict[str, list[str]]:
        """Go's ``url.ParseQuery``, keeping what it can parse."""
        values: dict[str, list[str]] = {}
        for part in self.raw_query.split("&"):
            if not part or ";" in part:
                continue
            key, _, value = part.partition("=")
            try:
                key, value = _unescape(key.replace("+", " ")), _unescape(value.replace("+", " "))
            except URLError:
                continue
            values.setdefault(key, []).append(value)
        return values

    def __str__(self) -> str:
        text = f"{self.scheme}:" if self.scheme else ""
        if self.host:
            text += "//" + self.host
        text += self.escaped_path
        return text + (f"?{self.raw_query}" if self.raw_query else "")


def _valid_encoded(raw_path: str) -> bool:
    """Go's ``validEncoded(s, encodePath)``: every character may stand unescaped in a path."""
    return not re.search(_PERCENT, raw_path) and all(
        char.isascii() and (char.isalnum() or char in _PATH_SAFE + "[]%") for char in raw_path)


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and re.fullmatch(_PORT, host[colon:]):
        host, port = host[:colon], host[colon + 1:]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _unescape(text: str) -> str:
    if re.search(_PERCENT, text):
        bad = re.search(_PERCENT, text)
        assert bad is not None
        raise URLError(f"invalid URL escape {go_quote(text[bad.start():bad.start() + 3])}")
    from urllib.parse import unquote  # on first use: the module costs start-up

    return unquote(text, errors="surrogateescape")


def _scheme(raw: str) -> tuple[str, str]:
    for index, char in enumerate(raw):
        if char.isascii() and char.isalpha():
            continue
        if char.isascii() and (char.isdigit() or char in "+-."):
            if index == 0:
                return "", raw
            continue
        if char == ":":
            if index == 0:
                raise URLError("missing protocol scheme")
            return raw[:index], raw[index + 1:]
        return "", raw
    return "", raw


def _parse_host(host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise URLError("missing ']' in host")
        port = host[end + 1:]
        if not re.fullmatch(_PORT, port):
            raise URLError(f"invalid port {go_quote(port)} after host")
    else:
        colon = host.rfind(":")
        if colon != -1 and not re.fullmatch(_PORT, host[colon:]):
            raise URLError(f"invalid port {go_quote(host[colon:])} after host")
    bad = re.search(_HOST_INVALID, host)
    if bad:
        raise URLError(f"invalid character {go_quote(bad.group())} in host name")
    return _unescape(host)


def _parse(raw: str, via_request: bool) -> URL:
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise URLError("empty url")
    if raw == "*":
        return URL("", "", "*", "", "")
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest, query = rest[:-1], ""
    else:
        rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return URL(scheme, "", "", "", query)  # opaque
        if via_request:
            raise URLError("invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise URLError("first path segment in URL cannot contain colon")
    host = ""
    if (scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        _user, at, host_part = authority.rpartition("@")
        host = _parse_host(host_part if at else authority)
    path = _unescape(rest)
    raw_path = "" if _quote(path, safe=_PATH_SAFE) == rest else rest
    return URL(scheme, host, path, raw_path, query)


def parse_url(raw: str) -> URL:
    """``url(raw)``: what ``ParseRequestURI`` and ``Parse`` both accept."""
    for via_request in (True, False):
        text = raw if via_request else raw.partition("#")[0]
        try:
            parsed = _parse(text, via_request)
        except URLError as exc:
            raise URLError(f"URL parse error during conversion from string: parse {go_quote(text)}: {exc}") from None
    return parsed


def request_uri_error(raw: str) -> str | None:
    """``url.ParseRequestURI``'s error text for ``raw`` (None when it parses)."""
    try:
        _parse(raw, True)
    except URLError as exc:
        return f"parse {go_quote(raw)}: {exc}"
    return None


def is_url(raw: str) -> bool:
    try:
        _parse(raw, True)
    except URLError:
        return False
    return True
