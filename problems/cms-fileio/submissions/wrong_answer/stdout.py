# Prints to stdout instead of output.txt: "Evaluation didn't produce file output.txt".
n, *a = map(int, open("input.txt").read().split())
a.sort(reverse=True)
print(a[0] + a[1])
