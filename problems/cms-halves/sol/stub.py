# The stub: main for the contestant's function (module halves). Its
# arguments are the FIFO from the manager, the FIFO to the manager and
# the copy's index.
import sys

import halves

with open(sys.argv[1]) as fin, open(sys.argv[2], "w") as fout:
    n, *a = map(int, fin.readline().split())
    print(halves.sum_half(n, a), file=fout, flush=True)
