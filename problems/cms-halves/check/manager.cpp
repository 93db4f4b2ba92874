// The manager of a CMS Communication task: reads the test's input on
// stdin, gives each copy of the contestant's program its half of the
// numbers through the FIFOs named by its arguments (for copy i:
// argv[1+2i] from the copy, argv[2+2i] to it), reads back each half's
// sum, and prints the outcome on stdout (1.0 or 0.0) with CMS's message
// on stderr.
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
    int copies = (argc - 1) / 2;
    int n;
    if (copies < 1 || scanf("%d", &n) != 1) return 1;
    std::vector<long long> a(n);
    long long total = 0;
    for (auto &x : a) {
        scanf("%lld", &x);
        total += x;
    }
    std::vector<FILE *> to(copies), from(copies);
    for (int i = 0; i < copies; i++) {
        to[i] = fopen(argv[2 + 2 * i], "w");
        from[i] = fopen(argv[1 + 2 * i], "r");
        if (!to[i] || !from[i]) return 1;
    }
    for (int i = 0; i < copies; i++) {
        int lo = n * i / copies, hi = n * (i + 1) / copies;
        fprintf(to[i], "%d", hi - lo);
        for (int k = lo; k < hi; k++) fprintf(to[i], " %lld", a[k]);
        fprintf(to[i], "\n");
        fflush(to[i]);
    }
    long long got = 0;
    for (int i = 0; i < copies; i++) {
        long long part;
        if (fscanf(from[i], "%lld", &part) != 1) {
            printf("0.0\n");
            fprintf(stderr, "translate:wrong\n");
            return 0;
        }
        got += part;
    }
    printf(got == total ? "1.0\n" : "0.0\n");
    fprintf(stderr, got == total ? "translate:success\n" : "translate:wrong\n");
    return 0;
}
