"""IPv4 addresses and CIDR blocks as integers.

The ``ipaddress`` module is not used because the same code runs on MicroPython on the edge boxes.
"""

import re

_ADDRESS = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$")


def parse_ipv4(text):
    """``"10.0.0.1"`` → ``167772161``."""
    match = _ADDRESS.match(text.strip())
    if match is None:
        raise ValueError(f"not an IPv4 address: {text!r}")
    octets = [int(group) for group in match.groups()]
    if any(octet > 255 for octet in octets):
        raise ValueError(f"not an IPv4 address: {text!r}")
    return (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]


def format_ipv4(value):
    """``167772161`` → ``"10.0.0.1"``."""
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def parse_cidr(text):
    """``"10.0.0.0/8"`` → ``(network, prefix)``; a bare address is a /32."""
    address, _, prefix_text = text.strip().partition("/")
    if prefix_text and not prefix_text.isdigit():
        raise ValueError(f"bad prefix length in {text!r}")
    prefix = int(prefix_text) if prefix_text else 32
    if not 0 <= prefix <= 32:
        raise ValueError(f"prefix length out of range in {text!r}")
    return parse_ipv4(address), prefix


def netmask(prefix):
    """The network mask of a prefix length, as an integer."""
    return (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF


def contains(cidr, address):
    """Whether ``address`` lies in the block ``cidr``."""
    network, prefix = parse_cidr(cidr)
    mask = netmask(prefix)
    return parse_ipv4(address) & mask == network & mask
