/* Wrong answer: prints a - b instead of a + b (right only when b == 0). */
#include <stdio.h>

int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    printf("%lld\n", a - b);
    return 0;
}
