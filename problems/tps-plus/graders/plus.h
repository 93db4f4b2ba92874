long long sum(long long a, long long b);
