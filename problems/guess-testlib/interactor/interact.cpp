// Interactor for "Guess the Number", testlib protocol (self-contained, no
// testlib.h):
//   interact input_file tout_file [answer_file]
// stdin is the submission's stdout, stdout goes to the submission's stdin.
// Exit codes: 0 ok, 1 wrong answer, 2 presentation error (a guess that is
// not an integer), 3 judge failure. The message goes to stderr, testlib
// style; a one-line log goes to tout_file.
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

// ---- minimal testlib-protocol helpers ------------------------------------
enum Verdict { OK = 0, WA = 1, PE = 2, FAIL = 3 };
static FILE *tout = nullptr;

[[noreturn]] static void quitf(Verdict v, const char *fmt, ...) {
    static const char *prefix[] = {"ok ", "wrong answer ", "wrong output format ", "FAIL "};
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "%s%s\n", prefix[v], msg);
    if (tout) {
        std::fprintf(tout, "%s%s\n", prefix[v], msg);
        std::fclose(tout);
    }
    std::exit(v);
}

// Reads one whitespace-separated token from f; false at end of file.
static bool token(FILE *f, std::string &out) {
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

static bool parse_long(const std::string &t, long long &v) {
    size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
    if (i == t.size() || t.size() - i > 18) return false;
    for (size_t j = i; j < t.size(); j++)
        if (t[j] < '0' || t[j] > '9') return false;
    v = std::strtoll(t.c_str(), nullptr, 10);
    return true;
}
// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    if (argc < 3) quitf(FAIL, "usage: %s input tout [answer]", argv[0]);
    std::signal(SIGPIPE, SIG_IGN);  // the submission may exit early
    tout = std::fopen(argv[2], "w");  // may be /dev/null
    FILE *inf = std::fopen(argv[1], "r");
    if (!inf) quitf(FAIL, "cannot open input file %s", argv[1]);
    std::string t;
    long long x;
    if (!token(inf, t) || !parse_long(t, x) || x < 1 || x > 1000000000) quitf(FAIL, "bad input file");

    const int max_queries = 31;
    for (int q = 1; q <= max_queries; q++) {
        if (!token(stdin, t)) quitf(WA, "guess %d: the submission closed its output without finding %lld", q, x);
        long long g;
        if (!parse_long(t, g)) quitf(PE, "guess %d is not an integer: \"%s\"", q, t.c_str());
        if (g < 1 || g > 1000000000) quitf(WA, "guess %d = %lld is outside [1, 10^9]", q, g);
        if (g == x) {
            std::puts("=");
            std::fflush(stdout);
            if (token(stdin, t)) quitf(PE, "output after the number was found: \"%s\"", t.c_str());
            quitf(OK, "found %lld in %d guesses", x, q);
        }
        if (q == max_queries) quitf(WA, "31 guesses used without finding %lld", x);
        std::puts(x < g ? "<" : ">");
        std::fflush(stdout);
    }
    quitf(FAIL, "not reached");
}
