package verdict

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/verdict/problem"
)

// nobody is the other user that planted files belong to.
const nobody = 65534

// acceptAll is a Kattis-protocol output validator that accepts every
// answer: what an attacker would plant as a cached checker.
const acceptAll = "#!/bin/sh\nexit 42\n"

// plantChecker writes acceptAll as the compiled checker of p in cache,
// with the marker of a finished build, owned by docket and read-only to
// others as docket leaves its own builds.
func plantChecker(t *testing.T, cache string, p *problem.Problem) string {
	t.Helper()
	dir := programDir(cache, p.Digest, "checker")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{cache, filepath.Dir(dir)} {
		os.Chmod(d, 0o711)
	}
	if err := os.WriteFile(filepath.Join(dir, "main"), []byte(acceptAll), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, builtMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A checker found in the cache directory is used only if docket can
// trust every level of it: a planted one, owned by another user or
// writable by others, is built again from the package (the submission
// gets its WA), and a cache directory docket cannot trust is an SE.
// Docket's own entry is used as it is (the control: the plant works).
// Before the fix every planted checker was used and the wrong answer
// judged AC.
func TestPlantedCheckerNotUsed(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/kattis-checker")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../problems/kattis-checker/submissions/wrong_answer/identity.cpp")
	if err != nil {
		t.Fatal(err)
	}
	sub := Submission{ID: "planted", Language: "cpp", Files: map[string][]byte{"identity.cpp": src}}
	for _, tc := range []struct {
		name  string
		plant func(cache, entry string) error
		want  Verdict
	}{
		{"docket's own entry (control)", func(string, string) error { return nil }, AC},
		{"entry of another user", func(_, e string) error { return os.Chown(e, nobody, nobody) }, WA},
		{"entry mode 0777", func(_, e string) error { return os.Chmod(e, 0o777) }, WA},
		{"program of another user", func(_, e string) error { return os.Chown(filepath.Join(e, "main"), nobody, nobody) }, WA},
		{"program mode 0777", func(_, e string) error { return os.Chmod(filepath.Join(e, "main"), 0o777) }, WA},
		{"marker of another user", func(_, e string) error { return os.Chown(filepath.Join(e, builtMarker), nobody, nobody) }, WA},
		{"programs level mode 0777", func(_, e string) error { return os.Chmod(filepath.Dir(e), 0o777) }, SE},
		{"cache directory of another user", func(c, _ string) error { return os.Chown(c, nobody, nobody) }, SE},
		{"cache directory mode 0777", func(c, _ string) error { return os.Chmod(c, 0o777) }, SE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			entry := plantChecker(t, cache, p)
			if err := tc.plant(cache, entry); err != nil {
				t.Fatal(err)
			}
			j.CacheDir = cache
			res := j.Judge(context.Background(), p, sub, Options{})
			if res.Verdict != tc.want {
				t.Errorf("verdict %s (%s), want %s", res.Verdict, res.Error, tc.want)
			}
			switch tc.want {
			case SE: // refused, for the cache directory
				if err := j.Prepare(p); !errors.Is(err, safedir.ErrUnsafe) {
					t.Errorf("Prepare: %v, want safedir.ErrUnsafe", err)
				}
			case WA: // built again in its place, docket's own
				if b, err := os.ReadFile(filepath.Join(entry, "main")); err != nil || string(b) == acceptAll {
					t.Errorf("the planted checker is still in the cache (%v)", err)
				}
				if err := safedir.Tree(entry); err != nil {
					t.Errorf("the rebuilt entry: %v", err)
				}
			}
		})
	}
}

// A work directory docket cannot trust is refused before anything is
// written into it: SE, nothing compiled. Before the fix docket built and
// ran the submission in it.
func TestUntrustedWorkDirRefused(t *testing.T) {
	j := testJudge(t)
	p, err := problem.Load("../problems/aplusb")
	if err != nil {
		t.Fatal(err)
	}
	sub := toSubmission("python3", map[string]string{"main.py": plainPython})
	for name, plant := range map[string]func(string) error{
		"mode 0777":         func(w string) error { return os.Chmod(w, 0o777) },
		"another user's":    func(w string) error { return os.Chown(w, nobody, nobody) },
		"parent mode 0777":  func(w string) error { return os.Chmod(filepath.Dir(w), 0o777) },
		"a symbolic link":   func(w string) error { return relink(w) },
		"parent of another": func(w string) error { return os.Chown(filepath.Dir(w), nobody, nobody) },
	} {
		t.Run(name, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), "up", "work")
			if err := os.MkdirAll(work, 0o711); err != nil {
				t.Fatal(err)
			}
			if err := plant(work); err != nil {
				t.Fatal(err)
			}
			j.WorkDir = work
			res := j.Judge(context.Background(), p, sub, Options{})
			if res.Verdict != SE || res.Compile.OK || len(res.Tests) != 0 {
				t.Errorf("verdict %s, compiled %v, %d tests (%s); want SE before anything ran", res.Verdict, res.Compile.OK, len(res.Tests), res.Error)
			}
			if err := safedir.Ensure(work, 0o711); !errors.Is(err, safedir.ErrUnsafe) {
				t.Errorf("the judge refused, but safedir says %v", err)
			}
		})
	}
}

// relink replaces the directory w by a symbolic link to another
// directory of docket's.
func relink(w string) error {
	other := w + "-real"
	if err := os.Mkdir(other, 0o711); err != nil {
		return err
	}
	if err := os.Remove(w); err != nil {
		return err
	}
	return os.Symlink(other, w)
}
