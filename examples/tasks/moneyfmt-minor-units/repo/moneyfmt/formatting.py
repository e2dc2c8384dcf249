"""Render amounts as human-readable money strings."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from .currencies import get_currency


def _to_decimal(amount):
    if isinstance(amount, bool):
        raise ValueError(f"not a monetary amount: {amount!r}")
    if isinstance(amount, float):
        # repr() gives the shortest string that round-trips, so 0.1 stays 0.1
        amount = repr(amount)
    try:
        value = Decimal(amount)
    except (InvalidOperation, TypeError) as exc:
        raise ValueError(f"not a monetary amount: {amount!r}") from exc
    if not value.is_finite():
        raise ValueError(f"not a monetary amount: {amount!r}")
    return value


def _group(digits, sep):
    """Insert `sep` between groups of three digits: '1234567' -> '1,234,567'."""
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return sep.join(groups)


def format_amount(amount, currency_code, *, thousands=",", decimal_point="."):
    """Format the number part only: format_amount("1234.5", "USD") == "1,234.50"."""
    get_currency(currency_code)  # validate the code
    value = _to_decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    sign = "-" if value < 0 else ""
    whole, _, frac = f"{abs(value):.2f}".partition(".")
    text = _group(whole, thousands)
    if frac:
        text += decimal_point + frac
    return sign + text


def format_money(amount, currency_code, *, thousands=",", decimal_point="."):
    """Format an amount with its currency symbol: format_money(5, "EUR") == "5.00 €"."""
    currency = get_currency(currency_code)
    number = format_amount(amount, currency_code, thousands=thousands, decimal_point=decimal_point)
    sign = ""
    if number.startswith("-"):
        sign, number = "-", number[1:]
    if currency.symbol_first:
        return f"{sign}{currency.symbol}{number}"
    return f"{sign}{number} {currency.symbol}"
