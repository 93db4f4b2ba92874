/*
 * What a run can do on the mount holding each directory given:
 *   "<dir>: ro|rw nosuid|suid nodev|dev"   the mount's flags (statvfs)
 *   "WROTE <dir>" or "write <dir>: reason" creating a file in it
 *   "OPENED <dir>/null" or "device <dir>: reason"  opening the device node
 *                                          <dir>/null for reading and writing
 * With the single argument "ids": "uid <ruid> euid <euid>" (run as a
 * setuid copy, it shows whether the bit applied).
 */
#define _GNU_SOURCE /* ST_NODEV */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static void probe(const char *dir) {
	char p[4096];
	struct statvfs sv;
	if (statvfs(dir, &sv) < 0)
		printf("statvfs %s: %s\n", dir, strerror(errno));
	else
		printf("%s: %s %s %s\n", dir, sv.f_flag & ST_RDONLY ? "ro" : "rw", sv.f_flag & ST_NOSUID ? "nosuid" : "suid",
		       sv.f_flag & ST_NODEV ? "nodev" : "dev");
	snprintf(p, sizeof p, "%s/new", dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0)
		printf("write %s: %s\n", dir, strerror(errno));
	else
		printf("WROTE %s\n", dir), close(fd);
	snprintf(p, sizeof p, "%s/null", dir);
	fd = open(p, O_RDWR);
	if (fd < 0)
		printf("device %s: %s\n", dir, strerror(errno));
	else
		printf("OPENED %s\n", p), close(fd);
}

int main(int argc, char **argv) {
	if (argc == 2 && strcmp(argv[1], "ids") == 0) {
		printf("uid %d euid %d\n", (int)getuid(), (int)geteuid());
		return 0;
	}
	for (int i = 1; i < argc; i++)
		probe(argv[i]);
	return 0;
}
