"""Format and parse money amounts."""

from .currencies import Currency, UnknownCurrencyError, get_currency, known_codes
from .formatting import format_amount, format_money
from .parsing import parse_amount

__all__ = [
    "Currency",
    "UnknownCurrencyError",
    "format_amount",
    "format_money",
    "get_currency",
    "known_codes",
    "parse_amount",
]

__version__ = "0.4.1"
