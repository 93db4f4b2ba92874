// Accepted: one pass with a hash map from value to its first position;
// prints the pair that completes first (smallest j).
#include <cstdio>
#include <unordered_map>

int main() {
    int n;
    long long S;
    if (std::scanf("%d %lld", &n, &S) != 2) return 1;
    std::unordered_map<long long, int> first;
    first.reserve(2 * n);
    for (int j = 1; j <= n; j++) {
        long long v;
        std::scanf("%lld", &v);
        auto it = first.find(S - v);
        if (it != first.end()) {
            std::printf("%d %d\n", it->second, j);
            return 0;
        }
        first.emplace(v, j);
    }
    std::puts("-1");
}
