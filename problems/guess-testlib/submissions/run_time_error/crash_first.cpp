// Run-time error: makes one guess, reads the reply and exits with status 1
// while the judge waits for the next guess. The judge then reads EOF and
// rejects, but the submission failed first: RE, not WA.
#include <cstdlib>
#include <iostream>
#include <string>

int main() {
    std::cout << 500000000 << std::endl;
    std::string reply;
    std::cin >> reply;
    std::exit(1);
}
