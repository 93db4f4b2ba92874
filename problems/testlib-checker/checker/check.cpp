// Checker for "Pair Sum", testlib protocol (self-contained, no testlib.h):
//   check input_file contestant_output answer_file
// Exit codes: 0 ok (AC), 1 wrong answer, 2 presentation error, 3 judge
// failure. The message goes to stderr, testlib style ("ok ...",
// "wrong answer ...", "wrong output format ...", "FAIL ...").
//
// Presentation errors (exit 2) are outputs that cannot be read as the
// required format: a token that is not an integer, a missing number, or
// extra output after the answer. A well-formed but incorrect answer is a
// wrong answer (exit 1).
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// ---- minimal testlib-protocol helpers ------------------------------------
enum Verdict { OK = 0, WA = 1, PE = 2, FAIL = 3 };

[[noreturn]] static void quitf(Verdict v, const char *fmt, ...) {
    static const char *prefix[] = {"ok ", "wrong answer ", "wrong output format ", "FAIL "};
    std::fputs(prefix[v], stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    std::exit(v);
}

// A whitespace-separated token stream over one file. A format problem in the
// contestant's output is a presentation error; in the input or the answer
// file it is a judge failure.
struct Stream {
    FILE *f;
    Verdict on_error;
    const char *what;
    Stream(const char *path, Verdict err, const char *name) : on_error(err), what(name) {
        f = std::fopen(path, "rb");
        if (!f) quitf(FAIL, "cannot open %s file %s", name, path);
    }
    bool token(std::string &out) {  // false at end of file
        out.clear();
        int c;
        while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {}
        if (c == EOF) return false;
        do {
            out.push_back(static_cast<char>(c));
            if (out.size() > 1000) break;
        } while ((c = std::fgetc(f)) != EOF && !(c == ' ' || c == '\n' || c == '\r' || c == '\t'));
        return true;
    }
    long long readLong(long long lo, long long hi, const char *name) {
        std::string t;
        if (!token(t)) quitf(on_error, "unexpected end of %s file: expected %s", what, name);
        size_t i = (t[0] == '-') ? 1 : 0;
        bool digits = i < t.size() && t.size() - i <= 18;
        for (size_t j = i; digits && j < t.size(); j++) digits = t[j] >= '0' && t[j] <= '9';
        if (!digits) quitf(on_error, "%s: expected an integer, found \"%s\"", name, t.substr(0, 40).c_str());
        long long v = std::strtoll(t.c_str(), nullptr, 10);
        if (v < lo || v > hi)
            quitf(on_error == PE ? WA : on_error, "%s = %lld is outside [%lld, %lld]", name, v, lo, hi);
        return v;
    }
    void readEof() {
        std::string t;
        if (token(t)) quitf(on_error, "extra output in the %s file: \"%s\"", what, t.substr(0, 40).c_str());
    }
};
// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    if (argc < 4) quitf(FAIL, "usage: %s input output answer", argv[0]);
    Stream inf(argv[1], FAIL, "input"), ouf(argv[2], PE, "output"), ans(argv[3], FAIL, "answer");

    long long n = inf.readLong(2, 100000, "n");
    long long S = inf.readLong(0, 2000000000LL, "S");
    std::vector<long long> a(n + 1);
    for (long long i = 1; i <= n; i++) a[i] = inf.readLong(0, 1000000000LL, "a_i");

    bool jury_has_pair = ans.readLong(-1, n, "jury answer") != -1;

    long long i = ouf.readLong(-1, n, "i");
    if (i == -1) {
        ouf.readEof();
        if (jury_has_pair) quitf(WA, "answered -1 but a pair exists");
        quitf(OK, "no pair");
    }
    if (i == 0) quitf(WA, "i = 0 is not a position");
    long long j = ouf.readLong(1, n, "j");
    ouf.readEof();
    if (!(i < j)) quitf(WA, "positions must satisfy i < j, got %lld %lld", i, j);
    if (a[i] + a[j] != S) quitf(WA, "a_%lld + a_%lld = %lld, expected %lld", i, j, a[i] + a[j], S);
    if (!jury_has_pair) quitf(FAIL, "contestant found the pair %lld %lld but the jury answer is -1", i, j);
    quitf(OK, "pair %lld %lld", i, j);
}
