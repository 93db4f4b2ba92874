// Checker for "Powers of Two", testlib protocol with partial points
// (self-contained, no testlib.h):
//   check input_file contestant_output answer_file
// Exit codes: 0 ok (fewest terms), 7 partial points (a correct sum with more
// terms; stderr "points X ..." with X = k_opt / k in (0, 1)), 1 wrong answer,
// 2 presentation error (output not in the required format), 3 judge failure.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

// ---- minimal testlib-protocol helpers ------------------------------------
enum Verdict { OK = 0, WA = 1, PE = 2, FAIL = 3, POINTS = 7 };

[[noreturn]] static void quitf(Verdict v, const char *fmt, ...) {
    const char *prefix = v == OK ? "ok " : v == WA ? "wrong answer " : v == PE ? "wrong output format " : "FAIL ";
    std::fputs(prefix, stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    std::exit(v);
}

// Partial points, testlib's quitp format: "points <X> <message>", exit 7.
[[noreturn]] static void quitp(double points, const char *msg) {
    std::fprintf(stderr, "points %.10g %s\n", points, msg);
    std::exit(POINTS);
}

struct Stream {
    FILE *f;
    Verdict on_error;
    const char *what;
    Stream(const char *path, Verdict err, const char *name) : on_error(err), what(name) {
        f = std::fopen(path, "rb");
        if (!f) quitf(FAIL, "cannot open %s file %s", name, path);
    }
    bool token(std::string &out) {
        out.clear();
        int c;
        while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t')) {}
        if (c == EOF) return false;
        do {
            out.push_back(static_cast<char>(c));
            if (out.size() > 100) break;
        } while ((c = std::fgetc(f)) != EOF && !(c == ' ' || c == '\n' || c == '\r' || c == '\t'));
        return true;
    }
    long long readLong(long long lo, long long hi, const char *name) {
        std::string t;
        if (!token(t)) quitf(on_error, "unexpected end of %s file: expected %s", what, name);
        size_t i = (t[0] == '-') ? 1 : 0;
        bool digits = i < t.size() && t.size() - i <= 18;
        for (size_t j = i; digits && j < t.size(); j++) digits = t[j] >= '0' && t[j] <= '9';
        if (!digits) quitf(on_error, "%s: expected an integer, found \"%s\"", name, t.c_str());
        long long v = std::strtoll(t.c_str(), nullptr, 10);
        if (v < lo || v > hi)
            quitf(on_error == PE ? WA : on_error, "%s = %lld is outside [%lld, %lld]", name, v, lo, hi);
        return v;
    }
    void readEof() {
        std::string t;
        if (token(t)) quitf(on_error, "extra output in the %s file: \"%s\"", what, t.c_str());
    }
};
// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    if (argc < 4) quitf(FAIL, "usage: %s input output answer", argv[0]);
    Stream inf(argv[1], FAIL, "input"), ouf(argv[2], PE, "output"), ans(argv[3], FAIL, "answer");
    long long n = inf.readLong(1, 1000000000LL, "n");
    long long best = __builtin_popcountll(static_cast<unsigned long long>(n));
    long long jury = ans.readLong(1, 1000, "jury k");
    if (jury != best) quitf(FAIL, "jury answer has %lld terms, the optimum is %lld", jury, best);

    long long k = ouf.readLong(1, 1000, "k");
    long long sum = 0;
    for (long long i = 0; i < k; i++) {
        long long t = ouf.readLong(1, n, "term");
        if (t & (t - 1)) quitf(WA, "term %lld = %lld is not a power of two", i + 1, t);
        sum += t;
    }
    ouf.readEof();
    if (sum != n) quitf(WA, "the terms sum to %lld, expected %lld", sum, n);
    if (k < best) quitf(FAIL, "contestant used %lld terms, fewer than the optimum %lld", k, best);
    if (k == best) quitf(OK, "%lld terms, optimal", k);
    char msg[128];
    std::snprintf(msg, sizeof msg, "%lld terms, the optimum is %lld", k, best);
    quitp(static_cast<double>(best) / static_cast<double>(k), msg);
}
