/* Burns CPU for argv[1] milliseconds of its own CPU time (default 1000). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	volatile unsigned long x = 0;
	double start = cpu();
	while ((cpu() - start) * 1000 < ms) for (int i = 0; i < 100000; i++) x += i;
	return 0;
}
