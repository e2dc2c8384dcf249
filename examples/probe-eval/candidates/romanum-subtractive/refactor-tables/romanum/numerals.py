"""Conversion between integers and Roman numerals in standard form (1..3999)."""

_PAIRS = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)

# Single symbols only: the pairs are derived from them when reading.
_VALUES = {symbol: value for value, symbol in _PAIRS if len(symbol) == 1}

MAX = 3999


def to_roman(number):
    """Return the Roman numeral for ``number`` (1..3999)."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"expected an int, got {type(number).__name__}")
    if not 0 < number <= MAX:
        raise ValueError(f"{number} is out of range (1..{MAX})")
    result = ""
    remaining = number
    for value, symbol in _PAIRS:
        while remaining >= value:
            result += symbol
            remaining -= value
    return result


def from_roman(text):
    """Return the integer a Roman numeral stands for.

    Case does not matter and surrounding whitespace is ignored.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str, got {type(text).__name__}")
    numeral = text.strip().upper()
    if not numeral:
        raise ValueError("empty numeral")
    bad = [char for char in numeral if char not in _VALUES]
    if bad:
        raise ValueError(f"invalid character {bad[0]!r} in {text!r}")
    values = [_VALUES[char] for char in numeral]
    total = 0
    for current, following in zip(values, values[1:] + [0]):
        total += -current if current < following else current
    return total
