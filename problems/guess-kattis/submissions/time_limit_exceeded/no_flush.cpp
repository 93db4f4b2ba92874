// Time limit exceeded: a correct binary search that never flushes. cin is
// untied from cout, so reading the reply does not flush the guess either:
// the guess stays in the buffer, the validator waits for it, this program
// waits for the reply, and the run ends at the (wall-clock) time limit.
#include <iostream>
#include <string>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    long long lo = 1, hi = 1000000000;
    while (lo <= hi) {
        long long g = lo + (hi - lo) / 2;
        std::cout << g << '\n';  // no flush
        std::string reply;
        if (!(std::cin >> reply)) return 0;
        if (reply == "=") return 0;
        if (reply == "<") hi = g - 1; else lo = g + 1;
    }
}
