// Wrong answer: prints 1 2 ... n (neighbours differ by 1) and never says
// impossible. Correct only for n = 1.
#include <cstdio>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 1;
    for (int v = 1; v <= n; v++) std::printf(v == 1 ? "%d" : " %d", v);
    std::putchar('\n');
}
