// Wrong answer: guesses 1, 2, 3, ... without using the replies to narrow the
// range, so it runs out of guesses whenever x > 31 (it finds 1 and 7).
#include <iostream>
#include <string>

int main() {
    for (long long g = 1;; g++) {
        std::cout << g << std::endl;
        std::string reply;
        if (!(std::cin >> reply)) return 0;  // the interactor gave up
        if (reply == "=") return 0;
    }
}
