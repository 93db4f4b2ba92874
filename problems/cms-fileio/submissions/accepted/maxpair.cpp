#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    FILE *in = fopen("input.txt", "r"), *out = fopen("output.txt", "w");
    int n;
    fscanf(in, "%d", &n);
    std::vector<long long> a(n);
    for (auto &x : a) fscanf(in, "%lld", &x);
    std::sort(a.rbegin(), a.rend());
    fprintf(out, "%lld\n", a[0] + a[1]);
}
