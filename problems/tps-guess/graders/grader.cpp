// The stub (TPS names it grader.cpp; CMS runs it as stub.cpp): talks to
// the manager through stdin and stdout, which are the task's FIFOs.
#include <cstdio>
#include <cstdlib>
#include "guess.h"

int ask(int x) {
    printf("? %d\n", x);
    fflush(stdout);
    int r;
    if (scanf("%d", &r) != 1) exit(0);
    return r;
}

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    int y = guess(n);
    printf("! %d\n", y);
    fflush(stdout);
    return 0;
}
