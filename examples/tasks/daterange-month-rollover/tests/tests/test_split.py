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


# --- ranges that reach or cross a December ---


def test_split_by_month_across_new_year():
    assert split_by_month(r("2019-12-20", "2020-01-05")) == [
        r("2019-12-20", "2019-12-31"),
        r("2020-01-01", "2020-01-05"),
    ]


def test_split_by_month_ending_on_new_years_eve():
    assert split_by_month(r("2021-11-03", "2021-12-31")) == [
        r("2021-11-03", "2021-11-30"),
        r("2021-12-01", "2021-12-31"),
    ]


def test_split_by_month_single_december_day():
    assert split_by_month(r("2030-12-31", "2030-12-31")) == [r("2030-12-31", "2030-12-31")]


def test_split_by_month_over_several_years():
    big = r("2018-10-31", "2020-03-01")
    chunks = split_by_month(big)
    assert len(chunks) == 18
    assert chunks[0] == r("2018-10-31", "2018-10-31")
    assert chunks[1] == r("2018-11-01", "2018-11-30")
    assert r("2019-12-01", "2019-12-31") in chunks
    assert chunks[-1] == r("2020-03-01", "2020-03-01")
    assert sum(len(c) for c in chunks) == len(big)
    assert all(c.start.day == 1 for c in chunks[1:])
