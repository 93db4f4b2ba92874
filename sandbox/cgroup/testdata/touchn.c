/* Touches argv[1] MiB of heap, one write per page (a trusted test program). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 1) << 20;
	volatile char *p = malloc(n);
	if (!p) return 3;
	for (size_t i = 0; i < n; i += 4096) p[i] = 1;
	printf("%d\n", p[n - 4096]);
	return 0;
}
