package verdict

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/overshoot"
	"github.com/docketjudge/docket/verdict/problem"
)

// Defaults where neither the job nor the package sets a limit: the Kattis
// format's (memory 2048 MiB, output 8 MiB) and a 1 s time limit.
const (
	DefaultTime     = time.Second
	DefaultMemoryMB = 2048
	DefaultOutputMB = 8
	// DefaultDiskMB bounds what a run may write to /box and /tmp
	// together, where neither the package nor the language says.
	DefaultDiskMB = 64
)

// Judge judges submissions in one sandbox slot, or with Lanes, runs a
// submission's tests on several at once.
type Judge struct {
	Slot *sandbox.Slot
	// Lanes are further slots, each running one of a submission's later
	// tests while the judging waits on an earlier one (lanes.go). Results
	// are still taken in the package's order, so verdicts, skips and
	// events are those of one test at a time; a test that turns out to be
	// skipped was run for nothing. Empty: one test at a time, on Slot.
	Lanes []*sandbox.Slot
	// Extra lends the copies of a Communication task's program their
	// slots, kept from one judging to the next; nil: each judging claims
	// its own and releases them when it ends. Whoever sets it releases it.
	Extra *ExtraSlots
	Langs *langs.Catalog
	// WorkDir holds each submission's build and run directories while it
	// is judged; default DefaultWorkDir().
	WorkDir string
	// CacheDir holds checkers and interactors compiled once per package
	// digest; default DefaultCacheDir().
	CacheDir string
	// WallOvershoot is how long past its time limit a run may take in wall
	// time, where the package's docket.wall_overshoot does not say; zero:
	// overshoot.Default (1s|10%).
	WallOvershoot overshoot.Overshoot
}

// The work and cache directories hold what docket runs: never under a
// directory others can write (the old $TMPDIR defaults), where another
// user could create them first and plant a checker. As root they are
// docket's own under /var (persistent, unlike the sandbox's /run/docket:
// a compiled checker outlives a reboot); otherwise in the user's cache
// directory. Both are created 0711 and checked by internal/safedir.
const (
	rootWorkDir  = "/var/lib/docket/work"
	rootCacheDir = "/var/cache/docket"
)

// DefaultWorkDir is the work directory when none is configured:
// /var/lib/docket/work as root, else docket-work in the user's cache
// directory ($XDG_CACHE_HOME or ~/.cache).
func DefaultWorkDir() string { return defaultDir(rootWorkDir, "docket-work", "docket-work") }

// DefaultCacheDir is the cache directory when none is configured:
// /var/cache/docket as root, else docket in the user's cache directory.
func DefaultCacheDir() string { return defaultDir(rootCacheDir, "docket", "docket-cache") }

func defaultDir(asRoot, name, tmpName string) string {
	if os.Geteuid() == 0 {
		return asRoot
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, name)
	}
	// No home: a per-user name under $TMPDIR; safedir refuses it if
	// another user made it first.
	return filepath.Join(os.TempDir(), fmt.Sprintf("%s-%d", tmpName, os.Geteuid()))
}

func (j *Judge) workDir() string {
	if j.WorkDir != "" {
		return j.WorkDir
	}
	return DefaultWorkDir()
}

func (j *Judge) cacheDir() string {
	if j.CacheDir != "" {
		return j.CacheDir
	}
	return DefaultCacheDir()
}

// Submission is what a contestant sent.
type Submission struct {
	ID       string
	Language string            // id or alias
	Files    map[string][]byte // plain file names
	// EntryPoint, when set, names what starts the program: the main
	// source file, or for find_main_class languages (Java, Kotlin) the
	// fully qualified main class. Unset: the rules of docs/languages.md.
	EntryPoint string
}

// Options adjust one judging.
type Options struct {
	TimeLimit time.Duration // overrides the package's
	MemoryMB  int
	OutputMB  int
	// RunAll runs every test of a pass-fail problem instead of stopping
	// at the first failure.
	RunAll   bool
	Observer Observer
	// Timing, when set, receives where the judging's wall time went.
	Timing *Timing
}

