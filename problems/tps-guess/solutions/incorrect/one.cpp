#include "guess.h"

int guess(int n) { return 1; }
