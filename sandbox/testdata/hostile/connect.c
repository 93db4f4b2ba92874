/* connect.c tcp PORT | unix PATH: tries to reach a listener on the host.
   Prints "blocked: ..." when refused, "CONNECTED" when it got through. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(int argc, char **argv) {
	if (argc < 3) return 2;
	int tcp = strcmp(argv[1], "tcp") == 0;
	int fd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) { printf("blocked: socket: %s\n", strerror(errno)); return 0; }
	int r;
	if (tcp) {
		struct sockaddr_in a = {0};
		a.sin_family = AF_INET; a.sin_port = htons(atoi(argv[2])); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		r = connect(fd, (struct sockaddr *)&a, sizeof a);
	} else {
		struct sockaddr_un a = {0};
		a.sun_family = AF_UNIX; strncpy(a.sun_path, argv[2], sizeof a.sun_path - 1);
		r = connect(fd, (struct sockaddr *)&a, sizeof a);
	}
	if (r < 0) { printf("blocked: connect: %s\n", strerror(errno)); return 0; }
	printf("CONNECTED\n");
	return 0;
}
