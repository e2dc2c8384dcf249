"""IPv4 allow-lists for the ingress proxy."""

from .cidr import contains, format_ipv4, netmask, parse_cidr, parse_ipv4

__all__ = ["contains", "format_ipv4", "netmask", "parse_cidr", "parse_ipv4"]
