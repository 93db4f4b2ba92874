package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLegacyPackage(t *testing.T) {
	d := filepath.Join(t.TempDir(), "hello")
	write(t, d, map[string]string{
		"problem.yaml":                  "name: Hello\nvalidation: custom\nvalidator_flags: float_tolerance 1e-6\nlimits:\n  memory: 64\n",
		".timelimit":                    "2.5\n",
		"data/sample/1.in":              "1\n",
		"data/sample/1.ans":             "1\n",
		"data/secret/b.in":              "2\n",
		"data/secret/b.ans":             "2\n",
		"data/secret/a.in":              "3\n",
		"data/secret/a.ans":             "3\n",
		"output_validators/v/check.cpp": "int main(){return 42;}\n",
		"submissions/accepted/x.cpp":    "int main(){}\n",
	})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Hello" || p.Kind != PassFail || p.Limits.Time != 2500*time.Millisecond || p.Limits.TimeSource != ".timelimit" || p.Limits.MemoryMB != 64 {
		t.Errorf("fields: %+v limits %+v", p, p.Limits)
	}
	var names []string
	for _, tc := range p.Tests {
		names = append(names, tc.Name)
	}
	if got := strings.Join(names, ","); got != "sample/1,secret/a,secret/b" {
		t.Errorf("test order %s", got)
	}
	if p.Checker == nil || p.Checker.Protocol != Kattis || p.Checker.Sources[0] != "check.cpp" {
		t.Errorf("checker %+v", p.Checker)
	}
	if !strings.HasPrefix(p.Digest, "sha256:") {
		t.Errorf("digest %q", p.Digest)
	}
	// The digest ignores submissions/ and follows the data.
	write(t, d, map[string]string{"submissions/accepted/y.cpp": "x"})
	p2, _ := Load(d)
	write(t, d, map[string]string{"data/secret/a.ans": "4\n"})
	p3, _ := Load(d)
	if p2.Digest != p.Digest || p3.Digest == p.Digest {
		t.Errorf("digests: %s %s %s", p.Digest, p2.Digest, p3.Digest)
	}
}

func TestDraftPackageWithGroups(t *testing.T) {
	d := filepath.Join(t.TempDir(), "groups")
	write(t, d, map[string]string{
		"problem.yaml":                   "problem_format_version: 2023-07-draft\nname: {en: Groups}\ntype: [scoring, interactive]\nlimits: {time_limit: 0.5}\ndocket:\n  interactor: {source: int/i.cpp}\n",
		"int/i.cpp":                      "int main(){}",
		"data/sample/1.in":               "",
		"data/secret/g1/testdata.yaml":   "accept_score: 30\ngrader_flags: min\n",
		"data/secret/g1/1.in":            "",
		"data/secret/g2/test_group.yaml": "max_score: 70\nscore_aggregation: min\n",
		"data/secret/g2/1.in":            "",
		"data/secret/g2/1.ans":           "",
	})
	p, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Groups" || p.Kind != Scoring || !p.Interactive || p.Interactor == nil || p.Interactor.Protocol != Testlib || p.Limits.Time != 500*time.Millisecond {
		t.Errorf("%+v", p)
	}
	secret := p.Root.Groups[1]
	if secret.Name != "secret" || len(secret.Groups) != 2 {
		t.Fatalf("groups %+v", secret)
	}
	g1, g2 := secret.Groups[0], secret.Groups[1]
	if g1.Config.AcceptScore != 30 || !g1.Config.HasFlag("min") || g2.Config.MaxScore == nil || *g2.Config.MaxScore != 70 || !g2.Config.HasFlag("min") {
		t.Errorf("group configs %+v %+v", g1.Config, g2.Config)
	}
}

func TestBrokenPackages(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"no ans":          {map[string]string{"problem.yaml": "name: x\n", "data/secret/1.in": "1"}, "has no 1.ans"},
		"unknown type":    {map[string]string{"problem.yaml": "type: golf\n", "data/secret/1.in": "", "data/secret/1.ans": ""}, `unknown type "golf"`},
		"no validator":    {map[string]string{"problem.yaml": "validation: custom\n", "data/secret/1.in": "", "data/secret/1.ans": ""}, "no output_validators/"},
		"no tests":        {map[string]string{"problem.yaml": "", "data/sample/1.ans": "", "data/secret/x.txt": ""}, "no tests"},
		"bad timelimit":   {map[string]string{"problem.yaml": "", ".timelimit": "fast", "data/secret/1.in": "", "data/secret/1.ans": ""}, ".timelimit"},
		"bad yaml":        {map[string]string{"problem.yaml": "limits: [", "data/secret/1.in": "", "data/secret/1.ans": ""}, "problem.yaml"},
		"bad testdata":    {map[string]string{"problem.yaml": "", "data/secret/testdata.yaml": "on_reject: maybe\n", "data/secret/1.in": "", "data/secret/1.ans": ""}, "on_reject"},
		"escaping source": {map[string]string{"problem.yaml": "docket: {checker: {source: ../x.cpp}}\n", "data/secret/1.in": "", "data/secret/1.ans": ""}, "inside the package"},
		"bad two-step":    {map[string]string{"problem.yaml": "docket: {two_step: {mode: three}}\n", "data/secret/1.in": "", "data/secret/1.ans": ""}, "two_step.mode"},
	} {
		t.Run(name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			write(t, d, tc.files)
			_, err := Load(d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	d := filepath.Join(t.TempDir(), "link")
	write(t, d, map[string]string{"problem.yaml": "", "data/secret/1.in": "", "data/secret/1.ans": ""})
	os.Symlink("/etc/shadow", filepath.Join(d, "data/secret/2.in"))
	if _, err := Load(d); !errors.Is(err, ErrLinkAbsolute) || !strings.Contains(err.Error(), "data/secret/2.in") {
		t.Errorf("an absolute symlink in data/: %v", err)
	}
}

// Either data/sample or data/secret alone is a package: Kattis and DOMjudge
// judge samples like any other test.
func TestOneGroupPackages(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		tests string
	}{
		"only secret": {map[string]string{"problem.yaml": "name: s\n", "data/secret/b.in": "2", "data/secret/b.ans": "2", "data/secret/a.in": "1", "data/secret/a.ans": "1"}, "secret/a,secret/b"},
		"only sample": {map[string]string{"problem.yaml": "name: s\n", "data/sample/1.in": "1", "data/sample/1.ans": "1"}, "sample/1"},
	} {
		t.Run(name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			write(t, d, tc.files)
			p, err := Load(d)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tc := range p.Tests {
				names = append(names, tc.Name)
			}
			if got := strings.Join(names, ","); got != tc.tests {
				t.Errorf("tests %s, want %s", got, tc.tests)
			}
			if len(p.Root.Groups) != 1 || p.Root.Groups[0].Name != strings.SplitN(tc.tests, "/", 2)[0] {
				t.Errorf("groups %+v", p.Root.Groups)
			}
		})
	}
}
