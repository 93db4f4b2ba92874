# Accepted (first program): hands only the three results to second.
import sys

data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1 : n + 1]))
with open("handoff.txt", "w") as f:
    f.write(f"{min(a)} {max(a)} {sum(a)}\n")
