# Wrong answer: handles n >= 4 correctly but prints a permutation
# (which must break the rule) instead of "impossible" for n = 2 and 3.
n = int(input())
print(*(list(range(2, n + 1, 2)) + list(range(1, n + 1, 2))))
