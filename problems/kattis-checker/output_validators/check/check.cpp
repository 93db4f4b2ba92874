// Output validator for "Spread Out Permutation", Kattis protocol:
//   check input_file judge_answer_file feedback_dir [flags] < team_output
// Exit 42 to accept, 43 to reject; on reject a reason goes to
// feedback_dir/judgemessage.txt. Exit code 1 (any other code) means the
// validator itself failed.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

static std::string feedback_dir;

[[noreturn]] static void finish(int code, const std::string &msg) {
    if (!msg.empty()) {
        std::ofstream f(feedback_dir + "/judgemessage.txt", std::ios::app);
        f << msg << '\n';
    }  // closed (flushed) here: std::exit does not run local destructors
    std::exit(code);
}
[[noreturn]] static void accept() { finish(42, ""); }
[[noreturn]] static void reject(const std::string &msg) { finish(43, msg); }
[[noreturn]] static void judge_error(const std::string &msg) {
    std::cerr << "judge error: " << msg << '\n';
    finish(1, "judge error: " + msg);
}

// Reads a decimal integer token from the team's output; false if the token
// is not one (or out of range).
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
        std::cerr << "usage: " << argv[0] << " input judge_answer feedback_dir < team_output\n";
        return 1;
    }
    feedback_dir = argv[3];
    std::ifstream in(argv[1]), ans(argv[2]);
    if (!in || !ans) judge_error("cannot open input or judge answer");
    long long n;
    if (!(in >> n) || n < 1) judge_error("bad input file");
    std::string first_judge;
    if (!(ans >> first_judge)) judge_error("empty judge answer");
    bool possible = first_judge != "impossible";

    std::string tok;
    if (!(std::cin >> tok)) reject("empty output");
    if (tok == "impossible") {
        if (possible) reject("answered impossible, but a permutation exists for n = " + std::to_string(n));
        if (std::cin >> tok) reject("trailing output after 'impossible': " + tok);
        accept();
    }
    std::vector<char> seen(n + 1, 0);
    long long prev = 0;
    for (long long i = 0; i < n; i++) {
        if (i > 0 && !(std::cin >> tok)) reject("output has " + std::to_string(i) + " numbers, expected " + std::to_string(n));
        long long v;
        if (!parse_int(tok, v)) reject("token " + std::to_string(i + 1) + " is not an integer: " + tok.substr(0, 40));
        if (v < 1 || v > n) reject("value " + std::to_string(v) + " at position " + std::to_string(i + 1) + " is outside 1.." + std::to_string(n));
        if (seen[v]) reject("value " + std::to_string(v) + " appears twice");
        seen[v] = 1;
        if (i > 0 && std::llabs(v - prev) < 2)
            reject("neighbours " + std::to_string(prev) + " and " + std::to_string(v) + " at positions " +
                   std::to_string(i) + " and " + std::to_string(i + 1) + " differ by less than 2");
        prev = v;
    }
    if (std::cin >> tok) reject("trailing output: " + tok.substr(0, 40));
    // A valid permutation where the judge says there is none means the
    // judge answer is wrong: report it, never blame the team.
    if (!possible) judge_error("team found a valid permutation for n = " + std::to_string(n) + " but the judge answer says impossible");
    accept();
}
