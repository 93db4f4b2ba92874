#include <cstdio>

int main() {
    int n;
    long long s = 0, x;
    if (std::scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (std::scanf("%lld", &x) != 1) return 1;
        s += x;
    }
    std::printf("%lld\n", s);
}
