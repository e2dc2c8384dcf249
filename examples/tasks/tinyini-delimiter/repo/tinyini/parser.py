"""Turn INI text into a Config."""

import re

from .config import Config
from .errors import DuplicateSectionError, ParseError

_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]$")
_COMMENT_PREFIXES = ("#", ";")


def _split_pair(line, lineno):
    """Split 'key = value' / 'key: value' into a stripped (key, value) pair."""
    if ":" in line:
        key, value = line.split(":", 1)
    elif "=" in line:
        key, value = line.split("=", 1)
    else:
        raise ParseError(lineno, f"expected 'key = value' or 'key: value', got {line!r}")
    key = key.strip()
    if not key:
        raise ParseError(lineno, "empty key")
    return key, value.strip()


def parse(text, *, strict=True):
    """Parse INI text. See README.md for the accepted syntax."""
    config = Config()
    section = None
    last_key = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(_COMMENT_PREFIXES):
            continue
        if raw[0] in " \t" and last_key is not None:
            # An indented line continues the previous value.
            section[last_key] = section[last_key] + "\n" + line
            continue
        match = _SECTION.match(line)
        if match:
            name = match.group("name").strip()
            if strict and name in config:
                raise DuplicateSectionError(lineno, name)
            section = config.add_section(name)
            last_key = None
            continue
        if section is None:
            raise ParseError(lineno, "key/value pair before the first [section]")
        key, value = _split_pair(line, lineno)
        if strict and key in section:
            raise ParseError(lineno, f"duplicate key {key.lower()!r} in [{section.name}]")
        section[key] = value
        last_key = key
    return config


def load(path, *, strict=True):
    with open(path, encoding="utf-8") as fh:
        return parse(fh.read(), strict=strict)
