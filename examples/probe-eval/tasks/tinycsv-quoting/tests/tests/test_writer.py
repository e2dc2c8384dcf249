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


def test_quotes_are_doubled():
    assert format_row(['say "hello"', "x"]) == '"say ""hello""",x'


def test_field_with_delimiter_and_quotes():
    assert format_row(['Smith, "Bob"', "42"]) == '"Smith, ""Bob""",42'


def test_line_breaks_force_quoting():
    assert format_row(["first line\nsecond line", "z"]) == '"first line\nsecond line",z'
    assert format_row(["a\r\nb"]) == '"a\r\nb"'


@pytest.mark.parametrize(
    "row",
    [
        ['12" ruler', "in stock"],
        ["O'Brien, \"Pat\"", "Dublin\nIreland", ""],
    ],
)
def test_csv_module_reads_back_the_same_fields(row):
    import csv
    import io

    assert next(csv.reader(io.StringIO(format_rows([row])))) == row
