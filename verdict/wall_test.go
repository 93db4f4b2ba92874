package verdict

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/overshoot"
	"github.com/docketjudge/docket/verdict/problem"
)

// sleeperC answers wrongly at once, tries to stop its parent (the
// sandbox's init: refused or ignored), then sleeps 10 s without using CPU.
// Only the wall-clock limit can end it; it must end as TLE whatever it
// printed, not as WA once the sleep is over.
const sleeperC = `#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(void){long long a,b;if(scanf("%lld %lld",&a,&b)!=2)return 1;
printf("%lld\n",a-b);fflush(stdout);kill(getppid(),SIGSTOP);sleep(10);return 0;}
`

// sumPackage writes an a+b package with problem.yaml yaml and loads it.
func sumPackage(t *testing.T, yaml string) *problem.Problem {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sum")
	os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte(yaml), 0o644)
	os.WriteFile(filepath.Join(dir, "data/secret/1.in"), []byte("1 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/secret/1.ans"), []byte("3\n"), 0o644)
	p, err := problem.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The case: on a 5 s problem a program that sleeps 10 s gets TLE
// from the wall clock at 5 s + max(1 s, 10%) = 6 s, and the result says
// so in limits.wall_ms and the test's wall_ms. Before, the wall limit was
// 2 × 5 s + 1 s, the sleep ended first and the verdict was WA at 10 s.
func TestSleeperIsTLEAtTheWallLimit(t *testing.T) {
	j := testJudge(t)
	p := sumPackage(t, "name: sleeper\nlimits:\n  time_limit: 5\n")
	res := j.Judge(context.Background(), p, Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(sleeperC)}}, Options{})
	checkWallTLE(t, res, 6*time.Second, overshoot.DefaultText)
}

// The worker's overshoot (Judge.WallOvershoot, DOCKET_WALL_OVERSHOOT)
// applies where the package says nothing; the package's
// docket.wall_overshoot wins over it.
func TestWallOvershootWorkerAndPackage(t *testing.T) {
	j := testJudge(t)
	j.WallOvershoot = overshoot.MustParse("2s")
	sub := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(sleeperC)}}
	res := j.Judge(context.Background(), sumPackage(t, "name: sleeper\n"), sub, Options{})
	checkWallTLE(t, res, 3*time.Second, "2s") // the default 1 s time limit
	res = j.Judge(context.Background(), sumPackage(t, "name: sleeper\ndocket:\n  wall_overshoot: 50%\n"), sub, Options{})
	checkWallTLE(t, res, 1500*time.Millisecond, "50%")
}

func checkWallTLE(t *testing.T, res *Result, wall time.Duration, over string) {
	t.Helper()
	if res.Limits.WallMs != wall.Milliseconds() || res.Limits.WallOvershoot != over {
		t.Errorf("limits: wall_ms %d, wall_overshoot %q; want %d, %q", res.Limits.WallMs, res.Limits.WallOvershoot, wall.Milliseconds(), over)
	}
	if res.Verdict != TLE || len(res.Tests) != 1 {
		t.Fatalf("verdict %s with %d tests (%s); want TLE on one test", res.Verdict, len(res.Tests), res.Error)
	}
	tr := res.Tests[0]
	// The wall timer fires at the limit; the kill and the teardown on a
	// loaded machine may add to it, never 10 s (the sleep's end).
	if tr.VerdictSource != sandbox.SourceWall || tr.WallMs < wall.Milliseconds() || tr.WallMs > wall.Milliseconds()+2500 {
		t.Errorf("test: %s (%s) after %d ms wall; want TLE (%s) at about %d ms", tr.Verdict, tr.VerdictSource, tr.WallMs, sandbox.SourceWall, wall.Milliseconds())
	}
}
