package deploy_test

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docketjudge/docket/langs"
)

// dockerfile is what the checks need from deploy/Dockerfile: its
// instructions, continuation lines joined, comments dropped.
type dockerfile struct {
	instrs [][2]string // {INSTRUCTION, arguments}
}

func parseDockerfile(src string) dockerfile {
	var d dockerfile
	src = strings.ReplaceAll(src, "\\\n", " ")
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, args, _ := strings.Cut(line, " ")
		d.instrs = append(d.instrs, [2]string{strings.ToUpper(op), strings.TrimSpace(args)})
	}
	return d
}

func (d dockerfile) all(op string) []string {
	var out []string
	for _, in := range d.instrs {
		if in[0] == op {
			out = append(out, in[1])
		}
	}
	return out
}

// dockerignored reports whether .dockerignore excludes p (the simple
// patterns it uses: a path, or **/ prefixed names).
func dockerignored(ignore []string, p string) bool {
	for _, pat := range ignore {
		if pat == p || strings.HasPrefix(p, pat+"/") {
			return true
		}
		if rest, ok := strings.CutPrefix(pat, "**/"); ok {
			if m, _ := path.Match(rest, path.Base(p)); m {
				return true
			}
		}
	}
	return false
}

// packageOf says which Debian package of the runtime image provides a
// catalog command, or "go-from-build" for the Go toolchain copied from the
// build stage.
var packageOf = map[string]string{
	"gcc": "gcc", "g++": "g++", "python3": "python3", "pypy3": "pypy3",
	"javac": "openjdk-17-jdk-headless", "java": "openjdk-17-jdk-headless",
	"kotlinc": "kotlin", "kotlin": "kotlin", "rustc": "rustc", "node": "nodejs",
	"go":  "go-from-build",
	"fpc": "fp-compiler", "ghc": "ghc", "ocamlopt": "ocaml-nox", "ruby": "ruby", "luac5.4": "lua5.4", "lua5.4": "lua5.4",
	"perl": "perl", "swipl": "swi-prolog-nox", "Rscript": "r-base-core", "gnatmake": "gnat", "gfortran": "gfortran",
	"gawk": "gawk", "bash": "bash", "sh": "dash", "mcs": "mono-mcs", "mono": "mono-runtime", "scalac": "scala", "php": "php-cli",
}

// checkDockerfile: COPY sources exist and are not ignored; the runtime
// image has every catalog toolchain; the entrypoint ends in docket worker.
func checkDockerfile(d dockerfile, ignore []string, cat *langs.Catalog) error {
	var ps problems
	froms := d.all("FROM")
	if len(froms) < 2 || !strings.Contains(froms[0], " AS build") {
		ps.addf("want a build stage (FROM ... AS build) and a runtime stage, got FROM %v", froms)
	}
	goFromBuild := false
	for _, args := range d.all("COPY") {
		fields := strings.Fields(args)
		if len(fields) > 0 && strings.HasPrefix(fields[0], "--from=") {
			if fields[len(fields)-1] == "/usr/local/go" { // the Go toolchain, where PATH finds it
				goFromBuild = true
			}
			continue
		}
		for _, src := range fields[:len(fields)-1] {
			if strings.HasPrefix(src, "--") {
				continue
			}
			p := path.Clean(src)
			if p == "." {
				continue
			}
			ps.add(mustExist(p))
			if dockerignored(ignore, p) {
				ps.addf("COPY %s: excluded by .dockerignore", p)
			}
		}
	}
	builds := strings.Join(d.all("RUN"), "\n")
	if !regexp.MustCompile(`CGO_ENABLED=1 go build .*\./cmd/docket`).MatchString(builds) {
		ps.addf("no RUN builds ./cmd/docket with CGO_ENABLED=1 (the sandbox helper is cgo)")
	}
	apt := ""
	for _, r := range d.all("RUN") {
		if strings.Contains(r, "apt-get install") {
			apt = r
		}
	}
	installed := strings.Fields(apt)
	for _, id := range cat.IDs() {
		l, err := cat.Lookup(id)
		if err != nil {
			ps.add(err)
			continue
		}
		for _, argv := range [][]string{l.Compile, l.Run, l.Version} {
			if len(argv) == 0 || strings.HasPrefix(argv[0], "./") || strings.Contains(argv[0], "{") {
				continue
			}
			pkg, ok := packageOf[filepath.Base(argv[0])]
			switch {
			case !ok:
				ps.addf("language %s runs %s: which package of deploy/Dockerfile provides it? (packageOf)", id, argv[0])
			case pkg == "go-from-build":
				if !goFromBuild {
					ps.addf("language %s needs %s, and the Go toolchain is not copied from the build stage", id, argv[0])
				}
			case !slices.Contains(installed, pkg):
				ps.addf("language %s needs %s from package %s, which the runtime image does not install", id, argv[0], pkg)
			}
		}
	}
	ep, cmd := d.all("ENTRYPOINT"), d.all("CMD")
	if len(ep) != 1 || ep[0] != `["docket-entrypoint"]` || len(cmd) != 1 || cmd[0] != `["worker"]` {
		ps.addf("ENTRYPOINT %v CMD %v: want [\"docket-entrypoint\"] and [\"worker\"] (docket worker)", ep, cmd)
	}
	if !slices.ContainsFunc(d.all("COPY"), func(s string) bool { return strings.HasSuffix(s, "/usr/local/bin/docket-entrypoint") }) {
		ps.addf("deploy/entrypoint.sh is not installed as docket-entrypoint")
	}
	if hc := d.all("HEALTHCHECK"); len(hc) != 1 || !healthStartsWithSelftest.MatchString(hc[0]) {
		ps.addf("HEALTHCHECK %v: want one whose first step is docket selftest --once", hc)
	}
	return ps.err()
}

