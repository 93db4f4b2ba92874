# Handles n up to 10 only: crashes on group 2's tests.
n = int(input())
assert n <= 10, "n too large"
print(sum(map(int, input().split())))
