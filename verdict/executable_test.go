package verdict

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cmsComparatorCpp is cmsComparator in C++: full marks for the sum,
// half for its absolute value, none otherwise; "crash" exits 1.
const cmsComparatorCpp = `#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
static std::vector<std::string> words(const char* f) {
	std::ifstream in(f);
	std::vector<std::string> w;
	std::string s;
	while (in >> s) w.push_back(s);
	return w;
}
static std::string unsign(std::string s) { return s.erase(0, s.find_first_not_of('-')); }
int main(int argc, char** argv) {
	if (argc != 4) return 2;
	std::vector<std::string> correct = words(argv[2]), team = words(argv[3]);
	if (team.size() == 1 && team[0] == "crash") return 1;
	if (team == correct) {
		printf("1.0\n");
		fprintf(stderr, "translate:success\n");
	} else if (!team.empty() && !correct.empty() && unsign(team[0]) == unsign(correct[0])) {
		printf("0.5\n");
		fprintf(stderr, "translate:partial\n");
	} else {
		printf("0.0\n");
		fprintf(stderr, "translate:wrong\n");
	}
}
`

// gxx compiles src with g++ and the flags outside the sandbox, as a
// task's Makefile builds its comparator, and returns the executable.
func gxx(t *testing.T, src string, flags ...string) string {
	t.Helper()
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "prog.cpp"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-O2", "-o", filepath.Join(d, "prog"), filepath.Join(d, "prog.cpp")}, flags...)
	if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %v: %v\n%s", flags, err, out)
	}
	b, err := os.ReadFile(filepath.Join(d, "prog"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A CMS task whose comparator is only the executable check/checker, as
// its Makefile left it, is judged by running it: statically linked, or
// dynamically against the worker's libraries, which the sandbox's root
// binds. The outcomes are the source comparator's (TestCMSComparator);
// the program is cached root's and 0755, whatever the package's mode.
func TestCMSExecutableComparatorJudged(t *testing.T) {
	j := testJudge(t)
	for _, link := range []struct {
		name    string
		flag    string
		dynamic bool
	}{{"static", "-static", false}, {"dynamic", "-pie", true}} {
		t.Run(link.name, func(t *testing.T) {
			exe := gxx(t, cmsComparatorCpp, link.flag)
			if hasInterp(t, exe) != link.dynamic {
				t.Fatalf("g++ %s: dynamically linked %v, want %v", link.flag, !link.dynamic, link.dynamic)
			}
			p := loadPackage(t, negTask(exe))
			for _, c := range []struct {
				src      string
				verdict  Verdict
				score    float64
				feedback string
			}{
				{plainPython, AC, 100, "Output is correct"},
				{"print(abs(sum(map(int, input().split()))))\n", AC, 50, "Output is partially correct"},
				{"print(7)\n", WA, 0, "Output isn't correct"},
				{"print('crash')\n", SE, 0, "comparator: exit code 1"},
			} {
				res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"neg.py": c.src}), Options{TimeLimit: 5 * time.Second})
				if res.Verdict != c.verdict || res.Score != c.score || len(res.Tests) != 2 || !strings.Contains(res.Tests[0].Feedback+res.Error, c.feedback) {
					t.Errorf("%q: %s %g, error %q, tests %+v; want %s %g %q", c.src, res.Verdict, res.Score, res.Error, res.Tests, c.verdict, c.score, c.feedback)
				}
			}
			checkInstalled(t, filepath.Join(programDir(j.cacheDir(), p.Digest, "checker"), "checker"))
		})
	}
}

// negTask is TestCMSComparator's task with the executable comparator.
func negTask(checker string) map[string]string {
	files := map[string]string{"task.yaml": "name: neg\ninfile: \"\"\noutfile: \"\"\nn_input: 2\n", "check/checker": checker}
	files["input/input0.txt"], files["input/input1.txt"] = "-2 -3\n", "4 -9\n"
	files["output/output0.txt"], files["output/output1.txt"] = "-5\n", "-5\n"
	return files
}

