# Accepted (100 points): Python integers do not overflow.
import sys

data = sys.stdin.read().split()
n = int(data[0])
print(sum(map(int, data[1 : n + 1])))
