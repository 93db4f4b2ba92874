// First program (same as accepted/cpp/first.cpp): copies the numbers to
// handoff.txt, sorted.
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    std::vector<long long> a(n);
    for (auto &v : a) std::scanf("%lld", &v);
    std::sort(a.begin(), a.end());
    FILE *f = std::fopen("handoff.txt", "w");
    if (!f) return 1;
    std::fprintf(f, "%d\n", n);
    for (int i = 0; i < n; i++) std::fprintf(f, i ? " %lld" : "%lld", a[i]);
    std::fputc('\n', f);
    return std::fclose(f) == 0 ? 0 : 1;
}
