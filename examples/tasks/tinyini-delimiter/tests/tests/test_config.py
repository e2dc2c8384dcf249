import pytest

from tinyini import parse

CFG = parse(
    """
[worker]
threads = 4
ratio = 0.75
enabled = On
verbose = no
queues = high, default , low,
"""
)


def test_getint_and_getfloat():
    assert CFG["worker"].getint("threads") == 4
    assert CFG["worker"].getfloat("ratio") == 0.75


def test_getboolean_accepts_common_spellings():
    assert CFG["worker"].getboolean("enabled") is True
    assert CFG["worker"].getboolean("verbose") is False


def test_getlist_strips_and_drops_empty_items():
    assert CFG["worker"].getlist("queues") == ["high", "default", "low"]


def test_defaults_and_missing_keys():
    assert CFG["worker"].getint("retries", 3) == 3
    assert CFG.get("worker", "missing") is None
    assert CFG.get("nope", "threads", "x") == "x"
    with pytest.raises(KeyError):
        CFG["worker"].getint("retries")


def test_conversion_errors_name_the_key():
    with pytest.raises(ValueError, match=r"\[worker\] enabled"):
        CFG["worker"].getint("enabled")
