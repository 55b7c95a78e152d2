"""Semantic versions as the Kubernetes CEL semver library sees them (blang/semver v4, strict).

Parsing errors carry blang/semver's texts, so CEL runtime errors read as upstream's.
"""

from __future__ import annotations

from dractl.records import Record

_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    """A string that is not a semantic version; the message is blang/semver's."""


def _contains_only(text: str, allowed: frozenset[str]) -> bool:
    return all(ch in allowed for ch in text)


def _has_leading_zeroes(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str) -> int:
    # Go's strconv.ParseUint wording; reached for "" and for values beyond uint64.
    if not text:
        raise SemverError(f'strconv.ParseUint: parsing "{text}": invalid syntax')
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value


class PreRelease(Record):
    __slots__ = ("number", "numeric", "text")
    __hash__ = Record.value_hash

    def __init__(self, text: str, number: int, numeric: bool) -> None:
        self.text = text
        self.number = number
        self.numeric = numeric

    def compare(self, other: PreRelease) -> int:
        if self.numeric != other.numeric:
            return -1 if self.numeric else 1
        if self.numeric:
            return (self.number > other.number) - (self.number < other.number)
        return (self.text > other.text) - (self.text < other.text)

    def __str__(self) -> str:
        return str(self.number) if self.numeric else self.text


def _parse_prerelease(text: str) -> PreRelease:
    if not text:
        raise SemverError("Prerelease is empty")
    if _contains_only(text, _NUMBERS):
        if _has_leading_zeroes(text):
            raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{text}"')
        return PreRelease("", _parse_uint(text), True)
    if _contains_only(text, _ALPHANUM):
        return PreRelease(text, 0, False)
    raise SemverError(f'Invalid character(s) found in prerelease "{text}"')


class Semver(Record):
    __slots__ = ("build", "major", "minor", "patch", "pre")
    __hash__ = Record.value_hash

    def __init__(
        self,
        major: int,
        minor: int,
        patch: int,
        pre: tuple[PreRelease, ...] = (),
        build: tuple[str, ...] = (),
    ) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre
        self.build = build

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1; build metadata has no precedence (semver 2.0.0, blang ``Compare``)."""
        for mine, theirs in (
            (self.major, other.major),
            (self.minor, other.minor),
            (self.patch, other.patch),
        ):
            if mine != theirs:
                return 1 if mine > theirs else -1
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        for mine_pre, theirs_pre in zip(self.pre, other.pre, strict=False):
            result = mine_pre.compare(theirs_pre)
            if result:
                return result
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    @property
    def precedence_key(self) -> str:
        """A string equal for two versions exactly when ``compare`` returns 0."""
        core = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            core += "-" + ".".join(str(p) for p in self.pre)
        return core

    def __str__(self) -> str:
        text = self.precedence_key
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def parse_semver(text: str) -> Semver:
    """Strict parse as blang/semver ``Parse``."""
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    numbers: list[int] = []
    for label, part in (("Major", parts[0]), ("Minor", parts[1])):
        if not _contains_only(part, _NUMBERS):
            raise SemverError(f'Invalid character(s) found in {label.lower()} number "{part}"')
        if _has_leading_zeroes(part):
            raise SemverError(f'{label} number must not contain leading zeroes "{part}"')
        numbers.append(_parse_uint(part))
    patch_text = parts[2]
    build: list[str] = []
    prerelease: list[str] = []
    plus = patch_text.find("+")
    if plus != -1:
        build = patch_text[plus + 1 :].split(".")
        patch_text = patch_text[:plus]
    dash = patch_text.find("-")
    if dash != -1:
        prerelease = patch_text[dash + 1 :].split(".")
        patch_text = patch_text[:dash]
    if not _contains_only(patch_text, _NUMBERS):
        raise SemverError(f'Invalid character(s) found in patch number "{patch_text}"')
    if _has_leading_zeroes(patch_text):
        raise SemverError(f'Patch number must not contain leading zeroes "{patch_text}"')
    patch = _parse_uint(patch_text)
    pre = tuple(_parse_prerelease(p) for p in prerelease)
    for item in build:
        if not item:
            raise SemverError("Build meta data is empty")
        if not _contains_only(item, _ALPHANUM):
            raise SemverError(f'Invalid character(s) found in build meta data "{item}"')
    return Semver(numbers[0], numbers[1], patch, pre, tuple(build))


def parse_semver_normalized(text: str) -> Semver:
    """``semver(s, true)``: drop a leading ``v``, strip leading zeros, pad to three parts."""
    if text.startswith("v"):
        text = text[1:]
    parts = text.split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[index] = part
    if len(parts) < 3:
        if any(ch in parts[-1] for ch in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts.extend(["0"] * (3 - len(parts)))
    return parse_semver(".".join(parts))


def component_as_int(value: int) -> int:
    """``major()``, ``minor()``, ``patch()`` as upstream returns them: blang/semver holds a
    component as a uint64 and the library converts it with Go's ``int64(v.Major)``, which wraps
    past 2^63 (``semver("9223372036854775808.0.0").major()`` is -2^63)."""
    return value - 2**64 if value >= 2**63 else value
