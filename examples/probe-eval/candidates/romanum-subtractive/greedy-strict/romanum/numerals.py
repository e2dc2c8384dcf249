"""Conversion between integers and Roman numerals in standard form (1..3999)."""

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}

_PAIRS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]

MAX = 3999


def to_roman(number):
    """Return the Roman numeral for ``number`` (1..3999)."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"expected an int, got {type(number).__name__}")
    if not 0 < number <= MAX:
        raise ValueError(f"{number} is out of range (1..{MAX})")
    parts = []
    for value, symbol in _PAIRS:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(text):
    """Return the integer a Roman numeral stands for.

    Case does not matter and surrounding whitespace is ignored.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str, got {type(text).__name__}")
    numeral = text.strip().upper()
    if not numeral:
        raise ValueError("empty numeral")
    for char in numeral:
        if char not in _VALUES:
            raise ValueError(f"invalid character {char!r} in {text!r}")
    total = 0
    position = 0
    for value, symbol in _PAIRS:
        while numeral.startswith(symbol, position):
            total += value
            position += len(symbol)
    if position != len(numeral) or total > MAX or to_roman(total) != numeral:
        raise ValueError(f"{text!r} is not a numeral in standard form")
    return total
