# Accepted: sort positions by value and walk two pointers inwards. It often
# finds a different pair than hash.cpp, which the checker also accepts.
import sys

data = sys.stdin.buffer.read().split()
n, S = int(data[0]), int(data[1])
a = list(map(int, data[2 : 2 + n]))
order = sorted(range(n), key=lambda k: a[k])
lo, hi = 0, n - 1
while lo < hi:
    s = a[order[lo]] + a[order[hi]]
    if s == S:
        i, j = sorted((order[lo] + 1, order[hi] + 1))
        print(i, j)
        break
    if s < S:
        lo += 1
    else:
        hi -= 1
else:
    print(-1)
