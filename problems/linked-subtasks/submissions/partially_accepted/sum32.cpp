// Partially accepted (30 points): sums in 32 bits. Right on group1
// (|sum| <= 10^4), wraps around on group2. Expected score 30.
#include <cstdint>
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    std::uint32_t sum = 0;  // two's-complement wrap, printed as int32
    for (int i = 0; i < n; i++) {
        long long v;
        std::scanf("%lld", &v);
        sum += static_cast<std::uint32_t>(v);
    }
    std::printf("%d\n", static_cast<std::int32_t>(sum));
}
