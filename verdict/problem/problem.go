// Package problem loads problem packages in the Kattis / ICPC format
// (problemarchive.org): the legacy layout, the 2023-07 draft, and the
// 2025-09 names where they differ (test_group.yaml), plus docket's own
// extension under the `docket:` key of problem.yaml (testlib checkers and
// interactors, two-step problems, the contestant's feedback policy). A package is validated on load, with
// errors that name the file, and has a content digest.
//
// It must not import verdict, the sandbox or the worker: it reads packages
// and runs nothing, and what runs programs imports it. Of docket's own it
// imports protocol, langs, verdict/overshoot and internal/yamlkeys.
package problem

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docketjudge/docket/verdict/overshoot"
)

// Kind of problem.
type Kind string

// The kinds, as problem.yaml's type spells them.
const (
	PassFail Kind = "pass-fail" // a verdict only
	Scoring  Kind = "scoring"   // a verdict and a score
)

// Protocol of a checker or interactor.
type Protocol string

// The protocols docket speaks with a package's programs.
const (
	Kattis  Protocol = "kattis"  // validator input answer feedback_dir [flags] < output; 42 accept, 43 reject
	Testlib Protocol = "testlib" // checker input output answer; 0 AC, 1 WA, 2 PE, 3 fail, 7 points
	CMS     Protocol = "cms"     // comparator input answer output; outcome in [0, 1] on stdout, message on stderr
)

// Program is the problem author's code: a checker, validator or interactor.
type Program struct {
	Protocol Protocol
	Dir      string   // package directory holding its sources
	Sources  []string // file names in Dir, the main one first
	// Executable: Sources[0] is the program itself, compiled, run as it
	// is (a CMS task's check/checker given without its source).
	Executable bool
	// Language is the catalog id of its language when the package names
	// it (a Polygon source type); "" for the language of its extension.
	Language string
	// Extra are further files put beside the sources in the box, from
	// anywhere in the package (a Polygon package's files/testlib.h).
	Extra []Include
}

// TwoStep describes a two-step problem (docket extension).
type TwoStep struct {
	// Programs: the submission holds two programs (first.*, second.*);
	// otherwise one program runs twice with FirstArgs then SecondArgs.
	Programs   bool
	FirstArgs  []string
	SecondArgs []string
	// HandoffFile: the file the first run writes in its working directory
	// that becomes the second run's stdin; empty: the first run's stdout.
	HandoffFile string
}

// Limits from the package. Zero means "not set".
type Limits struct {
	Time       time.Duration // limits.time_limit, docket.time_limit or .timelimit
	TimeSource string        // where Time came from
	// TimeMultipliers compute a Kattis package's time limit from its
	// accepted submissions when it states none (docket problem check);
	// zero for the formats that do not (CMS, TPS).
	TimeMultipliers TimeMultipliers
	MemoryMB        int
	OutputMB        int
	ValidationMB    int
	DiskMB          int // docket.disk_mb: a test run's /box and /tmp together
	// ValidationPasses: a multi-pass problem's most passes per test
	// (limits.validation_passes, default 2); 0 for other problems.
	ValidationPasses int
	// WallOvershoot is docket.wall_overshoot: a run's wall-clock limit is
	// its time limit plus this. Zero: the worker's.
	WallOvershoot overshoot.Overshoot
}

