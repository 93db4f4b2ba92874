// Wrong answer: every area is 1e-3 too large. With r <= 10 the area is at
// most 314.16, so both the absolute error (1e-3) and the relative error
// (>= 3.1e-6) exceed the 1e-6 tolerance on every line.
#include <cmath>
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    const double pi = std::acos(-1.0);
    for (int i = 0; i < n; i++) {
        double r;
        std::scanf("%lf", &r);
        std::printf("%.9f\n", pi * r * r + 1e-3);
    }
}
