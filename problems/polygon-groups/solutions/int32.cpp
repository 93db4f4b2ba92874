// Sums in an int: right while the sum is small (group 1), wrong once it
// overflows (group 2).
#include <cstdio>

int main() {
    int n, s = 0, x;
    if (std::scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (std::scanf("%d", &x) != 1) return 1;
        s += x;
    }
    std::printf("%d\n", s);
}
