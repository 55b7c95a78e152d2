"""CEL's timestamp and duration for the cel-python engine, with cel-go's answers.

cel-python's own ``TimestampType``/``DurationType`` are Python ``datetime``/``timedelta``:
microseconds, no ``timestamp overflow``, other texts. cel-go's are Go's ``time.Time`` and
``time.Duration``: nanoseconds, a duration is an int64 of them, a timestamp lies between
0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z (checked on whole seconds, as cel-go
does) and keeps the offset it was written with for ``string()``, while the getters read it in
UTC unless given a time zone (an IANA name, or a ``±hh:mm`` offset). What differs in cel-go is
reproduced here: Go's ``time.ParseDuration`` (with its float arithmetic for fractions),
``time.Parse(time.RFC3339, ...)``, ``strconv.FormatFloat`` of the seconds in ``string(duration)``
and Go's errors.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import celpy.celtypes as ct

from dractl.cel.engines.celpy_values import (
    NO_SUCH_OVERLOAD,
    Failure,
    failure,
    register_type_name,
    type_name,
)

_NANOS = 1_000_000_000
_INT64 = (-(2**63), 2**63 - 1)
_MIN_UNIX = -62135596800  # 0001-01-01T00:00:00Z
_MAX_UNIX = 253402300799  # 9999-12-31T23:59:59Z
TIMESTAMP_OVERFLOW = "timestamp overflow"
_INTEGER_OVERFLOW = "integer overflow"


def _truncated_divmod(value: int, divisor: int) -> tuple[int, int]:
    """Go's ``/`` and ``%`` on integers: the quotient rounds toward zero."""
    quotient = abs(value) // divisor * (1 if value >= 0 else -1)
    return quotient, value - quotient * divisor


