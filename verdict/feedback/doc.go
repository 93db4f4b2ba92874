// Package feedback reads what checkers, output validators and interactors
// report besides their exit code: the Kattis feedback directory, and the
// verdict line of a testlib checker or interactor. It decides nothing about
// the submission itself; the caller combines this with the exit code rules
// of the protocol (42/43 for Kattis) and the problem's scoring.
//
// It must not import any of docket's packages but verdict/compare.
//
// # Kattis feedback directory
//
// Sources: the problem package format specification, 2025-09, "Output
// validators" → "Reporting additional feedback" and "Scoring"
// (github.com/Kattis/problem-package-format spec/2025-09.md), and
// problemtools' judge/validate.py for what a judge does with score.txt.
//
//   - judgemessage.txt, teammessage.txt: free text for the judges and for the
//     team. Read up to 64 KiB each; a longer file is cut at a UTF-8
//     boundary and ends in "…[truncated]" (still within 64 KiB); invalid
//     UTF-8 is replaced by U+FFFD.
//   - score.txt: a single non-negative number, the test case's score.
//   - score_multiplier.txt: a single number in [0, 1], multiplied by the
//     test case's maximum score.
//
// Numbers follow the specification's float grammar (compare.ParseNumber),
// surrounded by optional whitespace; anything else, including inf and nan
// (which problemtools' Python float() would take), is an error naming the
// file. Producing both score files is an error (the specification makes it
// a judge error). Absent files give zero values. Whether a score file is
// allowed at all (an accepted verdict, a scoring problem, a bounded group)
// is for the caller, which knows the verdict and the problem.
//
// The directory is written by problem code, so ReadKattisDir opens every
// file with O_NOFOLLOW (a symbolic link is an error, never followed),
// O_NONBLOCK (a FIFO cannot block it) and O_NOCTTY, and reads only regular
// files: anything else is an error naming the file.
//
// # testlib
//
// Source: testlib.h (github.com/MikeMirzayanov/testlib, version 0.9.45,
// read at commit 1e4e8a24, 2026-02), InStream::quit and resultExitCode, in
// its standard build (neither EJUDGE, CONTESTER nor TESTSYS defined).
//
// testlib exits with
//
//	0  ok                  "ok "
//	1  wrong answer        "wrong answer "
//	2  presentation error  "wrong output format " (also unexpected eof,
//	                       unless built with ENABLE_UNEXPECTED_EOF, and
//	                       dirt: current testlib turns _dirt into _pe)
//	3  fail (judge error)  "FAIL "
//	4  dirt                older testlib's DIRT_EXIT_CODE
//	7  points              "points " then the points, then the message
//	8  unexpected eof      "unexpected eof " (ENABLE_UNEXPECTED_EOF only)
//	k  partially correct   "partially correct (k) "
//
// and writes the prefix and the message to stderr (one line, unless the
// message has newlines), or the message alone to the result file when given
// one. ANSI colours only appear when stderr is a terminal, but are removed
// anyway.
//
// Partially correct deserves care. _pc(k) does not exit with 16+k, as is
// sometimes assumed: 16 is the TResult value _partially, and the exit code
// is PC_BASE_EXIT_CODE + k, where
// PC_BASE_EXIT_CODE is 0 in the standard build (50 with TESTSYS). So _pc(1)
// exits 1, like a wrong answer, and only the message prefix tells them
// apart. ParseTestlib therefore reports PartiallyCorrect when the message
// starts with "partially correct (k)" and the exit code is k, 16+k or 50+k
// (mod 256): any of the bases a build may use. Without the prefix (a result
// file) the exit code is taken at its word.
//
// The exit code is authoritative. The message prefix is stripped when it
// agrees with the exit code, and left in place when it does not. If the
// output does not start with a prefix, the last line that starts with an
// agreeing prefix begins the message (a checker may print debug lines to
// stderr before quitting); failing that the whole output is the message.
// For points, the first word after the prefix is the number of points; a
// "partially correct (X)" prefix with exit code 7 also gives X points, as
// some builds print. quitpi's "points_info=..." has no number: ParseTestlib
// returns Points with nil Points and an error. Messages are cut to 4 KiB.
package feedback
