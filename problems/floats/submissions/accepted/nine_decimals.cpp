// Accepted: prints every area with 9 digits after the decimal point.
#include <cmath>
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    const double pi = std::acos(-1.0);
    for (int i = 0; i < n; i++) {
        double r;
        std::scanf("%lf", &r);
        std::printf("%.9f\n", pi * r * r);
    }
}
