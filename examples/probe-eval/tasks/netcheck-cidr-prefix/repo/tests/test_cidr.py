import pytest

from netcheck import contains, format_ipv4, netmask, parse_cidr, parse_ipv4


def test_parse_and_format_round_trip():
    assert parse_ipv4("192.168.0.1") == 0xC0A80001
    assert format_ipv4(parse_ipv4("172.16.254.3")) == "172.16.254.3"


@pytest.mark.parametrize("text", ["300.1.1.1", "1.2.3", "a.b.c.d", "1.2.3.4.5"])
def test_parse_rejects_bad_addresses(text):
    with pytest.raises(ValueError):
        parse_ipv4(text)


def test_parse_cidr():
    assert parse_cidr("10.0.0.0/8") == (0x0A000000, 8)
    assert parse_cidr("10.1.2.3") == (0x0A010203, 32)
    with pytest.raises(ValueError):
        parse_cidr("10.0.0.0/33")


@pytest.mark.parametrize(
    "cidr, address, inside",
    [
        ("10.0.0.0/8", "10.255.1.2", True),
        ("10.0.0.0/8", "11.0.0.1", False),
        ("192.168.0.0/16", "192.168.77.1", True),
        ("192.168.0.0/16", "192.169.0.1", False),
    ],
)
def test_whole_octet_prefixes(cidr, address, inside):
    assert contains(cidr, address) is inside


def test_single_address_and_everything():
    assert contains("203.0.113.9/32", "203.0.113.9")
    assert not contains("203.0.113.9", "203.0.113.10")
    assert contains("0.0.0.0/0", "8.8.8.8")


def test_netmask_of_whole_octets():
    assert format_ipv4(netmask(24)) == "255.255.255.0"
    assert netmask(0) == 0
