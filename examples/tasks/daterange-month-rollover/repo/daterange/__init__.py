"""Inclusive date ranges: overlap, merge and calendar splitting."""

from .core import DateRange
from .merge import merge
from .split import split_by_month, split_by_week

__all__ = ["DateRange", "merge", "split_by_month", "split_by_week"]
