"""Roman numerals: conversion to and from integers."""

from .numerals import MAX, from_roman, to_roman

__all__ = ["MAX", "from_roman", "to_roman"]
