/* Touches exactly 64 MiB of heap, one write per page. */
#include <stdio.h>
#include <stdlib.h>
int main(void) {
	size_t n = 64 << 20;
	volatile char *p = malloc(n);
	if (!p) return 3;
	for (size_t i = 0; i < n; i += 4096) p[i] = 1;
	printf("%d\n", p[n - 4096]);
	return 0;
}