// Problem is a loaded, validated package.
type Problem struct {
	ID          string
	Dir         string
	Name        string
	Kind        Kind
	Interactive bool
	// MultiPass: the Kattis output validator may write nextpass.in into
	// its feedback directory, and the submission then runs again on it
	// (type: multi-pass, validation: custom [interactive] multi-pass).
	MultiPass bool
	// ValidatorScores: the legacy validation line says score (custom
	// score): the output validator writes each test's score.txt. The
	// problem is scoring only if its type says so.
	ValidatorScores bool
	TwoStep         *TwoStep
	ValidatorFlags  []string // for the default comparison or a custom validator
	Checker         *Program // nil: the default comparison
	Interactor      *Program // set for interactive problems
	// Grader is the legacy format's custom grader (graders/), for the
	// groups with grading: custom.
	Grader *Program
	// Communication is set for a CMS Communication task: the manager
	// and the processes of the submission that talk to it.
	Communication *Communication
	Limits        Limits
	Root          *Group  // data/
	Tests         []*Test // every test, in judging order (sample first)
	Digest        string  // sha256 of the package's content (submissions excluded)
	// Feedback is docket.feedback: which tests' details a contestant
	// sees; "" when the package leaves it to the worker's default.
	Feedback FeedbackPolicy
	// CMSName is a CMS task's short name (task.yaml name): a submission's
	// source is named after it in the box (<name>.cpp), as CMS's
	// submission format names it, so that a grader includes or imports
	// it. "" for a Kattis package.
	CMSName string
	// InputFile and OutputFile name the files in its working directory
	// from which the program reads its input and into which it writes
	// its output (a CMS task's infile and outfile); "" for stdin and
	// stdout.
	InputFile, OutputFile string
	// CMSRawOutcomes: the task's comparator reports raw outcomes (any
	// finite number, an error measure), which its groups' Threshold
	// turns into pass or fail: CMS's GroupThreshold.
	CMSRawOutcomes bool
	// CMSFeedbackLevel is a CMS or TPS task's feedback_level: "full",
	// "restricted" or "oi_restricted" (the contestant sees a failed
	// subtask's public tests up to its first lowest-scored one, or that
	// one only); "" for a Kattis package.
	CMSFeedbackLevel string
	// OutputOnly is a CMS OutputOnly task: the submission is output
	// files alone (output_<codename>.txt), no program; every test is
	// judged from its file. BatchAndOutput is a CMS BatchAndOutput task:
	// a program, and output files for the tests whose Output says so.
	OutputOnly, BatchAndOutput bool
	// Includes are include/<language>/'s files by directory name (a
	// language id or alias, or IncludeDefault): added to every
	// submission in that language (verdict resolves the names).
	Includes map[string][]Include
	// Generation is set when some tests must be built before judging
	// (a Polygon package's generated tests and missing answers): their
	// In and Ans are "" until verdict builds them.
	Generation *Generation
	// Warnings are what whoever pushes the package should know: links
	// out of it in statements (left out), and its trusted programs.
	Warnings []Warning
}

// Group is a directory of tests under data/.
type Group struct {
	Name   string // relative to data/: "sample", "secret", "secret/group1"
	Config GroupConfig
	Tests  []*Test
	Groups []*Group
}

// GroupConfig is testdata.yaml (legacy / 2023-07) or test_group.yaml
// (2025-09), after inheritance from the parent group.
type GroupConfig struct {
	OnReject       string   // "break" (default) or "continue"
	GraderFlags    []string // min, sum (default), first_error, worst_error, ignore_sample, accept_if_any_accepted
	AcceptScore    float64  // per test, default 1
	RejectScore    float64  // per test, default 0
	Range          *[2]float64
	ValidatorFlags []string // output_validator_flags
	MaxScore       *float64 // 2025-09 max_score
	// Threshold is a CMS GroupThreshold subtask's: a test passes (AC,
	// its full points) when the comparator's raw outcome is in (0,
	// Threshold], and fails (WA) otherwise. nil for every other group.
	Threshold *float64
	// Requires names the groups (by Name) that must be fully passed,
	// every point earned, for this group to score at all (a Polygon
	// group's dependencies); they are judged before it.
	Requires []string
	// Grading is "custom" when the group's verdict and score come from
	// the package's grader (Problem.Grader), given its children's
	// results; "" or "default" for docket's aggregation by GraderFlags.
	Grading string
}

// GradingCustom is a group graded by the package's custom grader.
const GradingCustom = "custom"

// Test is one input with its answer.
type Test struct {
	Name  string // "secret/group1/01"
	Group *Group
	In    string // path
	Ans   string // path ("" for an interactive test without .ans)
	// Key, when set, is the test's identity across groups: tests of the
	// same Key are one test in several groups (a CMS test in several
	// subtasks), judged once, its result counted in each.
	Key string
	// Public: the test's details are public, as a sample's are, though it
	// is not in a sample group and is scored as any other test (a CMS
	// public test case, every TPS test).
	Public bool
	// Output is how the test takes a submitted output file (a CMS
	// OutputOnly or BatchAndOutput task's), OutputFile that file's name
	// in the submission (output_<codename>.txt); OutputNone and "" for
	// a test that runs the program.
	Output     OutputRule
	OutputFile string
	// Points, when set, is what the test is worth in place of its
	// group's AcceptScore (a Polygon test's points).
	Points *float64
}

