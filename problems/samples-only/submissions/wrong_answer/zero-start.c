/* Wrong answer: starts the maximum at 0, so an all-negative list (the
   second sample) gets 0. */
#include <stdio.h>

int main(void) {
    int n;
    long long x, best = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        if (x > best) best = x;
    }
    printf("%lld\n", best);
    return 0;
}
