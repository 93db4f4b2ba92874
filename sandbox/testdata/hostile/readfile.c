/* Tries to read each path given; prints "LEAK path" for any it could read
   and "blocked path: reason" otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		char b[4096];
		if (fd < 0) { printf("blocked %s: %s\n", argv[i], strerror(errno)); continue; }
		ssize_t n = read(fd, b, sizeof b - 1);
		if (n < 0) { printf("blocked %s: read %s\n", argv[i], strerror(errno)); continue; }
		for (ssize_t j = 0; j < n; j++) if (b[j] == 0) b[j] = ' ';
		b[n] = 0;
		printf("LEAK %s: %.200s\n", argv[i], b);
	}
	return 0;
}
