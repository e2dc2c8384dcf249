from dataclasses import dataclass
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, order=True)
class DateRange:
    """All days from `start` to `end`, both included."""

    start: date
    end: date

    def __post_init__(self):
        if not isinstance(self.start, date) or not isinstance(self.end, date):
            raise TypeError("DateRange needs two datetime.date values")
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")

    def __len__(self):
        return (self.end - self.start).days + 1

    def __contains__(self, day):
        return self.start <= day <= self.end

    def __iter__(self):
        day = self.start
        while day <= self.end:
            yield day
            day += ONE_DAY

    def __str__(self):
        return f"{self.start.isoformat()}..{self.end.isoformat()}"

    def overlaps(self, other):
        return self.start <= other.end and other.start <= self.end

    def touches(self, other):
        """True when the ranges overlap or one starts the day after the other ends."""
        return self.start <= other.end + ONE_DAY and other.start <= self.end + ONE_DAY

    def intersection(self, other):
        if not self.overlaps(other):
            return None
        return DateRange(max(self.start, other.start), min(self.end, other.end))
