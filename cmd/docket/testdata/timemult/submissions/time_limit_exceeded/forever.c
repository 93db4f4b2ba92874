/* Never answers: a time-out even at the limit times the safety margin. */
int main(void) {
    volatile unsigned long x = 0;
    for (;;)
        x++;
}
