// Presentation error: finds a correct pair but prints it as "i,j".
// The checker cannot read "i,j" as an integer and exits 2 (PE). The Kattis
// format has no presentation_error directory, so this lives in wrong_answer/
// (see ../../README.md): expected docket verdict PE, a rejection.
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
        auto it = first.find(S - v);
        if (it != first.end()) {
            std::printf("%d,%d\n", it->second, j);
            return 0;
        }
        first.emplace(v, j);
    }
    std::puts("-1");
}
