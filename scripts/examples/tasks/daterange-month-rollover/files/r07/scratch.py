from datetime import date

from daterange import DateRange, split_by_month

for start, end in [
    (date(2023, 11, 15), date(2024, 2, 10)),
    (date(2022, 12, 1), date(2022, 12, 31)),
    (date(2020, 1, 1), date(2020, 3, 31)),
]:
    print(f"{start}..{end}:")
    for chunk in split_by_month(DateRange(start, end)):
        print("   ", chunk)
