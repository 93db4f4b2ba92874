// The task's grader: it holds main and calls the contestant's sum.
#include <cstdio>
#include "plus.h"

int main() {
    long long a, b;
    if (std::scanf("%lld %lld", &a, &b) != 2) return 1;
    std::printf("%lld\n", sum(a, b));
    return 0;
}
