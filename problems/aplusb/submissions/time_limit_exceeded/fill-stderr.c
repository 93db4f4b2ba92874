/* Time limit exceeded: prints the right answer, then floods stderr
   forever (DOMjudge's test-fill-stderr). A submission's stderr is kept up
   to a cap and the rest drained and dropped, never a verdict of its own:
   the flood only burns time, so the time limit ends it (TLE, not OLE). */
#include <stdio.h>

int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    printf("%lld\n", a + b);
    fflush(stdout);
    for (;;) fputs("Fill stderr with nonsense, to test the judge's stability.\n", stderr);
}
