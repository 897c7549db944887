import re

from manifold.naming import disambiguate, exposed_name

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_prefix_and_no_prefix() -> None:
    assert exposed_name("github", "create_issue", "__", True) == "github__create_issue"
    assert exposed_name("github", "create_issue", "__", False) == "create_issue"


def test_invalid_characters_are_replaced() -> None:
    name = exposed_name("fs", "read.file/now", "__", True)
    assert name == "fs__read_file_now"
    assert VALID.match(name)


def test_long_names_are_shortened_stably() -> None:
    long = "x" * 100
    a = exposed_name("srv", long, "__", True)
    b = exposed_name("srv", long, "__", True)
    assert a == b and len(a) <= 64 and VALID.match(a)
    assert a != exposed_name("srv", long + "y", "__", True)


def test_disambiguate_is_stable_and_valid() -> None:
    d = disambiguate("a__b", "up/orig")
    assert d == disambiguate("a__b", "up/orig") != disambiguate("a__b", "up/other")
    assert VALID.match(d)
