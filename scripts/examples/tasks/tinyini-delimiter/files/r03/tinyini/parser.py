"""Turn INI text into a Config."""

import re

from .config import Config
from .errors import DuplicateSectionError, ParseError

SECTION_RE = re.compile(r"^\[(?P<name>[^\]]+)\]$")
COMMENT_PREFIXES = ("#", ";")
DELIMITERS = ("=", ":")


class _Parser:
    """Line-by-line INI parser; one instance per parse() call."""

    def __init__(self, strict):
        self.strict = strict
        self.config = Config()
        self.section = None
        self.last_key = None

    def feed(self, lineno, raw):
        line = raw.strip()
        if self._is_blank_or_comment(line):
            return
        if self._is_continuation(raw):
            self._continue_value(line)
        elif SECTION_RE.match(line):
            self._start_section(lineno, SECTION_RE.match(line).group("name").strip())
        else:
            self._add_pair(lineno, line)

    @staticmethod
    def _is_blank_or_comment(line):
        return not line or line.startswith(COMMENT_PREFIXES)

    def _is_continuation(self, raw):
        return raw[0] in " \t" and self.last_key is not None

    def _continue_value(self, line):
        self.section[self.last_key] = self.section[self.last_key] + "\n" + line

    def _start_section(self, lineno, name):
        if self.strict and name in self.config:
            raise DuplicateSectionError(lineno, name)
        self.section = self.config.add_section(name)
        self.last_key = None

    def _add_pair(self, lineno, line):
        if self.section is None:
            raise ParseError(lineno, "key/value pair before the first [section]")
        key, value = split_pair(line, lineno)
        if self.strict and key in self.section:
            raise ParseError(lineno, f"duplicate key {key.lower()!r} in [{self.section.name}]")
        self.section[key] = value
        self.last_key = key


def split_pair(line, lineno):
    """Split 'key = value' / 'key: value' at the first delimiter into a stripped (key, value) pair."""
    positions = [line.find(d) for d in DELIMITERS if d in line]
    if not positions:
        raise ParseError(lineno, f"expected 'key = value' or 'key: value', got {line!r}")
    cut = min(positions)
    key, value = line[:cut].strip(), line[cut + 1 :].strip()
    if not key:
        raise ParseError(lineno, "empty key")
    return key, value


def parse(text, *, strict=True):
    """Parse INI text. See README.md for the accepted syntax."""
    parser = _Parser(strict)
    for lineno, raw in enumerate(text.splitlines(), start=1):
        parser.feed(lineno, raw)
    return parser.config


def load(path, *, strict=True):
    with open(path, encoding="utf-8") as fh:
        return parse(fh.read(), strict=strict)
