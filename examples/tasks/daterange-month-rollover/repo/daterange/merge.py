from .core import DateRange


def merge(ranges):
    """Merge overlapping and adjacent ranges; the result is sorted and disjoint."""
    merged = []
    for r in sorted(ranges):
        if merged and merged[-1].touches(r):
            last = merged[-1]
            merged[-1] = DateRange(last.start, max(last.end, r.end))
        else:
            merged.append(r)
    return merged