// healthStartsWithSelftest matches a HEALTHCHECK whose command begins
// with `docket selftest --once` (the report the entrypoint kept at start).
var healthStartsWithSelftest = regexp.MustCompile(`^(--[a-z-]+=\S+\s+)*CMD\s+docket selftest --once\b`)

// aptPackages is the runtime stage's apt-get install list.
func aptPackages(d dockerfile) []string {
	for _, r := range d.all("RUN") {
		if _, list, ok := strings.Cut(r, "--no-install-recommends"); ok {
			var pkgs []string
			for _, f := range strings.Fields(list) {
				if f == "&&" {
					break
				}
				pkgs = append(pkgs, f)
			}
			return pkgs
		}
	}
	return nil
}

// TestDockerfilePackagesExist asks this machine's apt index whether every
// package the runtime image installs exists, when this machine runs the
// image's Debian release (bookworm, 12): a misspelt or dropped package
// would otherwise show only at docker build time.
func TestDockerfilePackagesExist(t *testing.T) {
	d := parseDockerfile(string(readRepo(t, "deploy/Dockerfile")))
	if !slices.ContainsFunc(d.all("ARG"), func(a string) bool { return a == "RUNTIME_IMAGE=debian:bookworm-slim" }) {
		t.Fatal("the runtime image is no longer debian:bookworm-slim: update this test")
	}
	rel, err := os.ReadFile("/etc/debian_version")
	if err != nil || !strings.HasPrefix(string(rel), "12.") {
		t.Skipf("this machine is not Debian 12 (bookworm) (%q, %v): its apt index says nothing about the image's", rel, err)
	}
	if _, err := exec.LookPath("apt-cache"); err != nil {
		t.Skip("no apt-cache on this Debian machine")
	}
	pkgs := aptPackages(d)
	if len(pkgs) < 8 {
		t.Fatalf("found only %v in the apt-get install line", pkgs)
	}
	// One apt-cache call (each costs about a second); its output has a
	// "Package:" line per package found. A made-up name must be missing.
	const bogus = "docket-no-such-package"
	out, _ := exec.Command("apt-cache", append([]string{"show", "--no-all-versions"}, append(pkgs, bogus)...)...).Output()
	found := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(l, "Package: "); ok {
			found[name] = true
		}
	}
	if found[bogus] || len(found) == 0 {
		t.Fatalf("apt-cache show found %v: this check cannot tell a missing package", sortedKeys(found))
	}
	for _, p := range pkgs {
		if !found[p] {
			t.Errorf("package %s: not in this bookworm machine's apt index", p)
		}
	}
}

func readIgnore(t *testing.T) []string {
	var pats []string
	for _, l := range strings.Split(string(readRepo(t, ".dockerignore")), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			pats = append(pats, l)
		}
	}
	return pats
}

func TestDockerfile(t *testing.T) {
	d := parseDockerfile(string(readRepo(t, "deploy/Dockerfile")))
	expectClean(t, "deploy/Dockerfile", checkDockerfile(d, readIgnore(t), langs.Builtin()))

	script := string(readRepo(t, "deploy/entrypoint.sh"))
	if !strings.HasSuffix(strings.TrimSpace(script), `exec docket "$@"`) {
		t.Error(`deploy/entrypoint.sh must end with exec docket "$@" (docket gets the signals)`)
	}
	if out, err := exec.Command("sh", "-n", repoPath("deploy/entrypoint.sh")).CombinedOutput(); err != nil {
		t.Errorf("sh -n deploy/entrypoint.sh: %v\n%s", err, out)
	}
}

func TestDockerfileChecksFail(t *testing.T) {
	orig := string(readRepo(t, "deploy/Dockerfile"))
	ign, cat := readIgnore(t), langs.Builtin()
	broken := func(old, new string) dockerfile {
		t.Helper()
		if !strings.Contains(orig, old) {
			t.Fatalf("Dockerfile no longer contains %q: update this test", old)
		}
		return parseDockerfile(strings.Replace(orig, old, new, 1))
	}
	expectProblem(t, "missing COPY source", checkDockerfile(broken("COPY problems /problems", "COPY problemz /problems"), ign, cat), "problemz")
	expectProblem(t, "ignored COPY source", checkDockerfile(broken("COPY problems /problems", "COPY docs /docs"), ign, cat), ".dockerignore")
	expectProblem(t, "toolchain missing", checkDockerfile(broken("pypy3", ""), ign, cat), "pypy3")
	expectProblem(t, "go not copied", checkDockerfile(broken("COPY --from=build /out/go /usr/local/go", ""), ign, cat), "Go toolchain")
	expectProblem(t, "other command", checkDockerfile(broken(`CMD ["worker"]`, `CMD ["serve"]`), ign, cat), "docket worker")
	expectProblem(t, "no cgo", checkDockerfile(broken("CGO_ENABLED=1", "CGO_ENABLED=0"), ign, cat), "CGO_ENABLED=1")
	expectProblem(t, "health without selftest", checkDockerfile(broken("CMD docket selftest --once >/dev/null && ", "CMD "), ign, cat), "HEALTHCHECK")
}
