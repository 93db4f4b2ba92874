/* Opens /dev/null until refused and prints how many descriptors it got. */
#include <fcntl.h>
#include <stdio.h>
int main(void) { int n = 0; while (n < 1000000 && open("/dev/null", O_RDONLY) >= 0) n++; printf("opened %d\n", n); return 0; }
