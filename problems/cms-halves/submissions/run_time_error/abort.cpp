#include <cstdlib>
#include "halves.h"

long long sum_half(int n, const long long *a) { abort(); }
