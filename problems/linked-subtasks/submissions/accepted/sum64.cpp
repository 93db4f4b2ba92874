// Accepted (100 points): sums in 64 bits.
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        long long v;
        std::scanf("%lld", &v);
        sum += v;
    }
    std::printf("%lld\n", sum);
}
