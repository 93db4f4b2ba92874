package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/internal/termsafe"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/overshoot"
	"golang.org/x/sys/unix"
)

// langsEnv is the language catalog's configuration.
type langsEnv struct {
	LangsFile string `envconfig:"LANGS_FILE" desc:"YAML file adding or overriding languages (see docs/languages.md)"`
	WorkDir   string `envconfig:"WORK_DIR" desc:"where submissions are built and run while judged; must be docket's own and writable by no one else, as every directory above it unless sticky (default /var/lib/docket/work as root, $XDG_CACHE_HOME/docket-work otherwise)"`
	CacheDir  string `envconfig:"CACHE_DIR" desc:"compiled checkers and interactors, per package digest, (docket worker) unpacked problem packages under problems/, and (docket langs) the toolchains' versions, langs-versions.json; the same ownership rule as DOCKET_WORK_DIR (default /var/cache/docket as root, $XDG_CACHE_HOME/docket otherwise)"`
	// WallOvershoot is a Decoder: a bad value fails loading like a bad int.
	WallOvershoot overshoot.Overshoot `envconfig:"WALL_OVERSHOOT" default:"1s|10%" desc:"how long past its time limit (after the language's multiplier) a test run may take in wall-clock time before it is ended as TLE: Ns, N% of the time limit, or two joined by + (sum), | (larger) or & (smaller), as DOMjudge's timelimit overshoot; a package's docket.wall_overshoot wins"`
	ParallelTests int                 `envconfig:"PARALLEL_TESTS" default:"1" desc:"how many of a submission's tests run at once, each on a sandbox slot of its own (docket run --parallel-tests overrides it); results are still taken in the package's order, so verdicts and events are those of one test at a time. More than 1 judges a submission faster on idle cores, but its tests then share the machine's memory bandwidth and caches: see docs/operations.md, \"Parallel tests\", before using it in a contest"`
}

// maxParallelTests bounds DOCKET_PARALLEL_TESTS: each is a slot, with
// its uids, and a judging claims them all for its whole life.
const maxParallelTests = 64

// loadCatalog reads the catalog's configuration, with the work and cache
// directories' defaults filled in.
func loadCatalog() (*langs.Catalog, langsEnv, error) {
	var e langsEnv
	if err := envProcess(&e); err != nil {
		return nil, e, err
	}
	if e.WorkDir == "" {
		e.WorkDir = verdict.DefaultWorkDir()
	}
	if e.CacheDir == "" {
		e.CacheDir = verdict.DefaultCacheDir()
	}
	c, err := langs.Load(e.LangsFile)
	return c, e, err
}

// ensureDirs creates the work and cache directories if missing and
// refuses them, before any judging, if docket cannot trust them: another
// user's, or writable by others (internal/safedir).
func ensureDirs(le langsEnv) error {
	if err := safedir.Ensure(le.WorkDir, 0o711); err != nil {
		return fmt.Errorf("work directory (DOCKET_WORK_DIR): %w", err)
	}
	if err := safedir.Ensure(le.CacheDir, 0o711); err != nil {
		return fmt.Errorf("cache directory (DOCKET_CACHE_DIR): %w", err)
	}
	return nil
}

// newJudge opens the sandbox, claims a slot (and one more per further
// test run at once: parallel, or DOCKET_PARALLEL_TESTS when 0) and loads
// the catalog.
func newJudge(parallel int) (*verdict.Judge, func(), error) {
	cat, le, err := loadCatalog()
	if err != nil {
		return nil, nil, err
	}
	if parallel == 0 {
		parallel = le.ParallelTests
	}
	if parallel < 1 || parallel > maxParallelTests {
		return nil, nil, fmt.Errorf("parallel tests (DOCKET_PARALLEL_TESTS, --parallel-tests): %d, want 1 to %d", parallel, maxParallelTests)
	}
	if err := ensureDirs(le); err != nil {
		return nil, nil, err
	}
	sb, err := openSandbox()
	if err != nil {
		return nil, nil, err
	}
	var slots []*sandbox.Slot
	extra := &verdict.ExtraSlots{}
	release := func() {
		extra.Release()
		for _, s := range slots {
			s.Release()
		}
	}
	for range parallel {
		s, err := sb.AcquireSlot()
		if err != nil {
			release()
			return nil, nil, err
		}
		slots = append(slots, s)
	}
	return &verdict.Judge{Slot: slots[0], Lanes: slots[1:], Extra: extra, Langs: cat, WorkDir: le.WorkDir, CacheDir: le.CacheDir, WallOvershoot: le.WallOvershoot}, release, nil
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// liveDisplay shows a judging's progress on a terminal.
type liveDisplay struct {
	out io.Writer // stdout or stderr: escaped for the terminal
	tty bool
}

func (d *liveDisplay) Compiled(c verdict.CompileResult) {
	if c.OK {
		fmt.Fprintf(d.out, "compiled in %.2fs\n", float64(c.TimeMs)/1000)
	} else {
		fmt.Fprintf(d.out, "compile error\n")
	}
}

func (d *liveDisplay) Test(i, n int, t verdict.TestResult) {
	if t.Verdict == verdict.SK && !d.tty {
		return
	}
	fmt.Fprintf(d.out, "test %3d/%-3d %-28s %-12s %6dms %8d KiB", i, n, t.Name, string(t.Verdict)+runEnd(t), t.TimeMs, t.MemoryKB)
	if t.Feedback != "" {
		fmt.Fprintf(d.out, "  %s", oneLine(t.Feedback, 60))
	}
	fmt.Fprintln(d.out)
	if t.StderrExcerpt != "" && t.Verdict != verdict.AC {
		fmt.Fprintf(d.out, "      stderr: %s\n", strings.ReplaceAll(termsafe.Text(strings.TrimRight(t.StderrExcerpt, "\n")), "\n", "\n              "))
	}
}

// runEnd says how a runtime error's run ended: "  exit 3" or "  SIGSEGV".
func runEnd(t verdict.TestResult) string {
	if t.Verdict != verdict.RE {
		return ""
	}
	if t.Signal != 0 {
		if name := unix.SignalName(syscall.Signal(t.Signal)); name != "" {
			return "  " + name
		}
		return fmt.Sprintf("  signal %d", t.Signal)
	}
	return fmt.Sprintf("  exit %d", t.ExitCode)
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

func judgeCtx() context.Context { return context.Background() }
