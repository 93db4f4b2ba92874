/* Fails an assertion: the run must end by SIGABRT, as it would on a host. */
#include <stdlib.h>
int main(void) { abort(); }
