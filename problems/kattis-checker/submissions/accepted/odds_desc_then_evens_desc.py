# Accepted with a different output than evens_then_odds.cpp:
# odd numbers descending, then even numbers descending (... 3 1 | n' ... 4 2).
# The join is 1 followed by the largest even number (>= 4 when n >= 4).
n = int(input())
if n in (2, 3):
    print("impossible")
else:
    odds = [v for v in range(n, 0, -1) if v % 2 == 1]
    evens = [v for v in range(n, 0, -1) if v % 2 == 0]
    print(*(odds + evens))
