from decimal import Decimal

import pytest

from moneyfmt import parse_amount


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1234.50", Decimal("1234.50")),
        ("$1,234.50", Decimal("1234.50")),
        ("  -3.5 ", Decimal("-3.5")),
        ("(1,200.00)", Decimal("-1200.00")),
        ("KD 12.345", Decimal("12.345")),
        ("7 €", Decimal("7")),
    ],
)
def test_parse_amount(text, expected):
    assert parse_amount(text) == expected


def test_parse_with_european_separators():
    assert parse_amount("1.234,56 €", thousands=".", decimal_point=",") == Decimal("1234.56")


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse_amount("twelve dollars")
