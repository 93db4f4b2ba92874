/* sysfuzz.c SECONDS SEED WORKERS THREADS: random system calls with random
   arguments. CALLS (a file in the working directory) lists the call
   numbers to draw from, one a line. The parent keeps WORKERS worker
   processes of THREADS threads each fuzzing (a worker that ends is
   replaced within a millisecond), and every RECYCLE_MS kills every other
   process of the run (a worker stuck in a call, a child a fuzzed clone
   made, one that moved to a session of its own), until SECONDS have
   passed. It then prints "sysfuzz calls N workers W" and how the workers
   ended, and exits 0. It refuses to run outside a run's PID namespace or
   as root: it kills every process it can.

   Arguments are drawn from: zero, small numbers (file descriptors,
   flags, lengths), -1, powers of two, random 64-bit words and pointers
   into a scratch buffer (random bytes, some of them a path). The parent
   makes no random call; workers write to /dev/null, not to the run's
   pipes (a flood would end the run as OLE, which is not what is tested).
   What keeps the fuzzer going: a signal or a limit a fuzzed call sets
   goes to the caller itself (sanitize); the signals a worker sends itself
   are caught (onsignal); a timer interrupts a blocked call, and what a
   fuzzed call did to the timer and SIGALRM is undone (restore). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RECYCLE_MS 200
#define MAX_CALLS 512

static long calls[MAX_CALLS];
static int ncalls;
static _Atomic unsigned long *counter; /* shared with the workers */
static char *scratch;                  /* 64 KiB of random bytes */
static pid_t parent;

static uint64_t next(uint64_t *s) { /* xorshift64* */
	*s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static uint64_t randarg(uint64_t *s) {
	uint64_t r = next(s);
	switch (r % 8) {
	case 0: return 0;
	case 1: return (r >> 8) % 16;
	case 2: return (uint64_t)-1;
	case 3: return 1ULL << ((r >> 8) % 64);
	case 4: case 5: return (uintptr_t)(scratch + (r >> 8) % 65000);
	case 6: return (r >> 8) % 4096;
	default: return next(s);
	}
}

/* sanitize keeps a worker from ending the fuzzer: calls that signal or
   limit a process by id act on the caller. */
static void sanitize(long nr, uint64_t *a) {
	pid_t me = getpid();
	switch (nr) {
	case SYS_kill: case SYS_rt_sigqueueinfo: case SYS_pidfd_open:
		a[0] = me; break;
	case SYS_tgkill: case SYS_rt_tgsigqueueinfo:
		a[0] = me; a[1] = syscall(SYS_gettid); break;
	case SYS_tkill:
		a[0] = syscall(SYS_gettid); break;
	case SYS_prlimit64:
		a[0] = 0; break;
	case SYS_setpriority:
		a[0] = PRIO_PROCESS; a[1] = 0; break;
	}
}

/* onsignal lets a worker survive the signals its fuzzed calls send it
   (kill, tgkill and the like, pointed at the caller, with a random
   signal), and the timer's SIGALRM; a true fault (a fuzzed munmap,
   mprotect or arch_prctl broke the worker) ends it, rather than fault
   again on return. */
static void onsignal(int sig, siginfo_t *info, void *ctx) {
	(void)ctx;
	if (info->si_code > 0 && sig != SIGALRM && sig != SIGCHLD && sig != SIGIO && sig != SIGPIPE)
		_exit(128 + sig);
}

static void handlesignals(void) {
	struct sigaction sa = {0};
	sa.sa_sigaction = onsignal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a blocked call fails with EINTR */
	for (int sig = 1; sig < 65; sig++)
		if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &sa, 0);
}

/* interrupting arms a timer that sends this thread SIGALRM every 2 ms,
   whose handler (no SA_RESTART) makes a blocked call fail with EINTR: a
   random call blocks often (a sleep, a wait, a read), and the thread goes
   on fuzzing instead of waiting for its worker to be recycled. */
static __thread timer_t alarmtimer;
static __thread int hastimer;

static void interrupting(void) {
	if (hastimer) timer_delete(alarmtimer);
	hastimer = 0;
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGALRM;
	ev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &alarmtimer) == 0) {
		hastimer = 1;
		struct itimerspec it = {{0, 2000000}, {0, 2000000}};
		timer_settime(alarmtimer, 0, &it, 0);
	}
}

/* restore undoes what a fuzzed call did to the fuzzer's own means of
   going on: SIGALRM's handler, its being unblocked, this thread's timer.
   Without it a thread that blocked SIGALRM or dropped its timer waits in
   its next blocking call until its worker is recycled. */
static void restore(long nr) {
	switch (nr) {
	case SYS_rt_sigprocmask: case SYS_rt_sigaction: case SYS_sigaltstack: {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGALRM);
		pthread_sigmask(SIG_UNBLOCK, &set, 0);
		handlesignals();
		break;
	}
	case SYS_timer_settime: case SYS_timer_delete: case SYS_timer_create:
		interrupting();
		break;
	}
}

