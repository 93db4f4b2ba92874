package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// linkedPackage is problemtools' layout: subtask2 links subtask1's tests.
func linkedPackage(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "linked")
	write(t, d, map[string]string{
		"problem.yaml":                  "name: Linked\n",
		"data/sample/1.in":              "1\n",
		"data/sample/1.ans":             "1\n",
		"data/secret/subtask1/01.in":    "2\n",
		"data/secret/subtask1/01.ans":   "2\n",
		"data/secret/subtask2/02.in":    "3\n",
		"data/secret/subtask2/02.ans":   "3\n",
		"data/secret/shared/answer.txt": "4\n",
	})
	symlink(t, "../subtask1/01.in", filepath.Join(d, "data/secret/subtask2/01.in"))
	symlink(t, "../subtask1/01.ans", filepath.Join(d, "data/secret/subtask2/01.ans"))
	// A chain of two links, the second through "..".
	symlink(t, "../shared/answer.txt", filepath.Join(d, "data/secret/subtask2/hop.txt"))
	symlink(t, "hop.txt", filepath.Join(d, "data/secret/subtask2/03.ans"))
	write(t, d, map[string]string{"data/secret/subtask2/03.in": "5\n"})
	return d
}

func TestLinksInsidePackageResolve(t *testing.T) {
	d := linkedPackage(t)
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tc := range p.Tests {
		in, err := os.ReadFile(tc.In)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := os.ReadFile(tc.Ans)
		if err != nil {
			t.Fatal(err)
		}
		got[tc.Name] = string(in) + string(ans)
		for _, f := range []string{tc.In, tc.Ans} {
			if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: test path %s is not the resolved regular file", tc.Name, f)
			}
		}
	}
	want := map[string]string{
		"sample/1": "1\n1\n", "secret/subtask1/01": "2\n2\n", "secret/subtask2/01": "2\n2\n",
		"secret/subtask2/02": "3\n3\n", "secret/subtask2/03": "5\n4\n",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: in+ans %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tests %v, want %v", got, want)
	}

	// The digest counts a link as its content: the same package with
	// copies in place of the links has the same digest.
	c := filepath.Join(t.TempDir(), "linked")
	write(t, c, map[string]string{
		"problem.yaml":                  "name: Linked\n",
		"data/sample/1.in":              "1\n",
		"data/sample/1.ans":             "1\n",
		"data/secret/subtask1/01.in":    "2\n",
		"data/secret/subtask1/01.ans":   "2\n",
		"data/secret/subtask2/01.in":    "2\n",
		"data/secret/subtask2/01.ans":   "2\n",
		"data/secret/subtask2/02.in":    "3\n",
		"data/secret/subtask2/02.ans":   "3\n",
		"data/secret/subtask2/03.in":    "5\n",
		"data/secret/subtask2/03.ans":   "4\n",
		"data/secret/subtask2/hop.txt":  "4\n",
		"data/secret/shared/answer.txt": "4\n",
	})
	pc, err := Load(c)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Digest != p.Digest {
		t.Errorf("digest with links %s, with copies %s", p.Digest, pc.Digest)
	}
	// And it follows the linked content.
	write(t, d, map[string]string{"data/secret/subtask1/01.in": "9\n"})
	if p2, err := Load(d); err != nil || p2.Digest == p.Digest {
		t.Errorf("digest did not change with a linked file's content (%v)", err)
	}
}

func TestBadLinksRefused(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, link, target string
		want               error
	}{
		{"absolute", "data/secret/x.in", outside, ErrLinkAbsolute},
		{"absolute inside", "data/secret/x.in", "/proc/self/root/etc/passwd", ErrLinkAbsolute},
		{"outside", "data/secret/x.in", "../../../secret.txt", ErrLinkOutside},
		{"outside and back", "data/secret/x.in", "../../../linked/data/secret/1.in", ErrLinkOutside},
		{"dangling", "data/secret/x.in", "nothere.in", ErrLinkDangling},
		{"through a file", "data/secret/x.in", "1.in/x", ErrLinkDangling},
		{"loop", "data/secret/x.in", "x.in", ErrLinkLoop},
		{"directory", "data/secret/sub", "../sample", ErrLinkNotFile},
		{"problem.yaml", "problem.yaml", outside, ErrLinkAbsolute},
		{"validator", "output_validators/v/check.cpp", "../../../../secret.txt", ErrLinkOutside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "linked")
			write(t, d, map[string]string{
				"data/sample/1.in": "1\n", "data/sample/1.ans": "1\n",
				"data/secret/1.in": "1\n", "data/secret/1.ans": "1\n",
			})
			if tc.link != "problem.yaml" {
				write(t, d, map[string]string{"problem.yaml": "name: x\n"})
			}
			symlink(t, tc.target, filepath.Join(d, tc.link))
			_, err := Load(d)
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrLink) {
				t.Fatalf("Load: %v, want %v", err, tc.want)
			}
			var le *LinkError
			if !errors.As(err, &le) || le.Path != tc.link {
				t.Errorf("LinkError %+v, want path %s", le, tc.link)
			}
			if !strings.Contains(err.Error(), tc.link) {
				t.Errorf("error %q does not name %s", err, tc.link)
			}
		})
	}
}

// A loop of two links, each pointing at the other.
func TestLinkLoopOfTwo(t *testing.T) {
	d := t.TempDir()
	symlink(t, "b", filepath.Join(d, "a"))
	symlink(t, "a", filepath.Join(d, "b"))
	if _, err := ResolveLink(d, "a"); !errors.Is(err, ErrLinkLoop) {
		t.Fatalf("ResolveLink: %v, want a loop", err)
	}
}

// The package's own directory may be a link (an operator's layout): it is
// not a link inside the package, and the package loads as its target.
func TestPackageDirectoryIsALink(t *testing.T) {
	d := linkedPackage(t)
	want, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(t.TempDir(), "linked")
	symlink(t, d, alias)
	got, err := Load(alias)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != want.Digest || len(got.Tests) != len(want.Tests) {
		t.Errorf("through a linked directory: digest %s, %d tests; want %s, %d", got.Digest, len(got.Tests), want.Digest, len(want.Tests))
	}
}
