"""Split a DateRange into calendar-aligned chunks."""

from datetime import date, timedelta

from .core import ONE_DAY, DateRange


def _first_of_next_month(day):
    return date(day.year, day.month + 1, 1)


def split_by_month(r):
    """Chunks of `r` that each stay within one calendar month."""
    chunks = []
    current = r.start
    while current <= r.end:
        boundary = _first_of_next_month(current)
        chunks.append(DateRange(current, min(boundary - ONE_DAY, r.end)))
        current = boundary
    return chunks


def split_by_week(r, week_start=0):
    """Chunks of `r` that each stay within one week; weeks begin on `week_start` (0 = Monday)."""
    if not 0 <= week_start <= 6:
        raise ValueError("week_start must be 0 (Monday) .. 6 (Sunday)")
    chunks = []
    current = r.start
    while current <= r.end:
        days_left = (week_start - current.weekday() - 1) % 7
        chunk_end = min(current + timedelta(days=days_left), r.end)
        chunks.append(DateRange(current, chunk_end))
        current = chunk_end + ONE_DAY
    return chunks
