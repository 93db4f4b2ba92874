/* Leaves a grandchild behind that would run forever, and exits at once. */
#include <stdio.h>
#include <unistd.h>
int main(void) {
	if (fork() == 0) { if (fork() == 0) { setsid(); for (;;) pause(); } _exit(0); }
	printf("parent leaving\n");
	return 0;
}
