"""Parse money strings typed by people or exported from spreadsheets."""

import re
from decimal import Decimal, InvalidOperation

# Symbols and codes we strip before reading the number.
_NOISE = re.compile(r"^[^\d\-(]*|[^\d)]*$")


def parse_amount(text, *, thousands=",", decimal_point="."):
    """Parse "$1,234.50", "-3.5", "(1,200.00)" (accounting negative) into a Decimal."""
    if not isinstance(text, str):
        raise TypeError("parse_amount() expects a string")
    raw = _NOISE.sub("", text.strip())
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1]
    if raw.startswith("-"):
        negative, raw = not negative, raw[1:]
    raw = raw.replace(thousands, "").replace(decimal_point, ".")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"cannot parse amount from {text!r}") from None
    return -value if negative else value