class Duration:
    """A CEL duration: a signed int64 of nanoseconds (Go's ``time.Duration``)."""

    __slots__ = ("nanos",)

    def __init__(self, nanos: int | Duration = 0) -> None:
        nanos = nanos.nanos if isinstance(nanos, Duration) else int(nanos)
        if not _INT64[0] <= nanos <= _INT64[1]:
            raise ValueError(_INTEGER_OVERFLOW)  # the engine's arithmetic reports it as cel-go does
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and self.nanos == other.nanos

    def __hash__(self) -> int:
        return hash(("duration", self.nanos))

    def __lt__(self, other: Duration) -> bool:
        return self.nanos < other.nanos

    def __le__(self, other: Duration) -> bool:
        return self.nanos <= other.nanos

    def __gt__(self, other: Duration) -> bool:
        return self.nanos > other.nanos

    def __ge__(self, other: Duration) -> bool:
        return self.nanos >= other.nanos

    def __add__(self, other: Any) -> Any:
        if isinstance(other, Duration):
            return Duration(self.nanos + other.nanos)
        if isinstance(other, Timestamp):
            return other + self
        return NotImplemented

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, Duration):
            return Duration(self.nanos - other.nanos)
        return NotImplemented

    def __neg__(self) -> Duration:
        return Duration(-self.nanos)

    def seconds(self) -> float:
        """Go's ``Duration.Seconds()``."""
        whole, rest = _truncated_divmod(self.nanos, _NANOS)
        return float(whole) + float(rest) / 1e9

    def __str__(self) -> str:
        # strconv.FormatFloat(d.Seconds(), 'f', -1, 64): the shortest digits, never an exponent.
        text = format(Decimal(repr(self.seconds())), "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return ("0" if text in ("-0", "") else text) + "s"

    def __repr__(self) -> str:
        return f"duration({str(self)!r})"


class Timestamp:
    """A CEL timestamp: Unix seconds, nanoseconds and the UTC offset it was written with."""

    __slots__ = ("nanos", "offset", "seconds")

    def __init__(self, seconds: int, nanos: int = 0, offset: int = 0) -> None:
        self.seconds = seconds
        self.nanos = nanos
        self.offset = offset  # seconds east of UTC; only string() shows it

    def _instant(self) -> tuple[int, int]:
        return self.seconds, self.nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and self._instant() == other._instant()

    def __hash__(self) -> int:
        return hash(("timestamp", self._instant()))

    def __lt__(self, other: Timestamp) -> bool:
        return self._instant() < other._instant()

    def __le__(self, other: Timestamp) -> bool:
        return self._instant() <= other._instant()

    def __gt__(self, other: Timestamp) -> bool:
        return self._instant() > other._instant()

    def __ge__(self, other: Timestamp) -> bool:
        return self._instant() >= other._instant()

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, Duration):
            return NotImplemented
        return _shifted(self, other.nanos)

    def __radd__(self, other: Any) -> Any:
        return self.__add__(other)

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, Duration):
            return _shifted(self, (-other).nanos)  # cel-go negates first: -MinInt64 overflows
        if isinstance(other, Timestamp):
            # cel-go's subtractTimeChecked: the difference must fit a duration.
            return Duration((self.seconds - other.seconds) * _NANOS + self.nanos - other.nanos)
        return NotImplemented

    def __str__(self) -> str:
        """Go's ``Format(time.RFC3339Nano)`` in the timestamp's own offset."""
        fields = _civil(self.seconds + self.offset)
        text = "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}".format(*fields[:6])
        if self.nanos:
            text += "." + f"{self.nanos:09d}".rstrip("0")
        if not self.offset:
            return text + "Z"
        sign = "+" if self.offset > 0 else "-"
        hours, minutes = divmod(abs(self.offset) // 60, 60)
        return f"{text}{sign}{hours:02d}:{minutes:02d}"

    def __repr__(self) -> str:
        return f"timestamp({str(self)!r})"


def _shifted(timestamp: Timestamp, nanos: int) -> Any:
    """cel-go's addTimeDurationChecked: the result must stay within the supported seconds."""
    seconds, rest = divmod(timestamp.nanos + nanos, _NANOS)
    seconds += timestamp.seconds
    if not _MIN_UNIX <= seconds <= _MAX_UNIX:
        return failure(TIMESTAMP_OVERFLOW)
    return Timestamp(seconds, rest, timestamp.offset)


# -- the calendar -------------------------------------------------------------------------------


def _civil(seconds: int) -> tuple[int, int, int, int, int, int, int, int]:
    """(year, month, day, hour, minute, second, weekday with Sunday 0, day of the year from 1) of
    Unix ``seconds`` in the proleptic Gregorian calendar, for any year (an offset may leave 1..9999)."""
    days, rest = divmod(seconds, 86400)
    # Howard Hinnant's civil_from_days.
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year += month <= 2
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    before = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)[month - 1] + (leap and month > 2)
    weekday = (days + 4) % 7  # 1970-01-01 was a Thursday
    return year, month, day, rest // 3600, rest % 3600 // 60, rest % 60, weekday, before + day


# -- parsing --------------------------------------------------------------------------------------

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})\Z")
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_TO_TIMESTAMP = "type conversion error from 'string' to 'google.protobuf.Timestamp'"
_TO_DURATION = "type conversion error from 'string' to 'google.protobuf.Duration'"


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_timestamp(text: str) -> Timestamp | Failure:
    """Go's ``time.Parse(time.RFC3339, text)`` and cel-go's range check."""
    found = _RFC3339.match(text)
    if found is None:
        return failure(_TO_TIMESTAMP)
    year, month, day, hour, minute, second = (int(found.group(i)) for i in range(1, 7))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not (1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1] - (month == 2 and not leap)
            and hour <= 23 and minute <= 59 and second <= 59):
        return failure(_TO_TIMESTAMP)
    nanos = int((found.group(7) or "")[:9].ljust(9, "0"))
    zone = found.group(8)
    offset = 0
    if zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[4:6])
        if zone_hours > 23 or zone_minutes > 59:
            return failure(_TO_TIMESTAMP)
        offset = (zone_hours * 60 + zone_minutes) * 60 * (-1 if zone[0] == "-" else 1)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
    if not _MIN_UNIX <= seconds <= _MAX_UNIX:
        return failure(TIMESTAMP_OVERFLOW)
    return Timestamp(seconds, nanos, offset)


