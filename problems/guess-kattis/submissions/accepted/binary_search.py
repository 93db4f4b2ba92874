# Accepted: binary search, flushing with print(..., flush=True).
import sys

lo, hi = 1, 10**9
while lo <= hi:
    g = (lo + hi) // 2
    print(g, flush=True)
    reply = sys.stdin.readline().strip()
    if reply == "=" or reply == "":
        break
    if reply == "<":
        hi = g - 1
    else:
        lo = g + 1
