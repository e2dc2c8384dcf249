"""Write rows as CSV (RFC 4180): fields joined by a delimiter, quoted where a reader needs it."""


def quote_field(value, delimiter=","):
    """One field as it appears in a row; ``None`` is an empty field."""
    text = "" if value is None else str(value)
    needs_quotes = (
        delimiter in text
        or "\"" in text
        or "\n" in text
        or "\r" in text
        # Leading or trailing blanks are stripped by some readers (Excel): keep them.
        or text != text.strip(" \t")
    )
    if needs_quotes:
        return "\"{}\"".format(text.replace("\"", "\"\""))
    return text


def format_row(fields, delimiter=","):
    """One row, without a line terminator."""
    if len(delimiter) != 1 or delimiter in "\"\r\n":
        raise ValueError("delimiter must be a single character other than a quote or a newline")
    return delimiter.join(quote_field(field, delimiter) for field in fields)


def format_rows(rows, delimiter=",", line_terminator="\r\n"):
    """Several rows, each followed by ``line_terminator``."""
    return "".join(format_row(row, delimiter) + line_terminator for row in rows)
