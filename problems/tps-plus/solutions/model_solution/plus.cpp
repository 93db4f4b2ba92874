// The reference solution.
#include "plus.h"

long long sum(long long a, long long b) { return a + b; }
