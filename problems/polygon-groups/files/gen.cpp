// Generator: n numbers between min and max, from testlib's rnd, seeded
// by the command line (the same command writes the same test).
#include "testlib.h"
#include <cstdio>

int main(int argc, char* argv[]) {
    registerGen(argc, argv, 1);
    int n = opt<int>("n");
    long long lo = opt<long long>("min", 1LL), hi = opt<long long>("max");
    std::printf("%d\n", n);
    for (int i = 0; i < n; i++)
        std::printf("%lld%c", rnd.next(lo, hi), i + 1 < n ? ' ' : '\n');
}
