"""The same advantage computation as gagar's batch kernel, vectorized with numpy (groups of equal size).

Reads rewards, passing mask and rank positions written by bench/advantages.bench.ts, times the
computation only (median of REPS), and prints JSON with the timing and the result for cross-checking.
"""
import json, sys, time
import numpy as np

def compute(r, p, q, lam):
    mean = r.mean(axis=1, keepdims=True)
    std = r.std(axis=1, ddof=1, keepdims=True)
    a = (r - mean) / (std + 1e-6)
    w = 1.0 - lam * q
    pa = np.where(p, a, 0.0)
    k = p.sum(axis=1)
    qmax = np.where(p, q, -np.inf).max(axis=1)
    qmin = np.where(p, q, np.inf).min(axis=1)
    pos = (pa > 0).sum(axis=1)
    neg = (pa < 0).sum(axis=1)
    apply = (k >= 2) & (qmax > qmin) & (pos + neg > 0) & ~((pos > 0) & (neg > 0))
    s = pa.sum(axis=1)
    sw = (pa * w).sum(axis=1)
    scale = np.where(apply, s / np.where(sw == 0, 1.0, sw), 1.0)
    return np.where(p & apply[:, None], a * w * scale[:, None], a)

def main():
    prefix, size, lam, reps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    r = np.fromfile(prefix + ".rewards", dtype=np.float64).reshape(-1, size)
    p = np.fromfile(prefix + ".passing", dtype=np.uint8).reshape(-1, size).astype(bool)
    q = np.fromfile(prefix + ".position", dtype=np.float64).reshape(-1, size)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = compute(r, p, q, lam)
        times.append(time.perf_counter() - t0)
    out.astype(np.float64).tofile(prefix + ".numpy-out")
    print(json.dumps({"medianMs": sorted(times)[len(times) // 2] * 1000, "numpy": np.__version__}))

main()
