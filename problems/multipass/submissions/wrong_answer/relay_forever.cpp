// Wrong answer: encodes, then in the decode pass prints the word again,
// which asks for a third pass: more than limits.validation_passes (2).
#include <iostream>
#include <string>

int main() {
    std::string mode, arg;
    std::cin >> mode >> arg;
    if (mode == "encode") {
        std::cout << "abc\n";
        return 0;
    }
    std::cout << arg << '\n';
}
