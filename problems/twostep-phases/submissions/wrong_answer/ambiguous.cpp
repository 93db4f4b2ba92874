// Wrong answer: encodes 'a' = 1, ..., 'z' = 26 without separators, which is
// ambiguous: "ab" -> "12" decodes greedily as "l". Right on the sample
// ("hello" -> 8 5 12 12 15 decodes back), wrong on most secret tests.
#include <cstring>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    std::string line;
    std::getline(std::cin, line);
    std::string out;
    if (std::strcmp(argv[1], "encode") == 0) {
        for (char c : line)
            if (c >= 'a' && c <= 'z') out += std::to_string(c - 'a' + 1);
    } else {
        size_t i = 0;
        while (i < line.size()) {
            int two = (i + 1 < line.size()) ? (line[i] - '0') * 10 + (line[i + 1] - '0') : 99;
            if (two >= 10 && two <= 26) {
                out += static_cast<char>('a' + two - 1);
                i += 2;
            } else {
                out += static_cast<char>('a' + (line[i] - '0') - 1);
                i += 1;
            }
        }
    }
    std::cout << out << '\n';
}
