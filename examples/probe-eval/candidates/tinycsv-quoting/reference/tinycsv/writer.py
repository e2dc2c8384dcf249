"""Write rows as CSV (RFC 4180): fields joined by a delimiter, quoted where a reader needs it."""


def quote_field(value, delimiter=","):
    """One field as it appears in a row; ``None`` is an empty field."""
    text = "" if value is None else str(value)
    if delimiter in text or any(char in text for char in "\"\r\n"):
        escaped = text.replace("\"", "\"\"")
        return f"\"{escaped}\""
    return text


def format_row(fields, delimiter=","):
    """One row, without a line terminator."""
    if len(delimiter) != 1 or delimiter in "\"\r\n":
        raise ValueError("delimiter must be a single character other than a quote or a newline")
    return delimiter.join(quote_field(field, delimiter) for field in fields)


def format_rows(rows, delimiter=",", line_terminator="\r\n"):
    """Several rows, each followed by ``line_terminator``."""
    return "".join(format_row(row, delimiter) + line_terminator for row in rows)
