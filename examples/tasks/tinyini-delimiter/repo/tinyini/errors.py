class ParseError(ValueError):
    """Malformed INI input; `lineno` is 1-based."""

    def __init__(self, lineno, message):
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


class DuplicateSectionError(ParseError):
    def __init__(self, lineno, name):
        super().__init__(lineno, f"section [{name}] already defined")
        self.section = name
