"""Split a DateRange into calendar-aligned chunks."""

import calendar
from datetime import date, timedelta

from .core import ONE_DAY, DateRange


def _chunks(r, period_end):
    """Cut `r` into pieces; `period_end(day)` gives the last day of the period containing `day`."""
    current = r.start
    while current <= r.end:
        end = min(period_end(current), r.end)
        yield DateRange(current, end)
        current = end + ONE_DAY


def _month_end(day):
    _, last = calendar.monthrange(day.year, day.month)
    return date(day.year, day.month, last)


def _week_end(week_start):
    def period_end(day):
        return day + timedelta(days=(week_start - day.weekday() - 1) % 7)

    return period_end


def split_by_month(r):
    """Chunks of `r` that each stay within one calendar month."""
    return list(_chunks(r, _month_end))


def split_by_week(r, week_start=0):
    """Chunks of `r` that each stay within one week; weeks begin on `week_start` (0 = Monday)."""
    if week_start not in range(7):
        raise ValueError("week_start must be 0 (Monday) .. 6 (Sunday)")
    return list(_chunks(r, _week_end(week_start)))
