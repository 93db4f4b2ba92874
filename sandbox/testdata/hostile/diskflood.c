/*
 * Fills its writable space: argv[1] is a directory (/box or /tmp), argv[2]
 * "bytes" (file after file of 64 KiB writes, a new file at each EFBIG or
 * ENOSPC, SIGXFSZ ignored), "inodes" (empty files until refused) or
 * "exactly N" (one file of N bytes, then exit 0). It stops on its own after
 * 256 MiB or 100000 files, so that a sandbox without a disk bound lets it
 * exit 0 instead of filling the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[65536];

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	signal(SIGXFSZ, SIG_IGN);
	memset(buf, 'x', sizeof buf);
	char path[4096];
	if (strcmp(argv[2], "exactly") == 0) {
		long long n = atoll(argv[3]);
		snprintf(path, sizeof path, "%s/exact", argv[1]);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) { printf("open: %s\n", strerror(errno)); return 3; }
		while (n > 0) {
			ssize_t w = write(fd, buf, n < (long long)sizeof buf ? (size_t)n : sizeof buf);
			if (w < 0) { printf("write: %s\n", strerror(errno)); return 3; }
			n -= w;
		}
		close(fd);
		printf("wrote exactly %s\n", argv[3]);
		return 0;
	}
	int inodes = strcmp(argv[2], "inodes") == 0;
	long long total = 0;
	int files = 0, refused = 0;
	while (total < (256LL << 20) && files < 100000 && refused < 100000) {
		snprintf(path, sizeof path, "%s/f%d", argv[1], files);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) { refused++; continue; }
		files++;
		if (!inodes)
			for (;;) {
				ssize_t w = write(fd, buf, sizeof buf);
				if (w <= 0) { refused++; break; }
				total += w;
			}
		close(fd);
	}
	printf("wrote %lld bytes in %d files, %d refusals\n", total, files, refused);
	return 0;
}
