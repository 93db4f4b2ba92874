package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// A Kattis-protocol validator that asks, reads an answer and asks again
// until it reads 42 or EOF. It does not ignore SIGPIPE: asking after the
// submission is gone kills it.
const askingValidator = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	char path[4096];
	snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
	for (;;) {
		int x;
		printf("?\n");
		fflush(stdout);
		if (scanf("%d", &x) != 1) {
			FILE *f = fopen(path, "w");
			fprintf(f, "no answer\n");
			fclose(f);
			return 43;
		}
		if (x == 42) return 42;
	}
}
`

// A Kattis validator that ignores SIGPIPE and exits 0 (not 42 or 43) when
// it reads EOF: wrong, but only because the submission had gone.
const exitZeroValidator = `#include <signal.h>
#include <stdio.h>
int main(void) {
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int x;
		printf("?\n");
		fflush(stdout);
		if (scanf("%d", &x) != 1) return 0;
		if (x == 42) return 42;
	}
}
`

// The same in the testlib protocol: exit 0 ok, 1 wrong answer.
const askingInteractor = `#include <stdio.h>
int main(void) {
	for (;;) {
		int x;
		printf("?\n");
		fflush(stdout);
		if (scanf("%d", &x) != 1) {
			fprintf(stderr, "wrong answer no answer\n");
			return 1;
		}
		if (x == 42) {
			fprintf(stderr, "ok found\n");
			return 0;
		}
	}
}
`

// A validator that rejects at once, without reading: the submission then
// writes into a pipe nobody reads.
const rejectingValidator = `#include <stdio.h>
int main(int argc, char **argv) {
	char path[4096];
	snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
	FILE *f = fopen(path, "w");
	fprintf(f, "rejected first\n");
	fclose(f);
	return 43;
}
`

const (
	wrongAndExit = "#include <stdio.h>\nint main(void){printf(\"0\\n\");return 0;}\n"
	crashFirst   = "#include <stdio.h>\n#include <stdlib.h>\nint main(void){char q[8];if(scanf(\"%7s\",q)!=1)return 2;exit(1);}\n"
	segvFirst    = "#include <stdio.h>\n#include <signal.h>\nint main(void){char q[8];if(scanf(\"%7s\",q)!=1)return 2;raise(SIGSEGV);return 0;}\n"
	writeForever = "#include <stdio.h>\nint main(void){for(;;){printf(\"1\\n\");fflush(stdout);}}\n"
	answer42     = "#include <stdio.h>\nint main(void){char q[8];if(scanf(\"%7s\",q)!=1)return 2;printf(\"42\\n\");return 0;}\n"
)

// interactivePackage writes an interactive package with n secret tests
// and the given validator (Kattis protocol) or interactor (testlib).
func interactivePackage(t *testing.T, n int, kattis bool, judgeSrc string) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	files := map[string]string{}
	if kattis {
		files["problem.yaml"] = "problem_format_version: 2023-07-draft\ntype: [pass-fail, interactive]\nname: order\nlimits:\n  time_limit: 2\n"
		files["output_validator/validate.c"] = judgeSrc
	} else {
		files["problem.yaml"] = "name: order\ndocket:\n  interactor:\n    source: interactor/interact.c\nlimits:\n  time_limit: 2\n"
		files["interactor/interact.c"] = judgeSrc
	}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("data/secret/%02d.in", i)] = "1\n"
		files[fmt.Sprintf("data/secret/%02d.ans", i)] = "1\n"
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// judgeEveryTest judges src (C) on every test of p and requires want on
// each: the runs repeat a race, so one wrong verdict is a failure.
func judgeEveryTest(t *testing.T, j *Judge, p *problem.Problem, src string, want Verdict) {
	t.Helper()
	sub := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(src)}}
	res := j.Judge(context.Background(), p, sub, Options{RunAll: true})
	if len(res.Tests) == 0 {
		t.Fatalf("no test ran: %s %s", res.Verdict, res.Error)
	}
	bad := map[string]int{}
	for _, tr := range res.Tests {
		if tr.Verdict != want {
			bad[fmt.Sprintf("%s (%s: %s)", tr.Verdict, tr.VerdictSource, tr.Feedback)]++
		}
	}
	if len(bad) > 0 {
		t.Errorf("want %s on all %d runs, got %v", want, len(res.Tests), bad)
	}
}

// A submission that answers wrong and exits while the validator asks
// again: the validator reads EOF or dies of SIGPIPE, depending on who is
// faster, and either way the verdict is WA, never SE.
func TestInteractiveSubmissionExitsFirstIsWA(t *testing.T) {
	j := testJudge(t)
	t.Run("kattis validator", func(t *testing.T) {
		judgeEveryTest(t, j, interactivePackage(t, 30, true, askingValidator), wrongAndExit, WA)
	})
	t.Run("testlib interactor", func(t *testing.T) {
		judgeEveryTest(t, j, interactivePackage(t, 30, false, askingInteractor), wrongAndExit, WA)
	})
	t.Run("kattis validator exiting 0 on EOF", func(t *testing.T) {
		judgeEveryTest(t, j, interactivePackage(t, 10, true, exitZeroValidator), wrongAndExit, WA)
	})
}

// A submission that crashes first is RE, though the validator then
// rejects the EOF it finds.
func TestInteractiveSubmissionCrashFirstIsRE(t *testing.T) {
	j := testJudge(t)
	p := interactivePackage(t, 10, true, askingValidator)
	t.Run("exit 1", func(t *testing.T) { judgeEveryTest(t, j, p, crashFirst, RE) })
	t.Run("SIGSEGV", func(t *testing.T) { judgeEveryTest(t, j, p, segvFirst, RE) })
	t.Run("testlib exit 1", func(t *testing.T) {
		judgeEveryTest(t, j, interactivePackage(t, 10, false, askingInteractor), crashFirst, RE)
	})
	t.Run("accepted control", func(t *testing.T) { judgeEveryTest(t, j, p, answer42, AC) })
}

// A validator that rejects first gives WA, though the submission then
// dies of SIGPIPE writing to it.
func TestInteractiveValidatorRejectsFirstIsWA(t *testing.T) {
	j := testJudge(t)
	judgeEveryTest(t, j, interactivePackage(t, 10, true, rejectingValidator), writeForever, WA)
}
