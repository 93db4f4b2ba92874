// Run time error: writes through a null pointer (SIGSEGV) before printing.
#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    volatile int *p = nullptr;
    *p = static_cast<int>(a + b);
    std::cout << a + b << '\n';
}
