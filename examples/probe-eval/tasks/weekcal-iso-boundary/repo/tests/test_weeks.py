from datetime import date, datetime

import pytest

from weekcal import format_week, iso_week, week_start, weeks_in_year


def test_mid_year():
    assert iso_week(date(2024, 6, 14)) == (2024, 24)
    assert iso_week(date(2023, 8, 31)) == (2023, 35)


def test_first_week_starting_on_monday():
    assert iso_week(date(2024, 1, 1)) == (2024, 1)
    assert iso_week(date(2024, 1, 7)) == (2024, 1)
    assert iso_week(date(2024, 1, 8)) == (2024, 2)


def test_accepts_datetimes():
    assert iso_week(datetime(2024, 6, 14, 23, 59)) == (2024, 24)


@pytest.mark.parametrize("year, weeks", [(2015, 53), (2020, 53), (2021, 52), (2024, 52), (2026, 53)])
def test_weeks_in_year(year, weeks):
    assert weeks_in_year(year) == weeks


def test_week_start_is_monday():
    assert week_start(date(2024, 3, 7)) == date(2024, 3, 4)


def test_format_week():
    assert format_week(date(2024, 3, 5)) == "2024-W10-2"


def test_rejects_other_types():
    with pytest.raises(TypeError):
        iso_week("2024-03-05")
