// Accepted: binary search on [1, 10^9] (at most 30 guesses), flushing after
// every guess with std::endl.
#include <iostream>
#include <string>

int main() {
    long long lo = 1, hi = 1000000000;
    while (lo <= hi) {
        long long g = lo + (hi - lo) / 2;
        std::cout << g << std::endl;
        std::string reply;
        if (!(std::cin >> reply)) return 0;
        if (reply == "=") return 0;
        if (reply == "<") hi = g - 1; else lo = g + 1;
    }
}