static void *fuzz(void *arg) {
	uint64_t s = (uintptr_t)arg * 0x9E3779B97F4A7C15ULL + 1;
	interrupting();
	for (;;) {
		long nr = calls[next(&s) % ncalls];
		uint64_t a[6];
		for (int i = 0; i < 6; i++) a[i] = randarg(&s);
		sanitize(nr, a);
		syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		restore(nr);
		atomic_fetch_add(counter, 1);
	}
	return 0;
}

static void worker(uint64_t seed, int threads) {
	int null = open("/dev/null", O_RDWR);
	dup2(null, 0); dup2(null, 1); dup2(null, 2);
	setpgid(0, 0);
	handlesignals();
	struct rlimit as = {256 << 20, 256 << 20};
	setrlimit(RLIMIT_AS, &as);
	for (int i = 1; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, 0, fuzz, (void *)(uintptr_t)(seed + i));
	}
	fuzz((void *)(uintptr_t)seed);
}

/* How workers ended: [n] by signal n, [0] by exit, [64+n] by exit
   128+n (the handler's for a fault of signal n), [129] killed by the
   recycling. */
static unsigned long ended[130];

/* reap counts how the workers that ended did, and returns how many. */
static int reap(int flags, int recycled) {
	int st, n = 0;
	while (waitpid(-1, &st, flags | __WALL) > 0) {
		n++;
		if (recycled) ended[129]++;
		else if (WIFSIGNALED(st)) ended[WTERMSIG(st) & 63]++;
		else if (WEXITSTATUS(st) > 128) ended[64 + (WEXITSTATUS(st) - 128) % 64]++;
		else ended[0]++;
	}
	return n;
}

/* killothers kills every process of the run but the parent and PID 1. */
static void killothers(void) {
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d) return;
	while ((e = readdir(d))) {
		pid_t p = atoi(e->d_name);
		if (p > 1 && p != parent) kill(p, SIGKILL);
	}
	closedir(d);
	reap(0, 1); /* every child was killed: wait for them all */
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void readcalls(void) {
	FILE *f = fopen("CALLS", "r");
	if (!f) { perror("CALLS"); exit(2); }
	while (ncalls < MAX_CALLS && fscanf(f, "%ld", &calls[ncalls]) == 1) ncalls++;
	fclose(f);
	if (ncalls == 0) { fprintf(stderr, "CALLS is empty\n"); exit(2); }
}

int main(int argc, char **argv) {
	if (argc != 5) { fprintf(stderr, "usage: sysfuzz SECONDS SEED WORKERS THREADS\n"); return 2; }
	double secs = atof(argv[1]);
	uint64_t seed = strtoull(argv[2], 0, 10) | 1;
	int workers = atoi(argv[3]), threads = atoi(argv[4]);
	/* killothers kills every process it can: only ever inside a run's
	   own PID namespace (the target is PID 2 there), never as root. */
	if (getpid() > 16 || getuid() == 0) {
		fprintf(stderr, "sysfuzz runs only as a sandboxed run's target (pid %d, uid %d)\n", getpid(), getuid());
		return 2;
	}
	readcalls();
	parent = getpid();
	counter = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	scratch = malloc(65536);
	uint64_t s = seed;
	for (int i = 0; i < 65536; i += 8) { uint64_t r = next(&s); memcpy(scratch + i, &r, 8); }
	strcpy(scratch, "/tmp/fuzz"); strcpy(scratch + 64, "/box/CALLS"); strcpy(scratch + 128, ".");
	signal(SIGPIPE, SIG_IGN);
	double end = now() + secs, recycle = now() + RECYCLE_MS / 1e3;
	unsigned long spawned = 0;
	int live = 0;
	while (now() < end) {
		/* Every millisecond a worker that ended is replaced; every
		   RECYCLE_MS every process but this one is killed. */
		for (; live < workers; live++) {
			pid_t p = fork();
			if (p == 0) { worker(next(&s), threads); _exit(0); }
			if (p < 0) break;
			spawned++;
		}
		struct timespec t = {0, 1000000};
		nanosleep(&t, 0);
		live -= reap(WNOHANG, 0);
		if (now() > recycle) {
			killothers();
			live = 0;
			recycle = now() + RECYCLE_MS / 1e3;
		}
	}
	killothers();
	printf("sysfuzz calls %lu workers %lu\n", atomic_load(counter), spawned);
	for (int i = 0; i < 130; i++) {
		if (!ended[i]) continue;
		if (i == 129) printf("ended recycled: %lu\n", ended[i]);
		else if (i >= 64) printf("ended fault %d: %lu\n", i - 64, ended[i]);
		else if (i) printf("ended signal %d: %lu\n", i, ended[i]);
		else printf("ended exit: %lu\n", ended[i]);
	}
	return 0;
}