// hasInterp reports whether the executable exe names a dynamic loader.
func hasInterp(t *testing.T, exe string) bool {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(exe))
	if err != nil {
		t.Fatal(err)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// A dynamically linked comparator whose library the sandbox's root does
// not hold (here one beside it, outside the package) cannot start: SE,
// the loader's complaint in the error, never a contestant's verdict.
func TestCMSExecutableMissingLibrary(t *testing.T) {
	j := testJudge(t)
	lib := t.TempDir()
	out, err := exec.Command("g++", "-shared", "-fPIC", "-o", filepath.Join(lib, "libdocketneg.so"), "-x", "c++", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("g++ -shared: %v\n%s", err, out)
	}
	exe := gxx(t, cmsComparatorCpp, "-L"+lib, "-Wl,--no-as-needed", "-ldocketneg", "-Wl,-rpath,"+lib)
	p := loadPackage(t, negTask(exe))
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"neg.py": plainPython}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != SE || !strings.Contains(res.Error, "libdocketneg.so") {
		t.Errorf("%s: %q %+v; want SE naming the library", res.Verdict, res.Error, res.Tests)
	}
}

// checkInstalled fails unless path is a cached program: root's, 0755.
func checkInstalled(t *testing.T, path string) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Uid != 0 || st.Mode() != 0o755 {
		t.Errorf("%s: %v, uid %+v; want root's, 0755", path, st.Mode(), st.Sys())
	}
}

// commManagerCpp is commManager in C++: it sends each copy its index
// and reads back one line per copy; all "ok i" is outcome 1.
const commManagerCpp = `#include <cstdio>
#include <cstring>
#include <string>
int main(int argc, char** argv) {
	int k = (argc - 1) / 2;
	if (k < 1 || k > 8) return 2;
	FILE *to[8], *from[8];
	for (int i = 0; i < k; i++) {
		to[i] = fopen(argv[2 + 2 * i], "w");
		from[i] = fopen(argv[1 + 2 * i], "r");
		if (!to[i] || !from[i]) return 3;
	}
	for (int i = 0; i < k; i++) {
		fprintf(to[i], "%d\n", i);
		fflush(to[i]);
	}
	std::string got;
	bool ok = true;
	for (int i = 0; i < k; i++) {
		char line[64] = "";
		if (!fgets(line, sizeof line, from[i])) line[0] = 0;
		line[strcspn(line, "\n")] = 0;
		std::string want = "ok " + std::to_string(i);
		ok = ok && want == line;
		got += std::string(" ") + line;
	}
	printf("%s\n", ok ? "1.0" : "0.0");
	fprintf(stderr, ok ? "translate:success\n" : "got%s\n", got.c_str());
}
`

// A Communication task whose manager is only the executable
// check/manager is judged with it as with its source (TestCommunication*).
func TestCommunicationExecutableManager(t *testing.T) {
	j := testJudge(t)
	files := commTask("2")
	delete(files, "check/manager.py")
	files["check/manager"] = gxx(t, commManagerCpp, "-static")
	p := loadPackage(t, files)
	const copyTmpl = `import sys
frm, to, idx = sys.argv[1:4]
fin, fout = open(frm), open(to, "w")
got = fin.readline().strip()
print(%s, file=fout)
`
	for _, c := range []struct {
		reply    string
		verdict  Verdict
		feedback string
	}{
		{`"ok " + got`, AC, "Output is correct"},
		{`"ok 7"`, WA, "got ok 7 ok 7"},
	} {
		src := fmt.Sprintf(copyTmpl, c.reply)
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"c.py": src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != c.verdict || len(res.Tests) != 1 || res.Tests[0].VerdictSource != SourceManager || !strings.Contains(res.Tests[0].Feedback, c.feedback) {
			t.Errorf("%s: %s %g, error %q, tests %+v; want %s %q", c.reply, res.Verdict, res.Score, res.Error, res.Tests, c.verdict, c.feedback)
		}
	}
	checkInstalled(t, filepath.Join(programDir(j.cacheDir(), p.Digest, "manager"), "manager"))
}
