/* Creates threads until refused, prints how many it got, then spins. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *idle(void *a) { (void)a; for (;;) pause(); return 0; }
int main(void) {
	int n = 0;
	pthread_t t;
	while (n < 100000 && pthread_create(&t, 0, idle, 0) == 0) n++;
	printf("threads %d\n", n);
	fflush(stdout);
	for (;;) { if (pthread_create(&t, 0, idle, 0) == 0) n++; }
}
