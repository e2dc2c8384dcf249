import pytest

from tinyini import DuplicateSectionError, ParseError, parse

SAMPLE = """
# deployment settings
[server]
host = 0.0.0.0
port: 8000

; the database
[database]
name = app
"""


def test_sections_and_keys():
    cfg = parse(SAMPLE)
    assert cfg.sections() == ["server", "database"]
    assert cfg["server"]["host"] == "0.0.0.0"
    assert cfg["database"]["name"] == "app"


def test_colon_delimiter():
    cfg = parse("[app]\nname: tinyini\nversion:1.2\n")
    assert cfg["app"]["name"] == "tinyini"
    assert cfg["app"]["version"] == "1.2"


def test_colon_delimited_value_may_contain_equals():
    cfg = parse("[search]\nquery: lang=en&sort=desc\n")
    assert cfg["search"].to_dict() == {"query": "lang=en&sort=desc"}


def test_keys_are_case_insensitive_and_values_stripped():
    cfg = parse("[s]\n  Log_Level   =   INFO   \n")
    assert cfg["s"]["log_level"] == "INFO"
    assert cfg["s"]["LOG_LEVEL"] == "INFO"


def test_empty_value():
    assert parse("[s]\nkey =\n")["s"]["key"] == ""


def test_values_may_contain_hash_and_semicolon():
    cfg = parse("[s]\ncolor = #ff0000\nsql = select 1;\n")
    assert cfg["s"]["color"] == "#ff0000"
    assert cfg["s"]["sql"] == "select 1;"


def test_continuation_lines():
    cfg = parse("[motd]\ntext = first line\n  second line\n\tthird line\nafter = x\n")
    assert cfg["motd"]["text"] == "first line\nsecond line\nthird line"
    assert cfg["motd"]["after"] == "x"


def test_duplicate_section_is_an_error_in_strict_mode():
    with pytest.raises(DuplicateSectionError) as info:
        parse("[a]\nx = 1\n[a]\ny = 2\n")
    assert info.value.lineno == 3


def test_duplicate_sections_merge_when_not_strict():
    cfg = parse("[a]\nx = 1\n[a]\nx = 3\ny = 2\n", strict=False)
    assert cfg["a"].to_dict() == {"x": "3", "y": "2"}


def test_pair_before_first_section():
    with pytest.raises(ParseError, match="line 1"):
        parse("orphan = 1\n[s]\n")


def test_line_without_delimiter():
    with pytest.raises(ParseError, match="line 2: expected"):
        parse("[s]\njust some words\n")


# --- the delimiter is whichever of "=" and ":" comes first on the line ---


def test_equals_delimited_url_with_port():
    cfg = parse("[db]\ndsn = postgresql://db.internal:5432/app?sslmode=require\n")
    assert cfg["db"].to_dict() == {"dsn": "postgresql://db.internal:5432/app?sslmode=require"}


def test_equals_delimited_clock_time():
    cfg = parse("[backup]\nstarts_at = 08:45\nwindow=22:00-23:30\n")
    assert cfg["backup"]["starts_at"] == "08:45"
    assert cfg["backup"]["window"] == "22:00-23:30"


def test_equals_delimited_windows_path():
    cfg = parse("[paths]\nroot = C:\\Users\\svc\\data\n")
    assert cfg["paths"]["root"] == "C:\\Users\\svc\\data"


def test_equals_delimited_value_with_colon_and_space():
    cfg = parse("[ui]\ngreeting = Note: restart required\n")
    assert cfg["ui"].to_dict() == {"greeting": "Note: restart required"}


def test_first_delimiter_wins_in_continuation_files():
    cfg = parse("[hooks]\npre = echo a:b\n  echo c=d\npost: x=1\n")
    assert cfg["hooks"]["pre"] == "echo a:b\necho c=d"
    assert cfg["hooks"]["post"] == "x=1"
