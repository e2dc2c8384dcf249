"""ISO 8601 week dates."""

from .weeks import format_week, iso_week, iso_weekday, week_start, weeks_in_year

__all__ = ["format_week", "iso_week", "iso_weekday", "week_start", "weeks_in_year"]