// Timing splits a judging's wall time: inside sandbox runs (compiles,
// tests, checkers, interactors: each Cmd.Run from start to cleanup) and
// everything else (comparison, bookkeeping, files).
type Timing struct {
	Total   time.Duration
	Sandbox time.Duration
	Runs    int
}

// Observer hears about progress while a submission is judged.
type Observer interface {
	Compiled(CompileResult)
	Test(index, total int, r TestResult)
}

// GroupObserver is an Observer that also hears of each test group as it
// finishes: the same entry, in the same order, as the result's groups.
// Optional, so that an Observer written before groups were reported
// still is one.
type GroupObserver interface {
	Observer
	Group(GroupResult)
}

// ValidFileName is the rule for a submission's file names
// (langs.ValidFileName); its errors wrap langs.ErrFileName.
func ValidFileName(n string) error { return langs.ValidFileName(n) }

// Judge judges sub against p. It always returns a result; failures of
// docket or of the package are SE with an error, never blamed on the
// submission. A judging whose ctx ends first is cut short (see
// JudgeOrAbandon) and its result is SE, saying so.
func (j *Judge) Judge(ctx context.Context, p *problem.Problem, sub Submission, opt Options) *Result {
	res, err := j.JudgeOrAbandon(ctx, p, sub, opt)
	if err != nil {
		return failed(emptyResult(p, sub), SE, err.Error())
	}
	return res
}

// emptyResult is a submission's result before anything is judged. Its
// max_score is the problem's whatever happens next (a CE, an SE): every
// result says what is known (docs/protocol.md, "Result").
func emptyResult(p *problem.Problem, sub Submission) *Result {
	return &Result{V: protocol.Version, SubmissionID: sub.ID, Problem: p.ID, Digest: p.Digest, MaxScore: MaxScore(p),
		Tests: []TestResult{}, Groups: []GroupResult{}}
}

// judgeSubmission is Judge without the check for abandonment.
func (j *Judge) judgeSubmission(ctx context.Context, p *problem.Problem, sub Submission, opt Options) *Result {
	if !TestsBuilt(p) {
		return failed(emptyResult(p, sub), SE, "the package's tests are not built: its generated tests and missing answers are built by docket problem push, or by docket run and docket problem check on first use (Judge.BuildTests)")
	}
	if p.TakesOutputs() {
		return j.judgeWithOutputs(ctx, p, sub, opt)
	}
	if sub.Language == "" && OutputFilesAlone(sortedKeys(sub.Files)) {
		// The worker lets such a job through without a language: only
		// the problem knows it takes a program.
		return failed(emptyResult(p, sub), CE, "this problem takes a program, not output files alone (only a CMS OutputOnly or BatchAndOutput task takes output_<codename>.txt files)")
	}
	return j.judgeProgram(ctx, p, sub, opt, emptyResult(p, sub), nil)
}

// judgeProgram judges a submission that holds a program, in its
// language, with outs, the submitted output files of a task that takes
// them.
func (j *Judge) judgeProgram(ctx context.Context, p *problem.Problem, sub Submission, opt Options, res *Result, outs map[string][]byte) *Result {
	lang, err := j.Langs.Lookup(sub.Language)
	if err != nil {
		return failed(res, SE, err.Error())
	}
	res.Language = lang.ID
	// The limits are known once the language is: the result says them.
	(&judging{j: j, p: p, lang: lang, opt: opt, res: res}).limits()
	if _, err := lang.ToolPath(); err != nil {
		return failed(res, SE, fmt.Sprintf("language %s is unavailable on this worker: %v", lang.ID, err))
	}
	if len(sub.Files) == 0 {
		return failed(res, CE, "the submission has no files")
	}
	if err := validNames(sub.Files); err != nil {
		// The contestant chose the names: a refused one is their
		// submission's fault, CE, with the reason in the compile log.
		// Nothing was written or compiled.
		return failed(res, CE, err.Error())
	}
	if sub.EntryPoint != "" {
		if err := langs.ValidEntryPoint(sub.EntryPoint); err != nil {
			return failed(res, CE, err.Error()) // the contestant's choice, like the names
		}
	}
	return j.judgeFiles(ctx, p, lang, sub, opt, res, outs)
}

