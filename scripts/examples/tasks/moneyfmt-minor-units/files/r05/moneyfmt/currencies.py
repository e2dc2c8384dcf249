'''ISO 4217 metadata for the currencies moneyfmt knows how to render.'''

from dataclasses import dataclass


@dataclass(frozen=True)
class Currency:
    code: str
    symbol: str
    # Number of digits after the decimal point (ISO 4217 'minor unit').
    minor_units: int
    # '$12.00' vs '12,00 €'
    symbol_first: bool = True


class UnknownCurrencyError(KeyError):
    '''Raised for a currency code moneyfmt has no metadata for.'''


_CURRENCIES = {
    c.code: c
    for c in (
        Currency('USD', '$', 2),
        Currency('CAD', 'CA$', 2),
        Currency('EUR', '€', 2, symbol_first=False),
        Currency('GBP', '£', 2),
        Currency('CHF', 'CHF ', 2),
        Currency('JPY', '¥', 0),
        Currency('KRW', '₩', 0),
        Currency('ISK', 'kr', 0, symbol_first=False),
        Currency('KWD', 'KD ', 3),
        Currency('BHD', 'BD ', 3),
        Currency('TND', 'DT ', 3),
    )
}


def get_currency(code):
    '''Look up a currency by its ISO code (case-insensitive).'''
    try:
        return _CURRENCIES[code.strip().upper()]
    except (KeyError, AttributeError):
        raise UnknownCurrencyError(code) from None


def known_codes():
    return sorted(_CURRENCIES)
