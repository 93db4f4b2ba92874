#ifndef ADD_H
#define ADD_H
long long add(long long a, long long b);
#endif
