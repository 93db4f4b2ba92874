/* kill(-1, SIGKILL): every process it may signal. Prints what kill said. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
int main(void) { int r = kill(-1, SIGKILL); printf("kill(-1) = %d (%s), still alive\n", r, r ? strerror(errno) : "ok"); return 0; }
