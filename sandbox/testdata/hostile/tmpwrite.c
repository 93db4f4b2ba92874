/* tmpwrite.c write|read: leaves a file in /tmp, or looks for it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "write")) { FILE *f = fopen("/tmp/left-behind", "w"); if (!f) return 2; fputs("x", f); fclose(f); printf("written\n"); return 0; }
	printf(access("/tmp/left-behind", F_OK) == 0 ? "FOUND\n" : "clean\n");
	return 0;
}
