// Accepted: x in base 26, digits a..z, least significant first.
#include <iostream>
#include <string>

int main() {
    std::string mode, arg;
    std::cin >> mode >> arg;
    if (mode == "encode") {
        long long x = std::stoll(arg);
        std::string w;
        do {
            w += char('a' + x % 26);
            x /= 26;
        } while (x > 0);
        std::cout << w << '\n';
        return 0;
    }
    long long x = 0;
    for (auto it = arg.rbegin(); it != arg.rend(); ++it) x = x * 26 + (*it - 'a');
    std::cout << x << '\n';
}
