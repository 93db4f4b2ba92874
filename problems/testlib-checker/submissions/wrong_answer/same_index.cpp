// Wrong answer: inserts a value before looking up its complement, so when
// S = 2 * a_k it may "pair" position k with itself and print "k k".
#include <cstdio>
#include <unordered_map>

int main() {
    int n;
    long long S;
    if (std::scanf("%d %lld", &n, &S) != 2) return 1;
    std::unordered_map<long long, int> first;
    for (int j = 1; j <= n; j++) {
        long long v;
        std::scanf("%lld", &v);
        first.emplace(v, j);
        auto it = first.find(S - v);
        if (it != first.end()) {
            std::printf("%d %d\n", it->second, j);
            return 0;
        }
    }
    std::puts("-1");
}
