// Wrong answer (0 points): forgets the lowest set bit, so the terms do not
// sum to n (for a power of two it prints k = 0, outside the allowed range).
#include <cstdio>

int main() {
    long long n;
    if (std::scanf("%lld", &n) != 1) return 1;
    long long m = n & (n - 1);  // n without its lowest set bit
    std::printf("%d\n", __builtin_popcountll(m));
    bool first = true;
    for (int b = 40; b >= 0; b--)
        if (m >> b & 1) {
            std::printf(first ? "%lld" : " %lld", 1LL << b);
            first = false;
        }
    std::putchar('\n');
}
