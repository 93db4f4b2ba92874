# CMS comparator (argv: input, answer, output): the output must be
# powers of two, separated by white space, that add up to the input's N.
# The outcome is the fewest terms possible (the answer file) over the
# number of terms given: 1 for the best, part of the points for more.
import sys


def read_terms(path):
    try:
        words = open(path, encoding="ascii").read().split()
    except (UnicodeDecodeError, OSError):
        return None
    if not words or len(words) > 10000 or any(not w.isdigit() or len(w) > 40 for w in words):
        return None
    return [int(w) for w in words]


def main():
    n = int(open(sys.argv[1]).read())
    best = int(open(sys.argv[2]).read())
    terms = read_terms(sys.argv[3])
    if terms is None or any(t <= 0 or t & (t - 1) for t in terms):
        print(0.0)
        print("the output is not a list of powers of two", file=sys.stderr)
    elif sum(terms) != n:
        print(0.0)
        print("the terms do not add up to N", file=sys.stderr)
    elif len(terms) == best:
        print(1.0)
        print("translate:success", file=sys.stderr)
    else:
        print(best / len(terms))
        print("%d terms, %d would do" % (len(terms), best), file=sys.stderr)


main()
