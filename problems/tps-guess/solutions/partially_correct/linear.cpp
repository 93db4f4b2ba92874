// One question per number: within the limit for n <= 10 only (30 points).
#include "guess.h"

int guess(int n) {
    for (int x = 1; x < n; x++)
        if (ask(x) == 0) return x;
    return n;
}
