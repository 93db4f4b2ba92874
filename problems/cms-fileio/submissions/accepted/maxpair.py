with open("input.txt") as f:
    n, *a = map(int, f.read().split())
a.sort(reverse=True)
with open("output.txt", "w") as f:
    print(a[0] + a[1], file=f)