_UNITS = {"ns": 1, "us": 1000, "\u00b5s": 1000, "\u03bcs": 1000, "ms": 1_000_000, "s": _NANOS,
          "m": 60 * _NANOS, "h": 3600 * _NANOS}
_COMPONENT = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")


def parse_duration(text: str) -> Duration | Failure:
    """Go's ``time.ParseDuration``: ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` or ``0``."""
    rest = text
    negative = rest[:1] == "-"
    if rest[:1] in ("-", "+"):
        rest = rest[1:]
    if rest == "0":
        return Duration(0)
    if not rest:
        return failure(_TO_DURATION)
    total = 0
    while rest:
        component = _COMPONENT.match(rest)
        assert component is not None  # the pattern matches the empty string
        whole, fraction, unit_name = component.groups()
        if not whole and not fraction:
            return failure(_TO_DURATION)
        unit = _UNITS.get(unit_name)
        if unit is None:
            return failure(_TO_DURATION)
        value = int(whole or "0")
        if value > 2**63 // unit:
            return failure(_TO_DURATION)
        value *= unit
        kept, scale = _leading_fraction(fraction or "")
        if kept:
            # Go adds the fraction in float64, "nanosecond accurate for fractions of hours".
            value += int(float(kept) * (float(unit) / scale))
            if value > 2**63:
                return failure(_TO_DURATION)
        total += value
        if total > 2**63:
            return failure(_TO_DURATION)
        rest = rest[component.end():]
    if negative:
        return Duration(-total)
    if total > _INT64[1]:
        return failure(_TO_DURATION)
    return Duration(total)


def _leading_fraction(digits: str) -> tuple[int, float]:
    """Go's leadingFraction: the digits that fit an int64, and 10 to the number of them."""
    value, scale = 0, 1.0
    for char in digits:
        following = value * 10 + int(char)
        if value > (2**63 - 1) // 10 or following > 2**63:
            break
        value, scale = following, scale * 10
    return value, scale


# -- time zones -----------------------------------------------------------------------------------


def _zone_offset(zone: str, timestamp: Timestamp) -> int | Failure:
    """Seconds east of UTC of ``zone`` at ``timestamp``: cel-go's inTimeZone."""
    colon = zone.find(":")
    if colon >= 0:
        hours, minutes = _go_atoi(zone[:colon]), _go_atoi(zone[colon + 1:])
        for number in (hours, minutes):
            if isinstance(number, Failure):
                return number
        assert isinstance(hours, int) and isinstance(minutes, int)
        total = hours * 60 - minutes if zone[:1] == "-" else hours * 60 + minutes
        return total * 60
    if zone in ("", "UTC", "Local"):  # Go's local zone: the scheduler's, UTC in its container
        return 0
    location = _location(zone)
    if isinstance(location, Failure):
        return location
    instant = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=max(min(timestamp.seconds, _MAX_UNIX - 86400),
                                                                       _MIN_UNIX + 86400))
    offset = instant.astimezone(location).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _location(name: str) -> zoneinfo.ZoneInfo | Failure:
    if ".." in name or name.startswith(("/", "\\")):
        return failure("time: invalid location name")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return failure(f"unknown time zone {name}")


_GO_INT = re.compile(r"[+-]?\d+\Z")


def _go_atoi(text: str) -> int | Failure:
    if not _GO_INT.match(text):
        return failure(f'strconv.Atoi: parsing "{text}": invalid syntax')
    value = int(text)
    if not _INT64[0] <= value <= _INT64[1]:
        return failure(f'strconv.Atoi: parsing "{text}": value out of range')
    return value


