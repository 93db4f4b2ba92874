// Partially accepted (50 points): writes every set bit 2^b (b >= 1) as two
// terms 2^(b-1) + 2^(b-1). Every secret n is even, so this uses exactly twice
// the optimal number of terms on each test: points 0.5 per test, score 50.
#include <cstdio>
#include <vector>

int main() {
    long long n;
    if (std::scanf("%lld", &n) != 1) return 1;
    std::vector<long long> terms;
    for (int b = 40; b >= 0; b--)
        if (n >> b & 1) {
            if (b == 0) {
                terms.push_back(1);
            } else {
                terms.push_back(1LL << (b - 1));
                terms.push_back(1LL << (b - 1));
            }
        }
    std::printf("%zu\n", terms.size());
    for (size_t i = 0; i < terms.size(); i++) std::printf(i ? " %lld" : "%lld", terms[i]);
    std::putchar('\n');
}
