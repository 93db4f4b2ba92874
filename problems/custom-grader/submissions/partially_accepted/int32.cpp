// Reads into 32-bit ints: right on subtask 1, wrong on subtask 2 (30 points).
#include <iostream>
int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << (int)a + (int)b << std::endl;
}
