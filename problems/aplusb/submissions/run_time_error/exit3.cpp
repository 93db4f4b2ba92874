// Run time error: prints the correct answer but exits with status 3.
#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << a + b << '\n';
    return 3;
}
