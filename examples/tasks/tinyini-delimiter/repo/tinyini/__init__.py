"""A tiny INI reader."""

from .config import Config, Section
from .errors import DuplicateSectionError, ParseError
from .parser import load, parse

__all__ = ["Config", "DuplicateSectionError", "ParseError", "Section", "load", "parse"]
__version__ = "1.2.0"
