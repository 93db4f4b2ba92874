// Wrong answer: makes one guess (3, never the number) and exits at once
// without reading the reply. The judge's reply goes into a closed pipe and
// it reads EOF: the submission quit before the interaction was over, WA
// (never a judge error, whatever the judge's write or read saw first).
#include <iostream>

int main() {
    std::cout << 3 << std::endl;
    return 0;
}
