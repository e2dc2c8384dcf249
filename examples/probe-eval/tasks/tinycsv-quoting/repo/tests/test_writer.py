import pytest

from tinycsv import format_row, format_rows, quote_field


def test_plain_fields():
    assert format_row(["a", "b", "c"]) == "a,b,c"


def test_numbers_and_none():
    assert format_row([1, 2.5, None, "x"]) == "1,2.5,,x"


def test_field_with_delimiter_is_quoted():
    assert format_row(["Widget", "3,5"]) == 'Widget,"3,5"'


def test_custom_delimiter():
    assert format_row(["a;b", "c,d"], delimiter=";") == '"a;b";c,d'


def test_quote_field_alone():
    assert quote_field("plain") == "plain"


def test_format_rows_terminates_every_row():
    assert format_rows([["a", "b"], ["c", "d"]]) == "a,b\r\nc,d\r\n"
    assert format_rows([["a"]], line_terminator="\n") == "a\n"


@pytest.mark.parametrize("delimiter", ["", ";;", '"', "\n"])
def test_rejects_bad_delimiters(delimiter):
    with pytest.raises(ValueError):
        format_row(["a"], delimiter=delimiter)
