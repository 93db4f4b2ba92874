// Wrong answer: encodes, then in every decode pass prints the word again,
// which asks for a fourth pass: more than limits.validation_passes (3).
#include <iostream>
#include <string>

int main() {
    std::string mode, arg;
    std::cin >> mode >> arg;
    std::cout << (mode == "encode" ? std::string("abc") : arg) << std::endl;
}
