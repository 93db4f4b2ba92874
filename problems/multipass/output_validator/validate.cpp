// Output validator for "Relay", Kattis protocol, multi-pass:
//   validate input_file judge_answer_file feedback_dir < submission_output
// The input of a pass is "encode X" (pass 1, from the test) or "decode W"
// (a later pass, from the nextpass.in this validator wrote). Exit 42 to
// accept, with feedback_dir/nextpass.in when the submission must run again;
// 43 to reject (reason in feedback_dir/judgemessage.txt); any other exit
// code means the validator failed.
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

static bool is_word(const std::string &s) {
    if (s.empty() || s.size() > 8) return false;
    for (char c : s)
        if (c < 'a' || c > 'z') return false;
    return true;
}

static bool is_number(const std::string &s) {
    if (s.empty() || s.size() > 10) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        std::cerr << "usage: " << argv[0] << " input judge_answer feedback_dir\n";
        return 1;
    }
    feedback_dir = argv[3];
    std::ifstream in(argv[1]), ans(argv[2]);
    std::string mode;
    long long x;
    if (!(in >> mode) || (mode != "encode" && mode != "decode") || !(ans >> x)) {
        std::cerr << "bad input or answer file\n";
        return 1;
    }
    std::string tok, extra;
    if (!(std::cin >> tok)) reject(mode + " pass: no output");
    if (std::cin >> extra) reject(mode + " pass: more than one token");
    if (mode == "encode") {
        if (!is_word(tok)) reject("encode pass: \"" + tok.substr(0, 40) + "\" is not 1 to 8 lowercase letters");
        next_pass(tok, "encoded as " + tok);
    }
    if (is_word(tok)) next_pass(tok, "re-encoded as " + tok);
    if (!is_number(tok)) reject("decode pass: \"" + tok.substr(0, 40) + "\" is neither a number nor a word");
    if (std::stoll(tok) != x) reject("decoded " + tok + ", expected " + std::to_string(x));
    finish(42, "decoded " + tok);
}
