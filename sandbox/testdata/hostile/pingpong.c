/* pingpong.c ping|pong: the two sides of an interactive pair. ping sends
   a number and expects its double back; pong doubles what it reads. */
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
	long x;
	if (argc > 1 && !strcmp(argv[1], "ping")) {
		printf("21\n"); fflush(stdout);
		if (scanf("%ld", &x) != 1) return 3;
		fprintf(stderr, "got %ld\n", x);
		return x == 42 ? 0 : 4;
	}
	if (scanf("%ld", &x) != 1) return 3;
	printf("%ld\n", 2 * x); fflush(stdout);
	return 0;
}
