/* Tries to create each path given; prints "WROTE path" or "blocked path: reason". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0) { printf("blocked %s: %s\n", argv[i], strerror(errno)); continue; }
		if (write(fd, "x", 1) == 1) printf("WROTE %s\n", argv[i]); else printf("blocked %s: write %s\n", argv[i], strerror(errno));
		close(fd);
	}
	return 0;
}
