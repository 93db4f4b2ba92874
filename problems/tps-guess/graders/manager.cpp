// The manager: reads n and the secret number from the test's input on
// stdin, answers up to 32 questions from the contestant's program
// through the FIFOs (argv[1] from it, argv[2] to it), and prints the
// outcome (1 or 0) on stdout and CMS's message on stderr.
#include <cstdio>

static void outcome(bool ok, const char *why) {
    printf(ok ? "1\n" : "0\n");
    fprintf(stderr, "%s\n", ok ? "translate:success" : why);
}

int main(int argc, char **argv) {
    if (argc < 3) return 1;
    long long n, secret;
    if (scanf("%lld %lld", &n, &secret) != 2) return 1;
    FILE *to = fopen(argv[2], "w");
    FILE *from = fopen(argv[1], "r");
    if (!to || !from) return 1;
    fprintf(to, "%lld\n", n);
    fflush(to);
    for (int asked = 0;; asked++) {
        char c;
        long long x;
        if (fscanf(from, " %c %lld", &c, &x) != 2) {
            outcome(false, "translate:wrong");
            return 0;
        }
        if (c == '!') {
            outcome(x == secret, "translate:wrong");
            return 0;
        }
        if (asked == 32) {
            outcome(false, "too many questions");
            return 0;
        }
        fprintf(to, "%d\n", x < secret ? -1 : x > secret ? 1 : 0);
        fflush(to);
    }
}
