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


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2021, 1, 3), (2020, 53)),
        (date(2022, 1, 1), (2021, 52)),
        (date(2016, 1, 2), (2015, 53)),
        (date(2023, 1, 1), (2022, 52)),
    ],
)
def test_early_january_in_last_week_of_previous_year(day, expected):
    assert iso_week(day) == expected


@pytest.mark.parametrize(
    "day, expected",
    [
        (date(2019, 12, 30), (2020, 1)),
        (date(2024, 12, 31), (2025, 1)),
        (date(2014, 12, 29), (2015, 1)),
    ],
)
def test_late_december_in_first_week_of_next_year(day, expected):
    assert iso_week(day) == expected


def test_format_week_across_new_year():
    assert format_week(date(2021, 1, 1)) == "2020-W53-5"
    assert format_week(date(2019, 12, 31)) == "2020-W01-2"
