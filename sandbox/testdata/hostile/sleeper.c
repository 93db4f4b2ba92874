/* Sleeps forever without using CPU. */
#include <unistd.h>
int main(void) { for (;;) pause(); }
