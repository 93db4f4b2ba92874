// Wrong answer (0 points): off by one, never adds the last number (no test
// ends with 0, so every test fails).
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    long long sum = 0;
    for (int i = 0; i < n - 1; i++) {
        long long v;
        std::scanf("%lld", &v);
        sum += v;
    }
    std::printf("%lld\n", sum);
}