// judgeFiles judges a submission whose language and file names were
// checked, in a fresh workspace under the work directory; outs are its
// output files (a task's that takes them), and lang nil when it has
// nothing else.
func (j *Judge) judgeFiles(ctx context.Context, p *problem.Problem, lang *langs.Language, sub Submission, opt Options, res *Result, outs map[string][]byte) *Result {
	work := j.workDir()
	if err := safedir.Ensure(work, 0o711); err != nil {
		return failed(res, SE, "work directory: "+err.Error())
	}
	ws, err := os.MkdirTemp(work, "sub-")
	if err != nil {
		return failed(res, SE, "work directory: "+err.Error())
	}
	defer os.RemoveAll(ws)
	os.Chmod(ws, 0o711)
	r := &judging{j: j, p: p, lang: lang, ws: ws, opt: opt, res: res, entry: sub.EntryPoint, ctx: ctx,
		slot: j.Slot, outputs: newTestOutputs(filepath.Join(ws, "output")), stats: &runStats{}, extra: j.Extra, submitted: outs}
	defer r.outputs.close() // before the workspace's removal
	if r.extra == nil {
		r.extra = &ExtraSlots{}
		defer r.extra.Release()
	}
	r.testFn = r.test
	r.limits()
	start := time.Now()
	r.judge(ctx, sub)
	if opt.Timing != nil {
		opt.Timing.Total += time.Since(start)
		opt.Timing.Sandbox += time.Duration(r.stats.wall.Load())
		opt.Timing.Runs += int(r.stats.runs.Load())
	}
	return res
}

// validNames checks every file name, in sorted order so that the error
// names the same file each time.
func validNames(files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ValidFileName(n); err != nil {
			return err
		}
	}
	return nil
}

// failed ends r with verdict v and error msg (a CE also in the compile log).
func failed(r *Result, v Verdict, msg string) *Result {
	r.Verdict, r.Error = v, msg
	if v == CE {
		r.Compile = CompileResult{OK: false, Log: msg}
	}
	return r
}

// judging is one submission's judging in progress (not a sandbox run: it makes many).
type judging struct {
	j     *Judge
	p     *problem.Problem
	lang  *langs.Language
	ws    string
	entry string // the submission's entry point, "" for none
	opt   Options
	res   *Result
	tl    time.Duration
	memMB int
	outMB int
	// diskMB bounds each test run's /box and /tmp together.
	diskMB int
	// built programs: the submission (one, or two for two-step programs),
	// the checker, the interactor and the custom grader
	prog, prog2 *built
	checker     *built
	interactor  *built
	grader      *built
	manager     *built // a Communication task's
	// graderFailed: the custom grader failed on a group (the result is SE)
	graderFailed bool
	// submitted are the submission's output files by name (a CMS
	// OutputOnly or BatchAndOutput task's); lang and prog are nil when
	// it has no program.
	submitted map[string][]byte
	// judgedKeys are the results of the tests judged so far that have a
	// Key, for the same test in another group.
	judgedKeys map[string]TestResult
	// ctx is the judging's: every sandbox run of it is killed when it
	// ends (a judging is one submission, as an http.Request is one request).
	ctx context.Context
	// slot runs this judging's sandbox runs: the Judge's Slot, or in a
	// lane's copy of the judging, the lane's (lanes.go).
	slot *sandbox.Slot
	// outputs are the files the batch tests checked by the default
	// comparison write: the slot's own (lanes.go).
	outputs *testOutputs
	stats   *runStats // shared by the judging and its lanes
	// extra lends a Communication test's copies their slots: the
	// Judge's, or the judging's own (shared with its lanes).
	extra   *ExtraSlots
	stopped bool // pass-fail: a test failed, the rest are skipped

	// wall is a test run's wall-clock limit: tl plus its overshoot.
	wall time.Duration
	// testFn judges one test: r.test, or a stand-in in the scoring tests.
	testFn func(context.Context, *problem.Test) TestResult
}

