// Wrong answer: always four letters, so x is kept modulo 26^4 = 456976.
#include <iostream>
#include <string>

int main() {
    std::string mode, arg;
    std::cin >> mode >> arg;
    if (mode == "encode") {
        long long x = std::stoll(arg);
        std::string w;
        for (int i = 0; i < 4; i++, x /= 26) w += char('a' + x % 26);
        std::cout << w << std::endl;
        return 0;
    }
    long long x = 0;
    for (auto it = arg.rbegin(); it != arg.rend(); ++it) x = x * 26 + (*it - 'a');
    std::cout << x << std::endl;
}
