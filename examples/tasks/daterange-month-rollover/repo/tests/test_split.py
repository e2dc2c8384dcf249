from datetime import date

import pytest

from daterange import DateRange, split_by_month, split_by_week


def r(a, b):
    return DateRange(date.fromisoformat(a), date.fromisoformat(b))


def test_split_by_month_within_one_year():
    assert split_by_month(r("2024-01-15", "2024-03-10")) == [
        r("2024-01-15", "2024-01-31"),
        r("2024-02-01", "2024-02-29"),
        r("2024-03-01", "2024-03-10"),
    ]


def test_split_by_month_single_month():
    assert split_by_month(r("2023-06-03", "2023-06-20")) == [r("2023-06-03", "2023-06-20")]


def test_split_by_month_chunks_cover_the_range():
    big = r("2022-02-11", "2022-09-09")
    chunks = split_by_month(big)
    assert sum(len(c) for c in chunks) == len(big)
    assert chunks[0].start == big.start and chunks[-1].end == big.end


def test_split_by_week_monday():
    # 2024-01-03 is a Wednesday
    assert split_by_week(r("2024-01-03", "2024-01-15")) == [
        r("2024-01-03", "2024-01-07"),
        r("2024-01-08", "2024-01-14"),
        r("2024-01-15", "2024-01-15"),
    ]


def test_split_by_week_sunday_start():
    assert split_by_week(r("2024-01-03", "2024-01-10"), week_start=6) == [
        r("2024-01-03", "2024-01-06"),
        r("2024-01-07", "2024-01-10"),
    ]


def test_split_by_week_rejects_bad_week_start():
    with pytest.raises(ValueError):
        split_by_week(r("2024-01-01", "2024-01-02"), week_start=7)
