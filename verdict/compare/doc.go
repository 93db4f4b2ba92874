// Package compare is docket's default output validator: it decides whether a
// team's output matches the judge answer the way the Kattis / ICPC default
// output validator does, and says why not in one short line for the judges.
//
// It must not import any other package of docket's.
//
// # Sources
//
// The semantics follow the problem package format specification, "Default
// output validator specification" (https://www.kattis.com/problem-package-format/spec/2025-09.html,
// repository github.com/Kattis/problem-package-format, spec/2025-09.md and
// spec/legacy.md), and where the specification leaves room, the reference
// implementation, Kattis problemtools support/default_validator/default_validator.cc
// (github.com/Kattis/problemtools, read at commit a185fe97, 2026-08).
//
// # Tokens and whitespace
//
// Both files are byte strings. Whitespace is the six bytes of C's isspace in
// the "C" locale: space, \t, \n, \v, \f, \r. A token is a maximal run of
// other bytes. By default any run of whitespace (including none at the start
// or end of the output) equals any other, so only the token sequences are
// compared; a token missing or extra is a wrong answer.
//
// With space_change_sensitive the whitespace must match byte for byte,
// including leading and trailing whitespace and the final newline: as in
// problemtools, each whitespace byte of the answer must be matched by the same
// byte in the team output, and the team output may not have whitespace where
// the answer has none.
//
// # Strings
//
// Without case_sensitive, tokens compare equal up to ASCII case (A-Z equals
// a-z; other bytes, including UTF-8 letters, must match exactly), as
// problemtools' strcasecmp does in the C locale. With case_sensitive they
// must be identical byte for byte. Unlike problemtools, which compares
// tokens as C strings, a NUL byte does not end a token: "a\x00b" and "a\x00c"
// differ.
//
// # Numbers
//
// Float comparison is on when any of float_absolute_tolerance ε,
// float_relative_tolerance ε or float_tolerance ε (both) is given. Then every
// answer token that is a number is compared numerically: the team token must
// also be a number s, and with answer value a it is accepted when
// |s-a| ≤ ε_abs or |s-a| ≤ ε_rel·|a| (either tolerance suffices; an unset
// tolerance is represented as negative and never accepts, like problemtools'
// -1). An answer token that is not a number is compared as a string. Integers
// are numbers too: with a tolerance, "1" and "1.0" are equal.
//
// A number is what the 2025-09 specification's grammar accepts
//
//	{sign}? ( {digit}* "." {digit}+ | {digit}+ "." | {digit}+ ) ( [Ee] {sign}? {digit}+ )?
//
// parsed to the nearest float64, and finite: a token that overflows float64
// (1e400) is not a number, as problemtools rejects infinities. Underflow
// (1e-400) is a number (0). This is narrower than problemtools, whose
// sscanf("%lf") also accepts C hexadecimal floats (0x1p3, and 0x10 as 16):
// the specification says numbers "must be given in decimal", so answer tokens
// such as 0xFF are strings here. Tokens longer than 64 KiB are never numbers
// (the reader's buffer); such a team token against a numeric answer token is
// a wrong answer.
//
// ParseFlags follows the 2025-09 specification where it is stricter than
// problemtools: giving a tolerance more than once, or float_tolerance together
// with another tolerance, is an error (problemtools takes the last value); a
// negative or malformed tolerance is an error (problemtools treats a negative
// one as unset).
//
// # Exact comparison
//
// Options.Exact is not a Kattis flag: it is docket's byte-for-byte comparison
// for problems that ask for one. All other options are then ignored.
//
// # Implementation
//
// Compare streams both inputs through fixed 64 KiB buffers, so memory is
// bounded whatever the output size, and tokens are compared in place
// without allocation. Where both inputs are byte-identical it skips ahead a
// whole buffer at a time (identical bytes are accepted in every mode), so
// the common accepted case runs at memory-compare speed; elsewhere it
// tokenizes with a lookup table.
//
// Messages are judge-facing: one line, tokens quoted when they contain
// anything but printable ASCII, long tokens cut to a window around the
// first difference, lines counted from 1 in the team output, with the answer
// line added when it differs.
package compare
