// The contestant's function: the secret number, between 1 and n.
int guess(int n);
// The judge's: -1 if x is below the secret number, 1 if above, 0 if it
// is the number.
int ask(int x);
