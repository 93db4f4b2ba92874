// 32-bit arithmetic: subtasks 0 and 1 (40 points), not subtask 2.
#include "plus.h"

long long sum(long long a, long long b) { return (int)a + (int)b; }
