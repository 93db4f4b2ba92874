// Never answers.
int main() {
    volatile unsigned long long n = 0;
    for (;;) n = n + 1;
}
