// Interactive validator for "Guess the Number", Kattis protocol:
//   validate input_file judge_answer_file feedback_dir [flags]
// stdin is the submission's stdout, stdout goes to the submission's stdin.
// Exit 42 to accept, 43 to reject (reason in feedback_dir/judgemessage.txt);
// any other exit code means the validator failed.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

static std::string feedback_dir;

[[noreturn]] static void finish(int code, const std::string &msg) {
    {
        std::ofstream f(feedback_dir + "/judgemessage.txt", std::ios::app);
        f << msg << '\n';
    }  // closed (flushed) here: std::exit does not run local destructors
    std::exit(code);
}
[[noreturn]] static void accept(const std::string &msg) { finish(42, msg); }
[[noreturn]] static void reject(const std::string &msg) { finish(43, msg); }

static bool parse_int(const std::string &tok, long long &out) {
    if (tok.empty() || tok.size() > 18) return false;
    size_t i = (tok[0] == '-') ? 1 : 0;
    if (i == tok.size()) return false;
    for (size_t j = i; j < tok.size(); j++)
        if (tok[j] < '0' || tok[j] > '9') return false;
    out = std::stoll(tok);
    return true;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        std::cerr << "usage: " << argv[0] << " input judge_answer feedback_dir\n";
        return 1;
    }
    // A submission that exits early closes its stdin: a write must not kill us.
    std::signal(SIGPIPE, SIG_IGN);
    feedback_dir = argv[3];
    std::ifstream in(argv[1]);
    long long x;
    if (!(in >> x) || x < 1 || x > 1000000000) {
        std::cerr << "bad input file\n";
        return 1;
    }
    const int max_queries = 31;
    for (int q = 1; q <= max_queries; q++) {
        std::string tok;
        if (!(std::cin >> tok)) reject("guess " + std::to_string(q) + ": the submission closed its output without finding the number");
        long long g;
        if (!parse_int(tok, g)) reject("guess " + std::to_string(q) + " is not an integer: " + tok.substr(0, 40));
        if (g < 1 || g > 1000000000) reject("guess " + std::to_string(q) + " = " + std::to_string(g) + " is outside 1..10^9");
        if (g == x) {
            std::cout << "=" << std::endl;
            if (std::cin >> tok) reject("output after the number was found: " + tok.substr(0, 40));
            accept("found " + std::to_string(x) + " in " + std::to_string(q) + " guesses");
        }
        if (q == max_queries) reject("31 guesses used without finding " + std::to_string(x));
        std::cout << (x < g ? "<" : ">") << std::endl;
    }
    return 1;  // not reached
}
