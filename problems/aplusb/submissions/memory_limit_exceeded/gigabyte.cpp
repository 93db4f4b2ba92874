// Memory limit exceeded: allocates 1 GiB and touches every page
// (limits.memory is 64 MiB). The sum is printed so the writes are observable
// and the compiler cannot drop the allocation.
#include <cstdlib>
#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    const std::size_t size = std::size_t(1) << 30;
    volatile char *p = static_cast<volatile char *>(std::malloc(size));
    if (p == nullptr) return 1;
    unsigned long long sum = 0;
    for (std::size_t i = 0; i < size; i += 4096) p[i] = static_cast<char>(i >> 12);
    for (std::size_t i = 0; i < size; i += 4096) sum += p[i];
    std::cout << a + b + static_cast<long long>(sum & 0) << '\n';
}
