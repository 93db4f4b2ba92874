# Accepted: prints only 7 digits after the decimal point; the rounding error
# (at most 5e-8) is well inside the 1e-6 tolerance.
import math
import sys

data = sys.stdin.read().split()
n = int(data[0])
print("\n".join("%.7f" % (math.pi * float(r) ** 2) for r in data[1 : n + 1]))
