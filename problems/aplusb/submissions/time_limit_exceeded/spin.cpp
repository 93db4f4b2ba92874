// Time limit exceeded: reads the input, then loops forever burning CPU.
// The counter is volatile so the compiler cannot remove the loop.
#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    volatile unsigned long long counter = 0;
    for (;;) counter = counter + 1;
}
