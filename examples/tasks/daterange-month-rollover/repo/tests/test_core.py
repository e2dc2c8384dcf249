from datetime import date

import pytest

from daterange import DateRange


def d(s):
    return date.fromisoformat(s)


def test_length_is_inclusive():
    assert len(DateRange(d("2024-02-01"), d("2024-02-29"))) == 29
    assert len(DateRange(d("2024-02-01"), d("2024-02-01"))) == 1


def test_contains_and_iter():
    r = DateRange(d("2023-12-30"), d("2024-01-02"))
    assert d("2024-01-01") in r
    assert d("2024-01-03") not in r
    assert [x.day for x in r] == [30, 31, 1, 2]


def test_rejects_reversed_range():
    with pytest.raises(ValueError):
        DateRange(d("2024-01-02"), d("2024-01-01"))


def test_overlap_and_intersection():
    a = DateRange(d("2024-01-01"), d("2024-01-10"))
    b = DateRange(d("2024-01-10"), d("2024-01-20"))
    c = DateRange(d("2024-01-11"), d("2024-01-20"))
    assert a.overlaps(b) and not a.overlaps(c)
    assert a.intersection(b) == DateRange(d("2024-01-10"), d("2024-01-10"))
    assert a.intersection(c) is None
    assert a.touches(c)


def test_str():
    assert str(DateRange(d("2024-03-01"), d("2024-03-05"))) == "2024-03-01..2024-03-05"
