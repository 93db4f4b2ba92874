/* Output limit exceeded: prints the answer, then the same line forever
   (limits.output is 1 MiB; the time limit is 1 s). */
#include <stdio.h>

int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    for (;;) printf("%lld\n", a + b);
}
