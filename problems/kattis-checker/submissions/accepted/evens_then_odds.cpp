// Accepted: 2 4 6 ... then 1 3 5 ...; the only neighbours of different
// parity are the largest even number and 1, which differ by at least 3
// once n >= 4. n = 2 and n = 3 have no solution.
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    if (n == 2 || n == 3) {
        std::puts("impossible");
        return 0;
    }
    bool first = true;
    for (int start = 2; start >= 1; start--)
        for (int v = start; v <= n; v += 2) {
            std::printf(first ? "%d" : " %d", v);
            first = false;
        }
    std::putchar('\n');
}
