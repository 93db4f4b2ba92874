// Interactive validator for "Relay (interactive)", Kattis protocol,
// multi-pass:
//   validate input_file judge_answer_file feedback_dir
// stdin is the submission's stdout, stdout goes to the submission's stdin.
// The input of a pass is "encode X" (pass 1, from the test) or "decode W"
// (a later pass, from the nextpass.in this validator wrote); it is sent to
// the submission as is. Exit 42 to accept, with feedback_dir/nextpass.in
// when the submission must run again; 43 to reject (reason in
// feedback_dir/judgemessage.txt); any other exit code means the validator
// failed.
#include <csignal>
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
[[noreturn]] static void reject(const std::string &msg) { finish(43, msg); }

// next_pass accepts this pass and asks for another on "decode W".
[[noreturn]] static void next_pass(const std::string &word, const std::string &msg) {
    {
        std::ofstream f(feedback_dir + "/nextpass.in");
        f << "decode " << word << '\n';
    }
    finish(42, msg);
}

static bool only(const std::string &s, char lo, char hi, size_t max) {
    if (s.empty() || s.size() > max) return false;
    for (char c : s)
        if (c < lo || c > hi) return false;
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
    std::ifstream in(argv[1]), ans(argv[2]);
    std::string mode, arg;
    long long x;
    if (!(in >> mode >> arg) || (mode != "encode" && mode != "decode") || !(ans >> x)) {
        std::cerr << "bad input or answer file\n";
        return 1;
    }
    std::cout << mode << ' ' << arg << std::endl;
    std::string tok;
    if (!(std::cin >> tok)) reject(mode + " pass: no answer");
    bool word = only(tok, 'a', 'z', 8);
    if (mode == "encode") {
        if (!word) reject("encode pass: \"" + tok.substr(0, 40) + "\" is not 1 to 8 lowercase letters");
        next_pass(tok, "encoded as " + tok);
    }
    if (word) next_pass(tok, "re-encoded as " + tok);
    if (!only(tok, '0', '9', 10)) reject("decode pass: \"" + tok.substr(0, 40) + "\" is neither a number nor a word");
    if (std::stoll(tok) != x) reject("decoded " + tok + ", expected " + std::to_string(x));
    finish(42, "decoded " + tok);
}