// Worth is what the test is worth in its group g when accepted: its
// Points, else the group's AcceptScore.
func (t *Test) Worth(g *Group) float64 {
	if t.Points != nil {
		return *t.Points
	}
	return g.Config.AcceptScore
}

// LoadError is an invalid package; Errors lists every problem found.
type LoadError struct {
	Dir    string
	Errors []string
	causes []error // the errors behind Errors that callers may match
}

// Unwrap lets errors.Is and errors.As see a refused link (ErrLink,
// *LinkError) or overshoot (overshoot.ErrSyntax).
func (e *LoadError) Unwrap() []error { return e.causes }

// Error names the package's directory and lists every problem found.
func (e *LoadError) Error() string {
	return fmt.Sprintf("problem package %s: %s", e.Dir, strings.Join(e.Errors, "; "))
}

// Load reads and validates the package in dir.
func Load(dir string) (*Problem, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	l := &loader{dir: abs}
	p := l.load()
	if len(l.errs) > 0 {
		return nil, &LoadError{Dir: dir, Errors: l.errs, causes: l.causes}
	}
	return p, nil
}

type loader struct {
	dir    string
	errs   []string
	causes []error
	links  map[string]string // link path relative to dir -> resolved file
	// warnings, for Problem.Warnings
	warnings []Warning
}

func (l *loader) errorf(f string, a ...any) { l.errs = append(l.errs, fmt.Sprintf(f, a...)) }

// fail records an error callers can match with errors.Is / errors.As.
func (l *loader) fail(err error) {
	l.errs = append(l.errs, err.Error())
	l.causes = append(l.causes, err)
}

func (l *loader) load() *Problem {
	p := &Problem{ID: filepath.Base(l.dir), Dir: l.dir, Kind: PassFail}
	if st, err := os.Stat(l.dir); err != nil || !st.IsDir() {
		l.errorf("not a directory")
		return p
	}
	// Links first: once every link is known to resolve inside the
	// package, the reads below cannot leave it.
	if l.links = l.checkLinks(); len(l.errs) > 0 {
		return p
	}
	switch {
	case isCMSTask(l.dir):
		l.loadCMS(p)
	case isTPSTask(l.dir):
		l.loadTPS(p)
	case isPolygon(l.dir):
		l.loadPolygon(p)
	default:
		l.loadKattis(p)
	}
	if len(l.errs) == 0 {
		d, err := digest(l.dir, l.links)
		if err != nil {
			l.errorf("digest: %v", err)
		}
		p.Digest = d
	}
	if w, ok := trustedWarning(p); ok {
		l.warn(w)
	}
	p.Warnings = l.warnings
	return p
}

// loadKattis reads a Kattis package: problem.yaml and the rest.
func (l *loader) loadKattis(p *Problem) {
	y := l.readYAML(p)
	l.applyYAML(p, y)
	if p.Limits.Time == 0 {
		l.readTimelimit(p)
	}
	l.loadValidators(p, y)
	l.checkMultiPass(p)
	l.loadData(p)
	l.loadGrader(p)
	l.loadIncludes(p)
}