# -- the functions --------------------------------------------------------------------------------

#: Timestamp getters: the field of (year, month, day, hour, minute, second, weekday, day of year).
_TIMESTAMP_FIELDS: dict[str, Callable[[tuple[int, ...], int], int]] = {
    "getFullYear": lambda f, _n: f[0], "getMonth": lambda f, _n: f[1] - 1,
    "getDayOfYear": lambda f, _n: f[7] - 1, "getDayOfMonth": lambda f, _n: f[2] - 1,
    "getDate": lambda f, _n: f[2], "getDayOfWeek": lambda f, _n: f[6], "getHours": lambda f, _n: f[3],
    "getMinutes": lambda f, _n: f[4], "getSeconds": lambda f, _n: f[5],
    "getMilliseconds": lambda _f, nanos: nanos // 1_000_000,
}
#: Duration getters: Go's Hours(), Minutes() and Seconds() (float64) made an int, Milliseconds().
_DURATION_UNITS = {"getHours": 3600 * _NANOS, "getMinutes": 60 * _NANOS, "getSeconds": _NANOS}


def _duration_field(name: str, duration: Duration) -> Any:
    if name == "getMilliseconds":
        return ct.IntType(_truncated_divmod(duration.nanos, 1_000_000)[0])
    unit = _DURATION_UNITS.get(name)
    if unit is None:
        return failure(NO_SUCH_OVERLOAD)
    whole, rest = _truncated_divmod(duration.nanos, unit)
    return ct.IntType(int(float(whole) + float(rest) / float(unit)))


def _getter(name: str) -> Callable[..., Any]:
    read = _TIMESTAMP_FIELDS[name]

    def call(value: Any, *zone: Any) -> Any:
        if isinstance(value, Duration) and not zone:
            field = _duration_field(name, value)
            if not (isinstance(field, Failure) and field.args[:1] == (NO_SUCH_OVERLOAD,)):
                return field
        if not isinstance(value, Timestamp) or len(zone) > 1 or (zone and not isinstance(zone[0], str)):
            # cel-go's dispatcher names the getter and every argument's type
            return failure(f"{NO_SUCH_OVERLOAD}: {name}({', '.join(type_name(v) for v in (value, *zone))})")
        offset = _zone_offset(str(zone[0]), value) if zone else 0
        if isinstance(offset, Failure):
            return offset
        return ct.IntType(read(_civil(value.seconds + offset), value.nanos))

    return call


def to_timestamp(value: Any) -> Any:
    if isinstance(value, Timestamp):
        return value
    if isinstance(value, str):
        return parse_timestamp(str(value))
    if isinstance(value, int) and not isinstance(value, bool | ct.BoolType | ct.UintType):
        if not _MIN_UNIX <= value <= _MAX_UNIX:
            return failure(TIMESTAMP_OVERFLOW)
        return Timestamp(int(value))
    return failure(f"{NO_SUCH_OVERLOAD}: timestamp({type_name(value)})")


def to_duration(value: Any) -> Any:
    if isinstance(value, Duration):
        return value
    if isinstance(value, str):
        return parse_duration(str(value))
    if type_name(value) == "int":  # declared, but cel-go's Int converts to no duration
        return failure("type conversion error from 'int' to 'google.protobuf.Duration'")
    return failure(f"{NO_SUCH_OVERLOAD}: duration({type_name(value)})")


#: The conversions (cel-go evaluates them on constants when it plans the program).
TIME_CONVERSIONS: dict[str, Callable[..., Any]] = {"timestamp": to_timestamp, "duration": to_duration}
TIME_FUNCTIONS: dict[str, Callable[..., Any]] = {name: _getter(name) for name in _TIMESTAMP_FIELDS}

register_type_name(Timestamp, "google.protobuf.Timestamp")
register_type_name(Duration, "google.protobuf.Duration")
