"""IPv4 addresses and CIDR blocks as integers.

The ``ipaddress`` module is not used because the same code runs on MicroPython on the edge boxes.
"""


def parse_ipv4(text):
    """``"10.0.0.1"`` → ``167772161``."""
    parts = text.strip().split(".")
    if len(parts) != 4:
        raise ValueError(f"not an IPv4 address: {text!r}")
    value = 0
    for part in parts:
        if not part.isdigit() or len(part) > 3 or int(part) > 255:
            raise ValueError(f"not an IPv4 address: {text!r}")
        value = (value << 8) | int(part)
    return value


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
    host_bits = 32 - prefix
    return 0xFFFFFFFF ^ ((1 << host_bits) - 1)


def contains(cidr, address):
    """Whether ``address`` lies in the block ``cidr``."""
    network, prefix = parse_cidr(cidr)
    mask = netmask(prefix)
    return parse_ipv4(address) & mask == network & mask
