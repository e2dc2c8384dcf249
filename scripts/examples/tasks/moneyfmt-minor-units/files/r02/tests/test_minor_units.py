"""Regression tests: amounts are rendered with the currency's ISO 4217 minor units."""

import pytest

from moneyfmt import format_amount, format_money


@pytest.mark.parametrize(
    "amount, code, expected",
    [
        (1500, "JPY", "¥1,500"),
        ("980.5", "JPY", "¥981"),
        ("1234567", "KRW", "₩1,234,567"),
        ("12.345", "KWD", "KD 12.345"),
        ("0.0005", "BHD", "BD 0.001"),
        ("-3", "KWD", "-KD 3.000"),
    ],
)
def test_minor_units(amount, code, expected):
    assert format_money(amount, code) == expected


def test_zero_decimal_currency_never_prints_decimal_point():
    assert format_amount("1234.4", "ISK", thousands=".", decimal_point=",") == "1.234"


def test_three_decimals_with_custom_separators():
    assert format_amount("1234.5", "KWD", thousands=" ", decimal_point=",") == "1 234,500"
