// Wrong answer (second program): sums in 32 bits, which wraps around once
// the sum leaves the int range (secret tests 02-04 do; the sample does not).
#include <cstdint>
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1 || n < 1) return 1;
    long long first = 0, last = 0;
    std::uint32_t sum = 0;  // two's-complement wrap, printed as int32
    for (int i = 0; i < n; i++) {
        long long v;
        std::scanf("%lld", &v);
        if (i == 0) first = v;
        last = v;
        sum += static_cast<std::uint32_t>(v);
    }
    std::printf("%lld %lld %d\n", first, last, static_cast<std::int32_t>(sum));
}
