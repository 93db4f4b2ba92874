package main

// docket-exec is linked statically: a one-off command pays the dynamic
// loader's start (libc found, mapped and relocated) twice, once for
// itself and once for the run's helper, which is this binary again
// (/proc/self/exe), about 0.6 ms of a run of /bin/true here. Its C
// (sandbox/nsinit) calls nothing that needs a shared libc (no NSS: the
// Go side resolves no names).

// #cgo LDFLAGS: -static
import "C"
