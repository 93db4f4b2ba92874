package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// passValidator is a Kattis multi-pass validator, batch or interactive
// alike: its input is "pass K"; it tells the submission so on stdout,
// reads its answer, and checks that its feedback directory kept the state
// of pass K-1 (persistence) and that the submission saw a fresh box. The
// answer file says what to do: N (accept after N passes), "reject-next"
// (nextpass.in with a rejection) or "link" (nextpass.in a symbolic link).
const passValidator = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char fb[4096];
static FILE *fbfile(const char *name, const char *mode) {
	char p[4200];
	snprintf(p, sizeof p, "%s/%s", fb, name);
	return fopen(p, mode);
}
static int say(int code, const char *msg) {
	FILE *f = fbfile("judgemessage.txt", "a");
	fprintf(f, "%s\n", msg);
	fclose(f);
	return code;
}
int main(int argc, char **argv) {
	snprintf(fb, sizeof fb, "%s", argv[3]);
	FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r");
	int k = 0, prev = 0;
	char what[64] = "", tok[64] = "";
	if (fscanf(in, "pass %d", &k) != 1 || fscanf(ans, "%63s", what) != 1) return 1;
	FILE *st = fbfile("state", "r");
	if (st) { fscanf(st, "%d", &prev); fclose(st); }
	if (prev != k - 1) return say(1, "feedback state lost");
	st = fbfile("state", "w");
	fprintf(st, "%d\n", k);
	fclose(st);
	printf("pass %d\n", k);
	fflush(stdout);
	if (scanf("%63s", tok) != 1 || strcmp(tok, "ok") != 0) return say(43, "not ok");
	if (strcmp(what, "reject-next") == 0) {
		FILE *n = fbfile("nextpass.in", "w");
		fprintf(n, "pass %d\n", k + 1);
		fclose(n);
		return say(43, "rejected, with a next pass");
	}
	if (strcmp(what, "link") == 0) {
		char p[4200];
		snprintf(p, sizeof p, "%s/nextpass.in", fb);
		symlink("/etc/passwd", p);
		return say(42, "a link");
	}
	if (k < atoi(what)) {
		FILE *n = fbfile("nextpass.in", "w");
		fprintf(n, "pass %d\n", k + 1);
		fclose(n);
		return say(42, "next");
	}
	return say(42, "done");
}
`

// passSubmission answers "ok" to "pass K", unless its box still holds
// the mark an earlier pass left (the box was not fresh). crashAt > 0
// makes it exit 1 on that pass.
func passSubmission(crashAt int) Submission {
	return Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(fmt.Sprintf(`#include <stdio.h>
#include <unistd.h>
int main(void) {
	int k = 0;
	if (scanf("pass %%d", &k) != 1) return 2;
	if (k == %d) return 1;
	if (access("mark", F_OK) == 0) { printf("stale\n"); return 0; }
	FILE *m = fopen("mark", "w");
	if (m) fclose(m);
	printf("ok\n");
	fflush(stdout);
	return 0;
}
`, crashAt))}}
}

// multiPassPackage writes a multi-pass package (interactive or not,
// validation_passes 3) whose tests' answers are the given validator modes.
func multiPassPackage(t *testing.T, interactive bool, modes ...string) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	typ := "multi-pass"
	if interactive {
		typ = "[interactive, multi-pass]"
	}
	files := map[string]string{
		"problem.yaml":                "problem_format_version: 2023-07-draft\nname: passes\ntype: " + typ + "\nlimits:\n  time_limit: 2\n  validation_passes: 3\n",
		"output_validator/validate.c": passValidator,
	}
	for i, m := range modes {
		files[fmt.Sprintf("data/secret/%02d.in", i+1)] = "pass 1\n"
		files[fmt.Sprintf("data/secret/%02d.ans", i+1)] = m + "\n"
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

// Each pass runs in a fresh box on the validator's nextpass.in, the
// validator's feedback directory persists, and the test reports every
// pass; more passes than validation_passes is WA, a nextpass.in beside a
// rejection is SE, and a nextpass.in that is a link is none. Batch and
// interactive alike.
func TestMultiPassJudging(t *testing.T) {
	j := testJudge(t)
	for _, interactive := range []bool{false, true} {
		t.Run(map[bool]string{false: "batch", true: "interactive"}[interactive], func(t *testing.T) {
			p := multiPassPackage(t, interactive, "1", "2", "3", "4", "reject-next", "link")
			res := j.Judge(context.Background(), p, passSubmission(0), Options{RunAll: true})
			for _, want := range []struct {
				verdict Verdict
				passes  int
				text    string
			}{
				{AC, 1, "done"},
				{AC, 2, "done"},
				{AC, 3, "done"},
				{WA, 3, "asked for pass 4, more than the 3 passes allowed"},
				{SE, 1, "wrote nextpass.in but rejected"},
				// The sandbox brings no link out of a box: no next pass.
				{AC, 1, "a link"},
			} {
				checkPasses(t, res, len(res.Tests) > 0, want.verdict, want.passes, want.text)
				if len(res.Tests) > 0 {
					res.Tests = res.Tests[1:]
				}
			}
		})
	}
}

// checkPasses checks the first test of res.
func checkPasses(t *testing.T, res *Result, ok bool, v Verdict, passes int, text string) {
	t.Helper()
	if !ok {
		t.Fatalf("missing a test: %s %s", res.Verdict, res.Error)
	}
	tr := res.Tests[0]
	if tr.Verdict != v || len(tr.Passes) != passes || !strings.Contains(tr.Feedback, text) {
		t.Errorf("%s: %s, %d passes, %q; want %s, %d passes, feedback with %q", tr.Name, tr.Verdict, len(tr.Passes), tr.Feedback, v, passes, text)
	}
	for _, p := range tr.Passes {
		if p.TimeMs > tr.TimeMs || p.MemoryKB > tr.MemoryKB {
			t.Errorf("%s: a pass used %d ms %d KB, more than the test's %d ms %d KB", tr.Name, p.TimeMs, p.MemoryKB, tr.TimeMs, tr.MemoryKB)
		}
	}
}

// A submission that crashes in its second pass is RE, with both passes.
func TestMultiPassCrashInLaterPass(t *testing.T) {
	j := testJudge(t)
	for _, interactive := range []bool{false, true} {
		p := multiPassPackage(t, interactive, "3")
		res := j.Judge(context.Background(), p, passSubmission(2), Options{RunAll: true})
		checkPasses(t, res, len(res.Tests) == 1, RE, 2, "")
		if len(res.Tests) == 1 && len(res.Tests[0].Passes) == 2 && res.Tests[0].Passes[1].Verdict != RE {
			t.Errorf("interactive %v: pass 2 %s, want RE", interactive, res.Tests[0].Passes[1].Verdict)
		}
	}
}
