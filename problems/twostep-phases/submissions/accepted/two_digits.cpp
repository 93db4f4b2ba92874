// Accepted: encode each letter as two digits ('a' = 10, ..., 'z' = 35);
// decode reads the digits back two at a time.
#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " encode|decode\n";
        return 2;
    }
    std::string line;
    std::getline(std::cin, line);
    std::string out;
    if (std::strcmp(argv[1], "encode") == 0) {
        for (char c : line)
            if (c >= 'a' && c <= 'z') out += std::to_string(c - 'a' + 10);
    } else {
        for (size_t i = 0; i + 1 < line.size(); i += 2)
            out += static_cast<char>('a' + (line[i] - '0') * 10 + (line[i + 1] - '0') - 10);
    }
    std::cout << out << '\n';
}
