from datetime import date

from daterange import DateRange, merge


def r(a, b):
    return DateRange(date.fromisoformat(a), date.fromisoformat(b))


def test_merge_overlapping_and_adjacent():
    got = merge([r("2024-01-06", "2024-01-09"), r("2024-01-01", "2024-01-05"), r("2024-02-01", "2024-02-02")])
    assert got == [r("2024-01-01", "2024-01-09"), r("2024-02-01", "2024-02-02")]


def test_merge_contained_range():
    assert merge([r("2024-01-01", "2024-01-31"), r("2024-01-10", "2024-01-12")]) == [r("2024-01-01", "2024-01-31")]


def test_merge_empty():
    assert merge([]) == []
