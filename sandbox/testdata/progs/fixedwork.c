/* A fixed amount of CPU work: argv[1] million rounds of an integer loop
 * (default 1000), whatever the time it takes. Unlike busy.c, which stops
 * at a CPU time, its measured CPU time varies with the machine and the
 * measurement: BenchmarkTimingNoise reports how much. */
#include <stdlib.h>
int main(int argc, char **argv) {
	long rounds = argc > 1 ? atol(argv[1]) : 1000;
	volatile unsigned long x = 0;
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 1000000; i++) x += i ^ r;
	return 0;
}