func (r *judging) limits() {
	lu := &r.res.Limits
	base, src := DefaultTime, "default"
	switch {
	case r.opt.TimeLimit > 0:
		base, src = r.opt.TimeLimit, "job"
	case r.p.Limits.Time > 0:
		base, src = r.p.Limits.Time, r.p.Limits.TimeSource
	}
	mult, reserve, langDisk := 1.0, 0, 0
	if l := r.lang; l != nil { // nil: output files alone, no program
		mult, reserve, langDisk = l.TimeMultiplier, l.MemoryReserveMB, l.DiskMB
	}
	if mult <= 0 {
		mult = 1
	}
	r.tl = time.Duration(float64(base) * mult)
	over := r.p.Limits.WallOvershoot.Or(r.j.WallOvershoot).Or(overshoot.Default)
	r.wall = over.Wall(r.tl)
	r.memMB = firstPositive(r.opt.MemoryMB, r.p.Limits.MemoryMB, DefaultMemoryMB)
	r.outMB = firstPositive(r.opt.OutputMB, r.p.Limits.OutputMB, DefaultOutputMB)
	// The package knows what its tests need; at least the output limit,
	// so that a file as large as the allowed output can be written.
	r.diskMB = max(firstPositive(r.p.Limits.DiskMB, langDisk, DefaultDiskMB), r.outMB)
	*lu = LimitsUsed{TimeMs: r.tl.Milliseconds(), BaseTimeMs: base.Milliseconds(), TimeSource: src,
		TimeMultiplier: mult, WallMs: r.wall.Milliseconds(), WallOvershoot: over.String(),
		MemoryMB: r.memMB, MemoryReserveMB: reserve, OutputMB: r.outMB, DiskMB: r.diskMB}
}

