// A comparator in CMS's protocol, as TPS's testlib checkers write it:
// checker input correct_output contestant_output; the outcome on stdout,
// the message on stderr. Here: the first number must equal the answer's.
#include <fstream>
#include <iostream>

int main(int argc, char **argv) {
    if (argc != 4) return 1;
    std::ifstream correct(argv[2]), team(argv[3]);
    long long want, got;
    correct >> want;
    if (!(team >> got)) {
        std::cout << "0" << std::endl;
        std::cerr << "translate:wrong" << std::endl;
        return 0;
    }
    std::cout << (got == want ? "1" : "0") << std::endl;
    std::cerr << (got == want ? "translate:success" : "translate:wrong") << std::endl;
    return 0;
}
