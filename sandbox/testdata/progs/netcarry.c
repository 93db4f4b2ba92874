/*
 * netcarry tries to carry something from one run to the next through the
 * network namespace: an abstract unix socket kept alive in flight.
 *
 *   netcarry leave NAME   binds a datagram socketpair's end to @NAME and
 *                         sends both ends through the pair itself
 *                         (SCM_RIGHTS), so they outlive every descriptor
 *   netcarry probe NAME   says whether @NAME exists (a datagram to it is
 *                         refused as it would be by a socket connected
 *                         to another, not as by no socket at all)
 *   netcarry both NAME    leave, then probe from the same process: the
 *                         control, showing that the name does outlive it
 *
 * Each prints: ns=<its network namespace> unix=<unix sockets in it when
 * it started> name=<left|present|absent> cookie=<the namespace's cookie>.
 * The cookie (SO_NETNS_COOKIE, Linux 5.14) is never given to another
 * namespace, where the inode number of ns= is once one is freed; 0 where
 * the kernel has none, and for leave and both, whose sockets left in
 * flight the socket made to ask for it could have collected (a unix
 * socket's close runs the kernel's garbage collector before Linux 6.10).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static socklen_t abstract(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n > sizeof a->sun_path - 2)
		n = sizeof a->sun_path - 2;
	memcpy(a->sun_path + 1, name, n); /* sun_path[0] = 0: abstract */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int unix_sockets(void)
{
	FILE *f = fopen("/proc/net/unix", "r");
	if (!f)
		return -1;
	char line[512];
	int n = -1; /* the header */
	while (fgets(line, sizeof line, f))
		n++;
	fclose(f);
	return n;
}

static int leave(const char *name)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return perror("socketpair"), -1;
	struct sockaddr_un a;
	socklen_t len = abstract(&a, name);
	if (bind(sv[0], (struct sockaddr *)&a, len) < 0)
		return perror("bind"), -1;
	char byte = 'x';
	struct iovec iov = {&byte, 1};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(2 * sizeof(int))];
	} c;
	memset(&c, 0, sizeof c);
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(h), sv, sizeof sv);
	if (sendmsg(sv[1], &m, 0) < 0)
		return perror("sendmsg"), -1;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static unsigned long long netns_cookie(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return 0;
	unsigned long long c = 0;
	socklen_t len = sizeof c;
	if (getsockopt(sv[0], SOL_SOCKET, SO_NETNS_COOKIE, &c, &len) < 0)
		c = 0;
	close(sv[0]);
	close(sv[1]);
	return c;
}

static const char *probe(const char *name)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return "error";
	struct sockaddr_un a;
	socklen_t len = abstract(&a, name);
	int r = (int)sendto(sv[0], "y", 1, 0, (struct sockaddr *)&a, len);
	int e = errno;
	close(sv[0]);
	close(sv[1]);
	/* The name's socket is connected to its pair: a datagram from
	 * another is refused with EPERM, where no such name is ECONNREFUSED. */
	if (r == 1 || e == EPERM)
		return "present";
	return e == ECONNREFUSED ? "absent" : "error";
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	char ns[64] = "";
	if (readlink("/proc/self/ns/net", ns, sizeof ns - 1) < 0)
		strcpy(ns, "unknown");
	int before = unix_sockets();
	const char *what = "left";
	unsigned long long cookie = 0;
	if (strcmp(argv[1], "probe") == 0) {
		what = probe(argv[2]);
		cookie = netns_cookie();
	} else if (leave(argv[2]) < 0) {
		return 1;
	} else if (strcmp(argv[1], "both") == 0) {
		what = probe(argv[2]);
	}
	printf("ns=%s unix=%d name=%s cookie=%llu\n", ns, before, what, cookie);
	return 0;
}
