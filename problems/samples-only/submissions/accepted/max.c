#include <stdio.h>

int main(void) {
    int n;
    long long x, best;
    if (scanf("%d %lld", &n, &best) != 2) return 1;
    for (int i = 1; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        if (x > best) best = x;
    }
    printf("%lld\n", best);
    return 0;
}
