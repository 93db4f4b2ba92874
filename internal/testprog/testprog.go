// Package testprog compiles the C programs that docket's tests run in the
// sandbox (hostile programs, measurement probes), once per test binary.
//
// It must not import any other package of docket's; only tests import it.
package testprog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// C compiles src (a .c file) statically and returns the binary's path, in
// a directory every sandbox uid can read and execute. Tests skip, saying
// why, when no C compiler is installed.
func C(tb testing.TB, src string, extra ...string) string {
	tb.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		tb.Skip("gcc is not installed: cannot build the C test programs (.ci/run installs it)")
	}
	mu.Lock()
	defer mu.Unlock()
	body, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.Sum256(append(body, []byte(fmt.Sprint(extra))...))
	key := hex.EncodeToString(h[:8])
	if p, ok := built[key]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "docket-testprog-")
		if err != nil {
			tb.Fatal(err)
		}
		os.Chmod(d, 0o755)
		dir = d
	}
	out := filepath.Join(dir, filepath.Base(src[:len(src)-2])+"-"+key)
	args := append([]string{"-O2", "-static", "-o", out, src}, extra...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		tb.Fatalf("gcc %s: %v\n%s", src, err, b)
	}
	os.Chmod(out, 0o755)
	built[key] = out
	return out
}

// CleaningUp wraps a test binary's m (for testguard.Main) so that its
// run ends by removing the compiled programs.
func CleaningUp(m interface{ Run() int }) interface{ Run() int } { return cleaning{m} }

type cleaning struct{ m interface{ Run() int } }

func (c cleaning) Run() int { defer Cleanup(); return c.m.Run() }

// Cleanup removes the compiled programs; call it from TestMain.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}
