"""The key/value delimiter is whichever of "=" and ":" comes first on a line."""

import pytest

from tinyini import parse


@pytest.mark.parametrize(
    "line, key, value",
    [
        ("url = http://localhost:8080/api", "url", "http://localhost:8080/api"),
        ("start = 09:30", "start", "09:30"),
        ("data_dir = D:\\exports", "data_dir", "D:\\exports"),
        ("query: a=b", "query", "a=b"),
        ("ratio:1=2", "ratio", "1=2"),
        ("empty =", "empty", ""),
    ],
)
def test_first_delimiter_wins(line, key, value):
    assert parse(f"[s]\n{line}\n")["s"].to_dict() == {key: value}
