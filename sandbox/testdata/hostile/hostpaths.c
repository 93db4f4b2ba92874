/*
 * Prints every path of the host a run could learn about itself: where its
 * standard descriptors and working directory lead, and its mount table.
 */
#include <stdio.h>
#include <unistd.h>

static void link_of(const char *p)
{
	char buf[4096];
	ssize_t n = readlink(p, buf, sizeof buf - 1);
	buf[n < 0 ? 0 : n] = 0;
	printf("%s -> %s\n", p, buf);
}

int main(void)
{
	link_of("/proc/self/fd/0");
	link_of("/proc/self/fd/1");
	link_of("/proc/self/fd/2");
	link_of("/proc/self/cwd");
	link_of("/proc/self/exe");
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	while (f && fgets(line, sizeof line, f))
		fputs(line, stdout);
	return 0;
}