// readTimelimit reads the legacy .timelimit file, if there is one.
func (l *loader) readTimelimit(p *Problem) {
	b, err := os.ReadFile(filepath.Join(l.dir, ".timelimit"))
	if err != nil {
		return
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	d, derr := seconds(secs)
	if err != nil || derr != nil {
		l.errorf(".timelimit: %q is not a positive number of seconds up to %v", strings.TrimSpace(string(b)), MaxTime.Seconds())
		return
	}
	p.Limits.Time = d
	p.Limits.TimeSource = ".timelimit"
}

// loadValidators finds the output validator (legacy output_validators/,
// 2023-07 output_validator/) or docket's testlib checker and interactor.
func (l *loader) loadValidators(p *Problem, y *yamlProblem) {
	if y.Docket.Checker != nil {
		p.Checker = l.program(y.Docket.Checker, "docket.checker")
	}
	if y.Docket.Interactor != nil {
		p.Interactor = l.program(y.Docket.Interactor, "docket.interactor")
		p.Interactive = true
	}
	v := strings.Fields(y.Validation)
	custom := len(v) > 0 && v[0] == "custom" || p.Interactive && p.Interactor == nil || p.MultiPass
	var found *Program
	for _, d := range []string{"output_validators", "output_validator"} {
		full := filepath.Join(l.dir, d)
		st, err := os.Stat(full)
		if err != nil || !st.IsDir() {
			continue
		}
		found = l.validatorDir(full, d)
		break
	}
	l.checkDefaultValidation(v, found)
	if found == nil {
		if custom && p.Checker == nil && p.Interactor == nil {
			l.errorf("problem.yaml asks for a custom validator (validation: %s) but there is no output_validators/ or output_validator/ directory", orDefault(y.Validation, "the type: interactive or multi-pass"))
		}
		return
	}
	if p.Interactive && p.Interactor == nil {
		p.Interactor = found
		return
	}
	if p.Checker == nil && (custom || found != nil) {
		p.Checker = found
	}
}

// checkDefaultValidation refuses an explicit validation: default beside
// an output validator, as problemtools does: the package says two things.
// Without the line (2023-07 has none) the validator is used.
func (l *loader) checkDefaultValidation(validation []string, found *Program) {
	if found == nil || len(validation) == 0 || validation[0] != "default" {
		return
	}
	rel, err := filepath.Rel(l.dir, found.Dir)
	if err != nil {
		rel = found.Dir
	}
	l.errorf("problem.yaml validation: default, but the package has an output validator in %s/: say validation: custom to use it, or remove it", rel)
}

// ErrMultiPass is a multi-pass problem docket cannot judge as written: a
// bad limits.validation_passes, no Kattis-protocol validator (only it
// can write nextpass.in), or a two-step problem.
var ErrMultiPass = errors.New("invalid multi-pass problem")

// checkMultiPass requires a multi-pass problem's validator or interactor
// to speak the Kattis protocol, whose feedback directory carries
// nextpass.in.
func (l *loader) checkMultiPass(p *Problem) {
	if !p.MultiPass {
		return
	}
	prog := p.Checker
	if p.Interactive {
		prog = p.Interactor
	}
	if prog != nil && prog.Protocol != Kattis {
		l.fail(fmt.Errorf("problem.yaml: %w: its validator must use the Kattis protocol (it writes nextpass.in into its feedback directory), not testlib", ErrMultiPass))
	}
}

func (l *loader) validatorDir(full, rel string) *Program {
	entries, err := os.ReadDir(full)
	if err != nil {
		l.errorf("%s: %v", rel, err)
		return nil
	}
	// Legacy: output_validators/<name>/sources, or sources directly.
	var dirs []string
	var files []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		} else if isSource(e.Name()) {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 && len(dirs) == 1 {
		return l.validatorDir(filepath.Join(full, dirs[0]), rel+"/"+dirs[0])
	}
	if len(files) == 0 {
		l.errorf("%s: no validator source (expected e.g. validate.cpp)", rel)
		return nil
	}
	sort.Strings(files)
	return &Program{Protocol: Kattis, Dir: full, Sources: mainFirst(files)}
}

func (l *loader) program(y *yamlProgram, key string) *Program {
	proto := Protocol(orDefault(y.Protocol, string(Testlib)))
	if proto != Testlib && proto != Kattis {
		l.errorf("problem.yaml %s.protocol: %q is not testlib or kattis", key, y.Protocol)
	}
	if y.Source == "" {
		l.errorf("problem.yaml %s.source is missing", key)
		return nil
	}
	src := filepath.Clean(y.Source)
	if filepath.IsAbs(src) || strings.HasPrefix(src, "..") {
		l.errorf("problem.yaml %s.source: %q must be a path inside the package", key, y.Source)
		return nil
	}
	full := filepath.Join(l.dir, src)
	// Every link on the way must stay in the package: one that leaves it
	// may be in a statement's directory, which checkLinks let through.
	if _, err := ResolveLink(l.dir, src); err != nil && !errors.Is(err, ErrLinkDangling) && !errors.Is(err, ErrLinkNotFile) {
		l.fail(fmt.Errorf("problem.yaml %s.source: %w", key, err))
		return nil
	}
	if st, err := os.Stat(full); err != nil || st.IsDir() {
		l.errorf("problem.yaml %s.source: %s does not exist", key, y.Source)
		return nil
	}
	return &Program{Protocol: proto, Dir: filepath.Dir(full), Sources: []string{filepath.Base(full)}}
}

func isSource(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".c", ".cpp", ".cc", ".cxx", ".py", ".java", ".kt", ".go", ".rs", ".js", ".h", ".hpp":
		return true
	}
	return false
}

