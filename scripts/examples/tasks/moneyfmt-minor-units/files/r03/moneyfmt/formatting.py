"""Render amounts as human-readable money strings."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from .currencies import Currency, get_currency


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


@dataclass(frozen=True)
class MoneyFormatter:
    """Formats amounts of one currency with configurable separators."""

    currency: Currency
    thousands: str = ","
    decimal_point: str = "."

    @classmethod
    def for_code(cls, currency_code, **separators):
        return cls(get_currency(currency_code), **separators)

    @property
    def places(self):
        return self.currency.minor_units

    def round(self, amount):
        quantum = Decimal(1).scaleb(-self.places)
        return _to_decimal(amount).quantize(quantum, rounding=ROUND_HALF_UP)

    def number(self, value):
        """The unsigned number part of an already rounded value."""
        text = format(abs(value), f",.{self.places}f")
        whole, _, frac = text.partition(".")
        whole = whole.replace(",", self.thousands)
        return whole + (self.decimal_point + frac if frac else "")

    def amount(self, amount):
        value = self.round(amount)
        return ("-" if value < 0 else "") + self.number(value)

    def money(self, amount):
        value = self.round(amount)
        sign = "-" if value < 0 else ""
        number = self.number(value)
        if self.currency.symbol_first:
            return f"{sign}{self.currency.symbol}{number}"
        return f"{sign}{number} {self.currency.symbol}"


def format_amount(amount, currency_code, *, thousands=",", decimal_point="."):
    """Format the number part only: format_amount("1234.5", "USD") == "1,234.50"."""
    formatter = MoneyFormatter.for_code(currency_code, thousands=thousands, decimal_point=decimal_point)
    return formatter.amount(amount)


def format_money(amount, currency_code, *, thousands=",", decimal_point="."):
    """Format an amount with its currency symbol: format_money(5, "EUR") == "5.00 €"."""
    formatter = MoneyFormatter.for_code(currency_code, thousands=thousands, decimal_point=decimal_point)
    return formatter.money(amount)
