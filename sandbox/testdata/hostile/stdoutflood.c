/* Writes to stdout without end. */
#include <string.h>
#include <unistd.h>
int main(void) { char b[65536]; memset(b, 'x', sizeof b); for (;;) write(1, b, sizeof b); }
