"""The Kubernetes CEL ``ip`` and ``cidr`` libraries' values, with Go ``net/netip`` semantics.

Engine-neutral: :func:`parse_ip` and :func:`parse_cidr` raise :class:`NetworkError` with
upstream's message; :class:`IP` and :class:`CIDR` answer the library's getters.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ipaddress

_IPV4_FIELD = r"[0-9]+"


class NetworkError(ValueError):
    """An IP address or CIDR that upstream refuses; the message is upstream's."""


def go_quote(text: str) -> str:
    """Go's ``%q`` for the texts these libraries quote (close enough for printable input)."""
    return json.dumps(text, ensure_ascii=False)


def _netip_error(raw: str) -> str:
    """``netip.ParseAddr``'s reason for the common ways an address is wrong."""
    if raw == "":
        return 'ParseAddr(""): unable to parse IP'
    if ":" not in raw and "." in raw:
        fields = raw.split(".")
        for field in fields:
            if field == "" or not re.fullmatch(_IPV4_FIELD, field):
                break
            if int(field) > 255:
                return f"ParseAddr({go_quote(raw)}): IPv4 field has value >255"
            if len(field) > 1 and field[0] == "0":
                return f"ParseAddr({go_quote(raw)}): IPv4 field has octet with leading zero"
        else:
            if len(fields) < 4:
                return f"ParseAddr({go_quote(raw)}): IPv4 address too short"
            if len(fields) > 4:
                return f"ParseAddr({go_quote(raw)}): IPv4 address too long"
    return f"ParseAddr({go_quote(raw)}): unable to parse IP"


def _parse_addr(raw: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """``netip.ParseAddr`` plus the library's refusals (zones, IPv4-mapped IPv6)."""
    import ipaddress  # on first use: the module costs start-up

    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        raise NetworkError(_netip_error(raw)) from None
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id is not None:
            raise NetworkError(f"IP address {go_quote(raw)} with zone value is not allowed")
        if address.ipv4_mapped is not None:
            raise NetworkError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return address


class IP:
    """An IP address (``net.IP``)."""

    __slots__ = ("address",)

    def __init__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.address = address

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IP) and self.address == other.address

    def __hash__(self) -> int:
        return hash(self.address)

    def __str__(self) -> str:
        return str(self.address)

    @property
    def family(self) -> int:
        return self.address.version

    @property
    def is_unspecified(self) -> bool:
        return self.address.is_unspecified

    @property
    def is_loopback(self) -> bool:
        return self.address.is_loopback

    @property
    def is_link_local_multicast(self) -> bool:
        import ipaddress  # on first use: the module costs start-up

        if self.address.version == 4:
            return self.address in ipaddress.ip_network("224.0.0.0/24")
        packed = self.address.packed
        return packed[0] == 0xFF and packed[1] & 0x0F == 0x02

    @property
    def is_link_local_unicast(self) -> bool:
        import ipaddress  # on first use: the module costs start-up

        network = "169.254.0.0/16" if self.address.version == 4 else "fe80::/10"
        return self.address in ipaddress.ip_network(network)

    @property
    def is_global_unicast(self) -> bool:
        """Go's definition: every unicast address but unspecified, loopback, link-local and the
        IPv4 broadcast address (private addresses included)."""
        import ipaddress  # on first use: the module costs start-up

        address = self.address
        if address.version == 4 and address == ipaddress.IPv4Address("255.255.255.255"):
            return False
        return not (address.is_unspecified or address.is_loopback or address.is_multicast
                    or self.is_link_local_unicast)


def parse_ip(raw: str) -> IP:
    try:
        return IP(_parse_addr(raw))
    except NetworkError as exc:
        if str(exc).startswith("ParseAddr("):
            raise NetworkError(f"IP Address {go_quote(raw)} parse error during conversion from string: {exc}") from None
        raise


def is_canonical_ip(raw: str) -> bool:
    return str(_parse_addr(raw)) == raw


class CIDR:
    """A network prefix as written, address bits beyond the prefix kept (``net.CIDR``)."""

    __slots__ = ("address", "bits")

    def __init__(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address, bits: int) -> None:
        self.address = address
        self.bits = bits

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CIDR) and (self.address, self.bits) == (other.address, other.bits)

    def __hash__(self) -> int:
        return hash((self.address, self.bits))

    def __str__(self) -> str:
        return f"{self.address}/{self.bits}"

    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        import ipaddress  # on first use: the module costs start-up

        return ipaddress.ip_network(f"{self.address}/{self.bits}", strict=False)

    def masked(self) -> CIDR:
        return CIDR(self.network().network_address, self.bits)

    def contains_ip(self, ip: IP) -> bool:
        return ip.address.version == self.address.version and ip.address in self.network()

    def contains_cidr(self, other: CIDR) -> bool:
        if other.address.version != self.address.version:
            return False
        return self.network().overlaps(other.network()) and self.bits <= other.bits


def parse_cidr(raw: str) -> CIDR:
    import ipaddress  # on first use: the module costs start-up

    prefix = "network address parse error during conversion from string: "
    quoted = f"netip.ParsePrefix({go_quote(raw)})"
    address_text, slash, bits_text = raw.rpartition("/")
    if not slash:
        raise NetworkError(f"{prefix}{prefix}{quoted}: no '/'")
    if "%" in address_text:
        raise NetworkError(f"{prefix}{prefix}{quoted}: IPv6 zones cannot be present in a prefix")
    try:
        address = ipaddress.ip_address(address_text)
    except ValueError:
        raise NetworkError(f"{prefix}{prefix}{quoted}: {_netip_error(address_text)}") from None
    if not bits_text.isdigit() or not bits_text.isascii() or (len(bits_text) > 1 and bits_text[0] == "0"):
        raise NetworkError(f"{prefix}{prefix}{quoted}: bad bits after slash: {go_quote(bits_text)}")
    bits = int(bits_text)
    if bits > address.max_prefixlen:
        raise NetworkError(f"{prefix}{prefix}{quoted}: prefix length out of range")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise NetworkError(f"{prefix}IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return CIDR(address, bits)
