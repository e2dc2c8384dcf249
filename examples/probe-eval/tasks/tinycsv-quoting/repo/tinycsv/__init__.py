"""A small CSV writer for exports."""

from .writer import format_row, format_rows, quote_field

__all__ = ["format_row", "format_rows", "quote_field"]
