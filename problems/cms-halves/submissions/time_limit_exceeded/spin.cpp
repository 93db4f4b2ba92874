#include "halves.h"

long long sum_half(int n, const long long *a) {
    volatile long long s = 0;
    for (;;) s += n;
}
