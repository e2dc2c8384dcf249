# Reproduction for "format_money ignores the currency's minor units"
from moneyfmt import format_amount, format_money

cases = [
    (format_money(1500, "JPY"), "¥1,500"),
    (format_money("12.345", "KWD"), "KD 12.345"),
    (format_amount("980.5", "JPY"), "981"),
]
ok = True
for got, want in cases:
    status = "OK " if got == want else "BAD"
    ok = ok and got == want
    print(f"{status} got={got!r} want={want!r}")
raise SystemExit(0 if ok else 1)