func firstPositive(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

func (r *judging) judge(ctx context.Context, sub Submission) {
	res := r.res
	// The problem's own programs first: a checker that does not compile is
	// the package's fault (SE) and must not cost the contestant a CE.
	if err := r.buildOwn(); err != nil {
		failed(res, SE, err.Error())
		return
	}
	if msg := r.twoProgramsRefusal(sub.Files); msg != "" {
		failed(res, CE, msg)
		return
	}
	start := time.Now()
	cr, err := r.compile(sub.Files)
	cr.TimeMs = time.Since(start).Milliseconds()
	res.Compile = cr
	if err != nil {
		failed(res, SE, err.Error())
		return
	}
	if r.opt.Observer != nil && ctx.Err() == nil {
		r.opt.Observer.Compiled(cr)
	}
	if !cr.OK {
		res.Verdict = CE
		return
	}
	r.judgeTests(ctx)
}

// buildOwn builds the problem's checker, interactor, custom grader and
// manager.
func (r *judging) buildOwn() error {
	var err error
	if r.p.Checker != nil {
		if r.checker, err = r.buildTrusted(r.p.Checker, "checker"); err != nil {
			return err
		}
	}
	if r.p.Interactor != nil {
		if r.interactor, err = r.buildTrusted(r.p.Interactor, "interactor"); err != nil {
			return err
		}
	}
	if r.p.Grader != nil {
		if r.grader, err = r.buildTrusted(r.p.Grader, "grader"); err != nil {
			return err
		}
	}
	if c := r.p.Communication; c != nil {
		if r.manager, err = r.buildTrusted(c.Manager, "manager"); err != nil {
			return err
		}
	}
	return nil
}

// twoProgramsRefusal says why a two-program problem's submission is no
// pair of programs; "" when it is one, or the problem is another kind.
func (r *judging) twoProgramsRefusal(files map[string][]byte) string {
	if r.p.TwoStep == nil || !r.p.TwoStep.Programs {
		return ""
	}
	first, second := splitTwoPrograms(files)
	if len(first) == 0 || len(second) == 0 {
		return "a two-program submission needs files named first.* and second.*"
	}
	if r.entry != "" {
		return "an entry point names one program's start; a two-program submission has two, each found by its language's rules: leave it unset"
	}
	return ""
}

// compile builds the submission's program (two, for a two-program
// problem); a submission of output files alone has none to build.
func (r *judging) compile(files map[string][]byte) (cr CompileResult, err error) {
	switch {
	case r.lang == nil:
		return CompileResult{OK: true, Log: noCompilation}, nil
	case r.p.TwoStep != nil && r.p.TwoStep.Programs:
		first, second := splitTwoPrograms(files)
		r.prog, cr, err = r.buildWithIncludes(first, "build1")
		if err == nil && cr.OK {
			var cr2 CompileResult
			r.prog2, cr2, err = r.buildWithIncludes(second, "build2")
			cr.OK = cr2.OK
			cr.Log = strings.TrimSpace(cr.Log + "\n" + cr2.Log)
		}
		return cr, err
	}
	r.prog, cr, err = r.buildWithIncludes(files, "build")
	return cr, err
}

// judgeTests runs every test through the group tree and fills in the
// verdict, score and maxima.
func (r *judging) judgeTests(ctx context.Context) {
	if l := r.startLanes(); l != nil {
		defer l.close()
	}
	res := r.res
	total := len(r.p.Tests)
	index := 0
	score, max, rootV := r.group(ctx, r.p.Root, &index, total)
	res.Score, res.MaxScore = round(score), round(max)
	if r.p.Kind == problem.PassFail {
		res.MaxScore = 1
		res.Score = 0
	}
	v, decided := overallVerdict(r.p.Kind, res.Tests, res.Score)
	switch {
	case r.graderFailed:
		v = SE // the package's grader failed: res.Error says how
	case r.p.Grader != nil && r.p.Kind == problem.PassFail && rootV != SK:
		v = rootV // a custom grader may accept what a test rejected
	}
	res.Verdict = v
	if v == SE && res.Error == "" {
		res.Error = "test " + decided.Name + ": " + decided.Feedback
		res.ErrorTest = decided.Name
	}
	if r.p.Kind == problem.PassFail && res.Verdict == AC {
		res.Score = 1
	}
	for _, t := range res.Tests {
		if t.TimeMs > res.TimeMs {
			res.TimeMs = t.TimeMs
		}
		if t.MemoryKB > res.MemoryKB {
			res.MemoryKB = t.MemoryKB
		}
	}
}

func splitTwoPrograms(files map[string][]byte) (first, second map[string][]byte) {
	first, second = map[string][]byte{}, map[string][]byte{}
	for n, b := range files {
		switch {
		case strings.HasPrefix(n, "first."):
			first[n] = b
		case strings.HasPrefix(n, "second."):
			second[n] = b
		default: // shared files (headers) go to both
			first[n], second[n] = b, b
		}
	}
	return
}

// group judges a group's tests and subgroups in order and aggregates
// their scores per the group's grader flags.
func (r *judging) group(ctx context.Context, g *problem.Group, index *int, total int) (score, max float64, v Verdict) {
	tally := &groupTally{v: AC}
	var fracs []float64 // each test's outcome, for restrictedFeedback
	for _, t := range g.Tests {
		if ctx.Err() != nil {
			return 0, 0, SK // abandoned: nothing more is run or told
		}
		*index++
		tr, ok := r.groupTest(ctx, g, t, tally.rejected)
		if !ok {
			return 0, 0, SK // its run was killed: the result means nothing
		}
		fracs = append(fracs, fraction(tr))
		tally.addTest(g, t, tr, r.scoreTest(g, t, &tr))
		if tr.Verdict != AC && tr.Verdict != SK && r.p.Kind == problem.PassFail && !r.opt.RunAll {
			r.stopped = true
		}
		r.res.Tests = append(r.res.Tests, tr)
		if r.opt.Observer != nil {
			r.opt.Observer.Test(*index, total, tr)
		}
	}
	if r.restricted(g) {
		restrictedFeedback(g, r.res.Tests[len(r.res.Tests)-len(g.Tests):], fracs, r.p.CMSFeedbackLevel)
	}
	for _, c := range g.Groups {
		s, m, cv := r.group(ctx, c, index, total)
		if ctx.Err() != nil {
			return 0, 0, SK // abandoned within c: this group is not over either
		}
		if r.p.Kind == problem.Scoring && c.Name == "sample" {
			s, m = 0, 0 // samples are shown, not scored
		}
		tally.addGroup(s, m, cv)
	}
	return r.closeGroup(g, tally)
}

// groupTally is what a group's tests and subgroups add up to so far.
type groupTally struct {
	scores, maxes []float64
	v             Verdict
	rejected      bool // a test failed: the rest may be skipped (on_reject)
	judged        bool // something in the group was run
	// results are the judged children's verdicts and scores, in order,
	// as a custom grader reads them ("AC 1"); perfect every child's, all
	// accepted at their maximum (what the grader makes the group's
	// maximum of).
	results, perfect []string
}

// groupTest judges one test of group g, or skips it: after a failure of
// a pass-fail problem (unless RunAll), or of g when it breaks on reject.
// False when the judging was abandoned during the test.
func (r *judging) groupTest(ctx context.Context, g *problem.Group, t *problem.Test, rejected bool) (TestResult, bool) {
	var tr TestResult
	breakGroup := rejected && g.Config.OnReject != "continue" && !(r.p.Kind == problem.PassFail && r.opt.RunAll)
	prev, judged := r.judgedKeys[t.Key]
	switch {
	case r.stopped || breakGroup:
		tr = TestResult{Name: t.Name, Group: g.Name, Verdict: SK, VerdictSource: SourceJudge}
	case judged && t.Key != "":
		tr = prev // the same test, judged in another group
		tr.Name, tr.Group = t.Name, g.Name
	default:
		if tr = r.testFn(ctx, t); ctx.Err() != nil {
			return tr, false
		}
		if t.Key != "" {
			if r.judgedKeys == nil {
				r.judgedKeys = map[string]TestResult{}
			}
			r.judgedKeys[t.Key] = tr
		}
	}
	// Here, where every test result passes, not in each kind of test:
	// a test built anywhere else (two-step, interactive) cannot miss it.
	tr.Sample = g.Sample() || t.Public && !r.restricted(g)
	if th := g.Config.Threshold; th != nil {
		// Per group: a test in two subtasks is judged once and may pass
		// one's threshold and not the other's.
		tr = thresholded(tr, *th)
	}
	return tr, true
}

// restricted reports whether g is a subtask of a CMS or TPS task whose
// feedback_level restricts what a contestant sees of its public tests
// (restrictedFeedback). Which ones are shown depends on every test of
// the subtask, so a public test's event as it is judged hides its
// details, and the result shows them.
func (r *judging) restricted(g *problem.Group) bool {
	l := r.p.CMSFeedbackLevel
	return (l == "restricted" || l == "oi_restricted") && (g.Config.HasFlag("min") || g.Config.HasFlag("mul"))
}

// fraction is the share of its points a judged test earns, before
// scoreTest: an accepted test's Score, else 0.
func fraction(tr TestResult) float64 {
	if tr.Verdict != AC {
		return 0
	}
	return tr.Score
}

// restrictedFeedback marks which public tests of subtask g a contestant
// sees the details of, as CMS's restricted feedback levels show them
// (ScoreTypeGroup): every one when the subtask earns all its points;
// else, with level restricted, those up to the first public test with
// the lowest outcome, and with oi_restricted that one only. trs are g's
// results and fracs their outcomes, in order.
func restrictedFeedback(g *problem.Group, trs []TestResult, fracs []float64, level string) {
	lowest, full := -1, true
	for i, t := range g.Tests {
		full = full && fracs[i] >= 1
		if t.Public && (lowest < 0 || fracs[i] < fracs[lowest]) {
			lowest = i
		}
	}
	for i, t := range g.Tests {
		switch {
		case !t.Public:
		case full:
			trs[i].Sample = true
		case level == "oi_restricted":
			trs[i].Sample = i == lowest
		default:
			trs[i].Sample = i <= lowest
		}
	}
}

// thresholded applies a GroupThreshold subtask's rule to tr, whose
// Score, when it is accepted, is the raw outcome (the comparator's, or
// 1 from white-diff): AC, worth the full points, when it is in
// (0, th]; WA otherwise. The feedback keeps the comparator's text, or
// CMS's public outcome ("Correct", "Not correct"), and tells the raw
// outcome and the threshold.
func thresholded(tr TestResult, th float64) TestResult {
	if tr.Verdict != AC {
		return tr // a failed run: CMS's outcome 0, which never passes
	}
	raw, word := tr.Score, "Correct"
	tr.Score = 1
	if !(raw > 0 && raw <= th) {
		tr.Verdict, tr.Score, word = WA, 0, "Not correct"
	}
	detail := fmt.Sprintf("outcome %g, threshold %g", raw, th)
	if math.IsInf(th, 1) {
		detail = fmt.Sprintf("outcome %g", raw) // a test in no subtask
	}
	tr.Feedback = truncate(fmt.Sprintf("%s (%s)", firstNonEmpty(tr.Feedback, word), detail), feedbackCap)
	return tr
}

// scoreTest sets tr's score (a scoring problem's points, else 1 for AC
// and 0 otherwise) and returns what it adds to its group's score.
func (r *judging) scoreTest(g *problem.Group, t *problem.Test, tr *TestResult) float64 {
	accepted := tr.Verdict == AC
	s := g.Config.RejectScore
	if accepted {
		s = t.Worth(g) * tr.Score // tr.Score: fraction from a partial checker, else 1
	}
	if r.p.Kind == problem.Scoring {
		tr.Score = round(s)
	} else {
		tr.Score = 0
		if accepted {
			tr.Score = 1
		}
	}
	return s
}

// addTest counts a scored test: the group's verdict is its first
// failure's, or with worst_error its most severe.
func (tl *groupTally) addTest(g *problem.Group, t *problem.Test, tr TestResult, s float64) {
	tl.judged = tl.judged || tr.Verdict != SK
	tl.scores = append(tl.scores, s)
	tl.maxes = append(tl.maxes, t.Worth(g))
	tl.addResult(tr.Verdict, s, t.Worth(g))
	if tr.Verdict == AC || tr.Verdict == SK {
		return
	}
	tl.rejected = true
	if severity(tr.Verdict) > severity(tl.v) || tl.v == AC {
		if tl.v == AC || g.Config.HasFlag("worst_error") {
			tl.v = tr.Verdict
		}
	}
}

// addGroup counts a finished subgroup: its score, maximum and verdict
// (the first that is not AC is the group's).
func (tl *groupTally) addGroup(s, m float64, v Verdict) {
	tl.judged = tl.judged || v != SK
	tl.scores = append(tl.scores, s)
	tl.maxes = append(tl.maxes, m)
	tl.addResult(v, s, m)
	if v != AC && tl.v == AC {
		tl.v = v
	}
}

// closeGroup aggregates a judged group per its grader flags and records
// it (a named group) in the result.
func (r *judging) closeGroup(g *problem.Group, tl *groupTally) (score, max float64, v Verdict) {
	score, max, v = aggregate(g, tl.scores), aggregate(g, tl.maxes), tl.v
	if g.Config.HasFlag("accept_if_any_accepted") && v != AC {
		for _, tr := range r.res.Tests[len(r.res.Tests)-len(g.Tests):] {
			if tr.Verdict == AC {
				v = AC // the group's verdict: one accepted test suffices
				break
			}
		}
	}
	if g.Config.Grading == problem.GradingCustom && tl.judged {
		s, m, cv := r.customGrade(g, tl)
		if v = cv; r.p.Kind == problem.Scoring {
			score, max = s, m // a pass-fail problem's grader decides the verdict only, as in problemtools
		}
	}
	score, max = bounded(g, score, max)
	if r.unmetRequirement(g) {
		score = 0 // a group it depends on was not fully passed
	}
	if !tl.judged && (len(g.Tests) > 0 || len(g.Groups) > 0) {
		v = SK // nothing in the group was run
	}
	if g.Name != "" {
		r.groupDone(GroupResult{Name: g.Name, Verdict: v, Score: round(score), MaxScore: round(max)})
	}
	return score, max, v
}

// unmetRequirement reports whether a group g requires (judged before
// it) was not fully passed: accepted, every point earned.
func (r *judging) unmetRequirement(g *problem.Group) bool {
	for _, name := range g.Config.Requires {
		met := false
		for _, gr := range r.res.Groups {
			if gr.Name == name {
				met = gr.Verdict == AC && gr.Score >= gr.MaxScore
			}
		}
		if !met {
			return true
		}
	}
	return false
}

// groupDone records a finished group in the result and tells the
// observer, so that a backend sees a subtask's score as soon as it is
// known rather than only in the final result.
func (r *judging) groupDone(gr GroupResult) {
	r.res.Groups = append(r.res.Groups, gr)
	if o, ok := r.opt.Observer.(GroupObserver); ok {
		o.Group(gr)
	}
}

// aggregate combines a group's per-test and per-subgroup scores (or
// maxima) per its grader flags: the minimum with "min", the product of
// the fractions with "mul" (CMS's GroupMul), else the sum.
func aggregate(g *problem.Group, xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	if g.Config.HasFlag("mul") {
		// CMS's GroupMul (a CMS task's subtask, never a package's flag):
		// its points times the product of its tests' outcomes, each test
		// worth the points.
		points, prod := g.Config.AcceptScore, 1.0
		if points <= 0 {
			return 0
		}
		for _, x := range xs {
			prod *= x / points
		}
		return points * prod
	}
	if g.Config.HasFlag("min") {
		m := xs[0]
		for _, x := range xs[1:] {
			if x < m {
				m = x
			}
		}
		return m
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum
}

// bounded applies a group's range and max_score to its score and maximum.
func bounded(g *problem.Group, score, max float64) (float64, float64) {
	if rg := g.Config.Range; rg != nil {
		score = clamp(score, rg[0], rg[1])
		max = clamp(max, rg[0], rg[1])
	}
	if g.Config.MaxScore != nil {
		if max > 0 {
			score = score / max * *g.Config.MaxScore
		}
		max = *g.Config.MaxScore
	}
	return score, max
}

func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// round keeps six decimals. Beyond 1e9 a float has no such decimals, and
// x*1e6 could overflow int64 (score.txt may say 1e300): x is kept.
func round(x float64) float64 {
	if !(math.Abs(x) < 1e9) {
		return x
	}
	return float64(int64(x*1e6+0.5)) / 1e6
}

// Prepare compiles the problem's checker, interactor, custom grader and manager
// (cached by digest), so that a package whose own programs do not compile is
// reported before any submission is judged.
func (j *Judge) Prepare(p *problem.Problem) error {
	l, err := j.Langs.Lookup("cpp")
	if err != nil {
		return err
	}
	r := &judging{j: j, p: p, lang: l, res: &Result{}, ctx: context.Background(), slot: j.Slot, stats: &runStats{}}
	if p.Checker != nil {
		if _, err := r.buildTrusted(p.Checker, "checker"); err != nil {
			return err
		}
	}
	if p.Interactor != nil {
		if _, err := r.buildTrusted(p.Interactor, "interactor"); err != nil {
			return err
		}
	}
	if p.Grader != nil {
		if _, err := r.buildTrusted(p.Grader, "grader"); err != nil {
			return err
		}
	}
	if c := p.Communication; c != nil {
		if _, err := r.buildTrusted(c.Manager, "manager"); err != nil {
			return err
		}
	}
	return nil
}

// command is a sandboxed process of this judging, killed when it is
// abandoned.
func (r *judging) command() *sandbox.Cmd { return r.slot.CommandContext(r.ctx, "") }

// runStats counts a judging's sandbox runs, from every lane at once.
type runStats struct {
	wall atomic.Int64 // nanoseconds inside Cmd.Run / RunPair
	runs atomic.Int64
	seq  atomic.Int64 // numbers the tests' directories
}

// timed runs a sandboxed step and accounts for its wall time.
func (r *judging) timed(f func()) {
	t := time.Now()
	f()
	r.stats.wall.Add(int64(time.Since(t)))
	r.stats.runs.Add(1)
}