// mainFirst puts a non-header file first.
func mainFirst(files []string) []string {
	sort.SliceStable(files, func(i, j int) bool {
		hi, hj := isHeader(files[i]), isHeader(files[j])
		return !hi && hj
	})
	return files
}

func isHeader(n string) bool {
	e := strings.ToLower(filepath.Ext(n))
	return e == ".h" || e == ".hpp"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// loadData walks data/ into groups and tests.
func (l *loader) loadData(p *Problem) {
	data := filepath.Join(l.dir, "data")
	if st, err := os.Stat(data); err != nil || !st.IsDir() {
		l.errorf("data/: missing (tests go in data/sample and data/secret)")
		return
	}
	base := GroupConfig{OnReject: "break", AcceptScore: 1, ValidatorFlags: p.ValidatorFlags}
	p.Root = l.group(p, data, "", base)
	var walk func(g *Group)
	walk = func(g *Group) {
		p.Tests = append(p.Tests, g.Tests...)
		for _, c := range g.Groups {
			walk(c)
		}
	}
	walk(p.Root)
	// Either of data/sample and data/secret may be missing: samples are
	// tests like any other (Kattis and DOMjudge judge them), so a package
	// of samples alone, or of secret tests alone, judges unchanged.
	if len(p.Tests) == 0 {
		l.errorf("data/: no tests (*.in files under data/sample or data/secret)")
	}
}

func (l *loader) group(p *Problem, dir, name string, parent GroupConfig) *Group {
	g := &Group{Name: name, Config: parent}
	g.Config.MaxScore = nil
	for _, f := range []string{"testdata.yaml", "test_group.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		if err := applyGroupYAML(&g.Config, b); err != nil {
			l.errorf("data/%s: %v", filepath.Join(name, f), err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		l.errorf("data/%s: %v", name, err)
		return g
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, e := range entries { // ReadDir sorts by name: Kattis' order
		n := e.Name()
		rel := filepath.Join(name, n)
		path := filepath.Join(dir, n)
		if e.Type()&os.ModeSymlink != 0 {
			// Checked by checkLinks: resolves to a regular file inside
			// the package; the test reads that file.
			lrel, _ := filepath.Rel(l.dir, path)
			full, ok := l.links[lrel]
			if !ok {
				l.errorf("data/%s: symbolic link not checked", rel)
				continue
			}
			path = full
		}
		if e.IsDir() {
			if name == "" && n != "sample" && n != "secret" {
				l.errorf("data/%s: only data/sample and data/secret may be at the top of data/", n)
				continue
			}
			g.Groups = append(g.Groups, l.group(p, filepath.Join(dir, n), rel, g.Config))
			continue
		}
		if !strings.HasSuffix(n, ".in") {
			continue
		}
		if name == "" {
			l.errorf("data/%s: tests go in data/sample/ or data/secret/", n)
			continue
		}
		stem := strings.TrimSuffix(n, ".in")
		t := &Test{Name: filepath.Join(name, stem), Group: g, In: path}
		if names[stem+".ans"] {
			t.Ans = filepath.Join(dir, stem+".ans")
			if full, ok := l.links[filepath.Join("data", name, stem+".ans")]; ok {
				t.Ans = full
			}
		} else if !p.Interactive {
			l.errorf("data/%s.in has no %s.ans", filepath.Join(name, stem), stem)
			continue
		}
		g.Tests = append(g.Tests, t)
	}
	return g
}

// digest hashes every file's path and content, submissions excluded (they
// are not part of what a worker needs to judge). A link counts as the file
// it resolves to (links), as in the pushed archive, so a package and its
// unpacked copy have the same digest.
func digest(dir string, links map[string]string) (string, error) {
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir+string(filepath.Separator), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && (rel == "submissions" || strings.HasPrefix(d.Name(), ".git")) {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() || links[rel] != "" {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	for _, rel := range paths {
		src := filepath.Join(dir, rel)
		if full := links[rel]; full != "" {
			src = full
		}
		f, err := os.Open(src)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\x00%d\x00", n)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
