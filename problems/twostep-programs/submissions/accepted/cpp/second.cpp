// Accepted (second program): reads the sorted numbers from stdin
// (handoff.txt) and prints min, max and the 64-bit sum.
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1 || n < 1) return 1;
    long long first = 0, last = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        long long v;
        std::scanf("%lld", &v);
        if (i == 0) first = v;
        last = v;
        sum += v;
    }
    std::printf("%lld %lld %lld\n", first, last, sum);
}
