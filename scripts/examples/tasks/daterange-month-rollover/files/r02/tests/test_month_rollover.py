from datetime import date

import pytest

from daterange import DateRange, split_by_month


def r(a, b):
    return DateRange(date.fromisoformat(a), date.fromisoformat(b))


def test_reported_range():
    assert [str(c) for c in split_by_month(r("2023-11-15", "2024-02-10"))] == [
        "2023-11-15..2023-11-30",
        "2023-12-01..2023-12-31",
        "2024-01-01..2024-01-31",
        "2024-02-01..2024-02-10",
    ]


@pytest.mark.parametrize("start, end", [("2023-12-01", "2023-12-31"), ("2023-12-31", "2023-12-31")])
def test_ranges_inside_december(start, end):
    assert split_by_month(r(start, end)) == [r(start, end)]


def test_multi_year_range_is_covered_exactly():
    big = r("2019-06-17", "2022-01-03")
    chunks = split_by_month(big)
    assert len(chunks) == 32
    assert sum(len(c) for c in chunks) == len(big)
    assert all(a.end.toordinal() + 1 == b.start.toordinal() for a, b in zip(chunks, chunks[1:]))
