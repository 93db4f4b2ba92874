#include "halves.h"

long long sum_half(int n, const long long *a) {
    long long s = 1;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}
