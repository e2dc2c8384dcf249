import pytest

from romanum import from_roman, to_roman


@pytest.mark.parametrize(
    "number, numeral",
    [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (90, "XC"), (400, "CD"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")],
)
def test_to_roman(number, numeral):
    assert to_roman(number) == numeral


@pytest.mark.parametrize("number", [0, -3, 4000])
def test_to_roman_rejects_out_of_range(number):
    with pytest.raises(ValueError):
        to_roman(number)


def test_to_roman_rejects_non_integers():
    with pytest.raises(TypeError):
        to_roman(2.5)
    with pytest.raises(TypeError):
        to_roman(True)


@pytest.mark.parametrize("numeral, number", [("III", 3), ("VIII", 8), ("LXVI", 66), ("MDCLXVI", 1666)])
def test_from_roman_additive(numeral, number):
    assert from_roman(numeral) == number


def test_from_roman_ignores_case_and_whitespace():
    assert from_roman("  xxvii ") == 27


@pytest.mark.parametrize("numeral", ["XIZ", "", "   ", "12"])
def test_from_roman_rejects_invalid_text(numeral):
    with pytest.raises(ValueError):
        from_roman(numeral)
