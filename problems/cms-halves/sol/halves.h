// The contestant's function: the sum of the n numbers of a.
long long sum_half(int n, const long long *a);
