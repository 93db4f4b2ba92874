/* Spends a measurable amount of CPU time before answering, so that the
   computed time limit is visibly derived from it. */
#include <stdio.h>

int main(void) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 150000000UL; i++)
        x += i;
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2)
        return 1;
    printf("%ld\n", a + b);
    return 0;
}
