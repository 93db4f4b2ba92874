package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

func TestMain(m *testing.M) { testguard.Main(m) }

// hundredTests writes an a+b package with 100 secret tests.
func hundredTests(tb testing.TB) string {
	dir := filepath.Join(tb.TempDir(), "aplusb100")
	os.MkdirAll(filepath.Join(dir, "data/sample"), 0o755)
	os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
	os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte("name: a+b x100\nlimits:\n  time_limit: 1\n  memory: 256\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/sample/1.in"), []byte("1 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "data/sample/1.ans"), []byte("3\n"), 0o644)
	for i := 0; i < 100; i++ {
		a, b := i*7919-300000, i*104729
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%03d.in", i)), []byte(fmt.Sprintf("%d %d\n", a, b)), 0o644)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data/secret/%03d.ans", i)), []byte(fmt.Sprintf("%d\n", a+b)), 0o644)
	}
	return dir
}

const aplusbCpp = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n"

// BenchmarkJudge100 judges a 100-test batch problem with a C++ solution
// and reports the share of wall time spent outside sandbox runs (package
// loading, comparison, bookkeeping; target under 10%) and tests per second.
func BenchmarkJudge100(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("judging needs the full sandbox, which needs root")
	}
	sb, err := sandbox.New(sandbox.Config{StateDir: b.TempDir(), UIDBase: 64000})
	if err != nil {
		b.Fatal(err)
	}
	slot, err := sb.AcquireSlot()
	if err != nil {
		b.Fatal(err)
	}
	defer slot.Release()
	j := &Judge{Slot: slot, Langs: langs.Builtin(), WorkDir: b.TempDir(), CacheDir: b.TempDir()}
	dir := hundredTests(b)
	var tm Timing
	var tests int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		p, err := problem.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		load := time.Since(start)
		var t Timing
		res := j.Judge(context.Background(), p, Submission{Language: "cpp", Files: map[string][]byte{"main.cpp": []byte(aplusbCpp)}}, Options{Timing: &t})
		if res.Verdict != AC || len(res.Tests) != 101 {
			b.Fatalf("verdict %s, %d tests: %s", res.Verdict, len(res.Tests), res.Error)
		}
		tm.Total += t.Total + load
		tm.Sandbox += t.Sandbox
		tm.Runs += t.Runs
		tests += len(res.Tests)
	}
	b.StopTimer()
	outside := tm.Total - tm.Sandbox
	b.ReportMetric(100*float64(outside)/float64(tm.Total), "%outside-sandbox")
	b.ReportMetric(float64(tests)/tm.Total.Seconds(), "tests/s")
	b.ReportMetric(float64(tm.Sandbox.Milliseconds())/float64(tm.Runs), "ms/sandbox-run")
}
