// Accepted (100 points): the set bits of n, the fewest possible terms.
#include <cstdio>

int main() {
    long long n;
    if (std::scanf("%lld", &n) != 1) return 1;
    std::printf("%d\n", __builtin_popcountll(n));
    bool first = true;
    for (int b = 40; b >= 0; b--)
        if (n >> b & 1) {
            std::printf(first ? "%lld" : " %lld", 1LL << b);
            first = false;
        }
    std::putchar('\n');
}
