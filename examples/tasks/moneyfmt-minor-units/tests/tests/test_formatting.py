from decimal import Decimal

import pytest

from moneyfmt import UnknownCurrencyError, format_amount, format_money


def test_usd_basic():
    assert format_money("1234.5", "USD") == "$1,234.50"


def test_symbol_after_amount_for_euro():
    assert format_money(5, "EUR") == "5.00 €"


def test_grouping_of_large_amounts():
    assert format_money(Decimal("1234567.891"), "GBP") == "£1,234,567.89"


def test_negative_amounts_put_sign_before_symbol():
    assert format_money("-42", "USD") == "-$42.00"
    assert format_money("-99.999", "EUR") == "-100.00 €"


def test_rounds_half_up_not_to_even():
    assert format_amount("2.675", "USD") == "2.68"
    assert format_amount("0.125", "USD") == "0.13"


def test_floats_do_not_leak_binary_noise():
    assert format_amount(0.1 + 0.2, "USD") == "0.30"


def test_custom_separators():
    assert format_money("1234567.5", "EUR", thousands=".", decimal_point=",") == "1.234.567,50 €"


def test_negative_zero_is_plain_zero():
    assert format_money("-0.001", "USD") == "$0.00"


def test_unknown_currency():
    with pytest.raises(UnknownCurrencyError):
        format_money(1, "XYZ")


@pytest.mark.parametrize("bad", [None, "abc", True, float("nan")])
def test_rejects_non_amounts(bad):
    with pytest.raises(ValueError):
        format_money(bad, "USD")


# --- currencies whose minor unit is not 2 (ISO 4217) ---


def test_zero_decimal_currencies_have_no_fraction():
    assert format_money(1234, "KRW") == "₩1,234"
    assert format_money("50000", "KRW") == "₩50,000"


def test_zero_decimal_currency_rounds_half_up_to_whole_units():
    assert format_money("1234.5", "KRW") == "₩1,235"
    assert format_amount("0.49", "ISK") == "0"


def test_zero_decimal_currency_with_symbol_after():
    assert format_money(1500, "ISK") == "1,500 kr"
    assert format_money("-1500.4", "ISK") == "-1,500 kr"


def test_three_decimal_currencies_keep_three_digits():
    assert format_money("1234.5678", "BHD") == "BD 1,234.568"
    assert format_money("0.5", "TND") == "DT 0.500"


def test_three_decimal_currency_with_custom_separators():
    assert format_money("9876.5", "TND", thousands=" ", decimal_point=",") == "DT 9 876,500"
