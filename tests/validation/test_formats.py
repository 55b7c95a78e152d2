"""Name formats and their messages, word for word as upstream prints them."""

from __future__ import annotations

import pytest

from dractl.api.validation import formats

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
C_ID_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
    "for validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("gpu-0", []),
        ("0", []),
        ("GPU", [LABEL_MSG]),
        ("gpu.0", ["must not contain dots"]),
        ("-gpu", [LABEL_MSG]),
        ("gpu\n", [LABEL_MSG]),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("", [LABEL_MSG]),
    ],
)
def test_dns_label(value: str, messages: list[str]) -> None:
    assert formats.is_dns1123_label(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("gpu.example.com", []),
        ("Gpu.example.com", [SUBDOMAIN_MSG]),
        ("gpu..example", [SUBDOMAIN_MSG]),
        ("a" * 253, []),
        ("a" * 254, ["must be no more than 253 characters"]),
    ],
)
def test_dns_subdomain(value: str, messages: list[str]) -> None:
    assert formats.is_dns1123_subdomain(value) == messages


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("example.com/Name_1", []),
        ("name", []),
        ("", ["name part must be non-empty", NAME_PART_MSG]),
        ("/name", ["prefix part must be non-empty"]),
        ("Example.com/name", ["prefix part " + SUBDOMAIN_MSG]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
    ],
)
def test_qualified_name(value: str, messages: list[str]) -> None:
    assert formats.is_qualified_name(value) == messages


def test_qualified_name_with_two_slashes() -> None:
    (message,) = formats.is_qualified_name("a/b/c")
    assert message.startswith("a qualified name must consist of alphanumeric characters")
    assert message.endswith(
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    )


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("my_name", True),
        ("_x1", True),
        ("MyName", True),
        ("1x", False),
        ("a-b", False),
        ("", False),
    ],
)
def test_c_identifier(value: str, valid: bool) -> None:
    assert formats.is_c_identifier(value) == ([] if valid else [C_ID_MSG])


def test_label_value() -> None:
    assert formats.is_valid_label_value("") == []
    assert formats.is_valid_label_value("My_Value-1.2") == []
    assert len(formats.is_valid_label_value("spaces not allowed")) == 1
    assert formats.is_valid_label_value("a" * 64)[0] == "must be no more than 63 characters"


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("1.2.3", True),
        ("0.0.0", True),
        ("1.2.3-alpha.1+build.5", True),
        ("1.2.3-0a", True),
        ("v1.2.3", False),
        ("1.2", False),
        ("01.2.3", False),
        ("1.2.3-01", False),
        ("1.2.3+", False),
        ("١.٢.٣", False),  # Go's \d is ASCII only
    ],
)
def test_semver(value: str, valid: bool) -> None:
    assert formats.is_semver(value) is valid


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("example.com/gpu", True),
        ("gpu", False),
        ("kubernetes.io/gpu", False),
        ("requests.example.com/gpu", False),
        ("example.com/-gpu", False),
    ],
)
def test_extended_resource_name(name: str, valid: bool) -> None:
    assert formats.is_extended_resource_name(name) is valid


def test_generate_name_prefix_may_end_in_a_dash() -> None:
    assert formats.name_is_dns_subdomain("gpu-claim-", True) == []
    assert formats.name_is_dns_subdomain("gpu-claim-", False) == [SUBDOMAIN_MSG]
