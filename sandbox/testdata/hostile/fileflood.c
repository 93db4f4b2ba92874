/* Writes one file without end: argv[1] is its path (in the box or /tmp). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) { printf("open: %s\n", strerror(errno)); return 2; }
	char b[65536]; memset(b, 'x', sizeof b);
	for (;;) if (write(fd, b, sizeof b) < 0) { printf("write: %s\n", strerror(errno)); return 3; }
}
