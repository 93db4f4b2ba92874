/*
 * docket-exec-client: docket-exec's command line, run by a docket-exec
 * server (docket-exec --serve) that keeps its sandbox warm. Written in C
 * so that a command per process pays no runtime start: it connects,
 * hands over its stdout and stderr, its working directory, its DOCKET_*
 * variables and its arguments, and exits with the code the server sends
 * back. The wire format is internal/execcli/serve_request.go's.
 *
 * The socket is $DOCKET_EXEC_SOCKET, else exec.sock in
 * $DOCKET_SANDBOX_DIR, else in the default state directory (/run/docket
 * for root, $TMPDIR/docket-<uid> otherwise), as the server finds it.
 * With no server there, and DOCKET_EXEC_SOCKET unset, it runs
 * docket-exec from its own directory with the same arguments: the same
 * command, without the warm sandbox.
 *
 * Killed while its command runs, it closes the connection, and the
 * server kills the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAGIC "docket-exec-client 1"
#define EXIT_SYSTEM 3
#define EXIT_USAGE 2

extern char **environ;

static void die(int code, const char *what, int err)
{
	if (err)
		fprintf(stderr, "docket-exec-client: %s: %s\n", what, strerror(err));
	else
		fprintf(stderr, "docket-exec-client: %s\n", what);
	exit(code);
}

/* socket_path writes the server's socket path into buf. */
static void socket_path(char *buf, size_t size)
{
	const char *p = getenv("DOCKET_EXEC_SOCKET");
	int n;
	if (p && *p) {
		n = snprintf(buf, size, "%s", p);
	} else if ((p = getenv("DOCKET_SANDBOX_DIR")) && *p) {
		n = snprintf(buf, size, "%s/exec.sock", p);
	} else if (geteuid() == 0) {
		n = snprintf(buf, size, "/run/docket/exec.sock");
	} else {
		const char *tmp = getenv("TMPDIR");
		n = snprintf(buf, size, "%s/docket-%u/exec.sock", tmp && *tmp ? tmp : "/tmp", (unsigned)geteuid());
	}
	if (n < 0 || (size_t)n >= size)
		die(EXIT_USAGE, "the server's socket path is longer than a unix socket's", 0);
}

/* run_standalone execs docket-exec from this program's directory. */
static void run_standalone(char **argv, const char *sock)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		die(EXIT_SYSTEM, "no server, and /proc/self/exe unreadable", errno);
	self[n] = 0;
	char *slash = strrchr(self, '/');
	char path[PATH_MAX];
	if (!slash || snprintf(path, sizeof path, "%.*s/docket-exec", (int)(slash - self), self) >= (int)sizeof path)
		die(EXIT_SYSTEM, "no server, and no path for docket-exec", 0);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "docket-exec-client: no server on %s (start one with docket-exec --serve), and %s: %s\n",
		sock, path, strerror(errno));
	exit(EXIT_SYSTEM);
}

/* buf is a growing byte buffer. */
struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		if (!(b->p = realloc(b->p, b->cap)))
			die(EXIT_SYSTEM, "out of memory", 0);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/* request is the whole request after the descriptors: the length
 * (step 1) and the body (step 2) in one buffer, sent at once. */
static struct buf request(char **args)
{
	struct buf b = {0};
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		die(EXIT_SYSTEM, "working directory", errno);
	put(&b, "123"); /* room for the length, set below */
	put(&b, MAGIC);
	put(&b, cwd);
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, "DOCKET_", 7) && strchr(*e, '='))
			put(&b, *e);
	put(&b, "");
	for (; *args; args++)
		put(&b, *args);
	uint32_t len = (uint32_t)(b.len - 4);
	unsigned char *head = (unsigned char *)b.p;
	head[0] = len & 0xff, head[1] = (len >> 8) & 0xff, head[2] = (len >> 16) & 0xff, head[3] = len >> 24;
	return b;
}

/* send_request sends the request with stdout and stderr attached. */
static void send_request(int sock, struct buf *req)
{
	int fds[2] = {1, 2};
	char control[CMSG_SPACE(sizeof fds)];
	memset(control, 0, sizeof control);
	struct iovec iov = {.iov_base = req->p, .iov_len = req->len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(c), fds, sizeof fds);
	ssize_t n;
	while ((n = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n < 0)
		die(EXIT_SYSTEM, "sending the request to the server", errno);
	for (size_t off = (size_t)n; off < req->len;) { /* what the first send left */
		ssize_t w = send(sock, req->p + off, req->len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die(EXIT_SYSTEM, "sending the request to the server", errno);
		off += (size_t)w;
	}
}

/* stdio_open gives a closed stdout or stderr /dev/null, as the server
 * needs a descriptor for each (docket-exec would write into nothing). */
static void stdio_open(void)
{
	for (int fd = 1; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	stdio_open();
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	socket_path(addr.sun_path, sizeof addr.sun_path);
	int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		die(EXIT_SYSTEM, "socket", errno);
	if (connect(sock, (struct sockaddr *)&addr, sizeof addr) < 0) {
		int err = errno;
		const char *explicit = getenv("DOCKET_EXEC_SOCKET");
		if ((err == ENOENT || err == ECONNREFUSED) && !(explicit && *explicit))
			run_standalone(argv, addr.sun_path);
		fprintf(stderr, "docket-exec-client: connecting to %s: %s\n", addr.sun_path, strerror(err));
		return EXIT_SYSTEM;
	}
	struct buf req = request(argv + 1);
	send_request(sock, &req);
	unsigned char code;
	ssize_t n;
	while ((n = read(sock, &code, 1)) < 0 && errno == EINTR)
		;
	if (n < 0)
		die(EXIT_SYSTEM, "reading the exit code", errno);
	if (n == 0)
		die(EXIT_SYSTEM, "the server closed the connection without an exit code", 0);
	return code;
}
