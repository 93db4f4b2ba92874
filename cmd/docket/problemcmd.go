package main

import (
	"context"
	"encoding/json"
	"errors"

	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/docketjudge/docket/protocol"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/docketjudge/docket/verdict"
	"github.com/docketjudge/docket/verdict/problem"
)

func init() {
	register("problem", "problem packages: push DIR, list, check DIR (judge its own submissions/)", runProblem)
}

const problemUsage = `usage: docket problem <subcommand> [flags] [arguments]

Problem packages (docs/problems.md).

subcommands:
  check DIR|ZIP     judge every program under DIR/submissions/<expected>/ and report any that
                    misses its expected verdict; exit 1 if any did
  push DIR|ZIP...   validate packages and upload them to the store (bucket docket-problems on DOCKET_NATS_URL)
  list              the packages in the store

A package is a directory or a zip archive of one (docs/problems.md, "Zip archives").

Each subcommand takes --help (its flags and the DOCKET_* variables it reads).

example:
  docket problem check problems/aplusb && docket problem push problems/aplusb
`

func runProblem(args []string) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		w := stdout
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprint(w, problemUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	switch args[0] {
	case "check":
		return runProblemCheck(args[1:])
	case "push":
		return runProblemPush(args[1:])
	case "list":
		return runProblemList(args[1:])
	}
	fmt.Fprintf(stderr, "docket problem: unknown subcommand %q (check, push, list)\n", args[0])
	return exitUsage
}

func runProblemCheck(args []string) int {
	fs := newFlags("problem check", helpText{
		synopsis: "[-v] [--quiet] [--write-timelimit] DIR|ZIP",
		about: "Loads the package in DIR (or the zip archive ZIP, unpacked into a temporary directory), builds its checker and interactor, and judges every program under\n" +
			"DIR/submissions/<expected>/, where <expected> is one of accepted, wrong_answer, time_limit_exceeded,\n" +
			"run_time_error, memory_limit_exceeded, output_limit_exceeded, compile_error, presentation_error,\n" +
			"partially_accepted (a TPS task: DIR/solutions/<category>/, model_solution, correct, incorrect,\n" +
			"partially_correct, time_limit, runtime_error, memory_limit, protocol_violation).\n" +
			"A Kattis package that states no time limit gets the one problemtools computes: its accepted\n" +
			"submissions are measured with a 300 s limit, the slowest test times the package's time multiplier,\n" +
			"rounded up to its time resolution, is the limit the submissions are then judged with, and\n" +
			"time_limit_exceeded ones must still time out at that limit times the safety margin.\n" +
			"Each step is shown on stderr. Exit: 0 every program got its expected verdict,\n" +
			"1 one did not, or the package does not load or has no submissions/, 2 usage, 3 host error.\n" +
			"The package's warnings (its trusted programs, statements linked out of it) go to stderr (--quiet: not).",
		example: "docket problem check problems/aplusb",
	})
	verbose := fs.Bool("v", false, "print every test")
	quiet := quietFlag(fs)
	write := fs.Bool("write-timelimit", false, "when the package states no time limit and every program got its expected verdict, write the computed limit to DIR/.timelimit, which docket run and workers then use")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "docket problem check: want one problem directory (docket problem check --help)")
		return exitUsage
	}
	dir, done, code := openForCheck(fs.Arg(0), *write)
	if dir == "" {
		return code
	}
	defer done()
	p, subs, code := loadForCheck(dir)
	if p == nil {
		return code
	}
	printWarnings("docket problem check", p, *quiet)
	step("opening the sandbox")
	j, release, err := newJudge(0)
	if err != nil {
		fmt.Fprintln(stderr, "docket problem check:", err)
		return exitSystem
	}
	defer release()
	fmt.Fprintf(stdout, "%s (%s): %d tests, digest %s\n", p.ID, p.Name, len(p.Tests), p.Digest[:19])
	step("building the problem's own programs (checker, interactor, custom grader, manager), if any")
	if err := j.Prepare(p); err != nil {
		fmt.Fprintln(stdout, "  FAIL", err)
		return exitFailed
	}
	if _, err := buildTests(j, p, stdout); err != nil {
		fmt.Fprintln(stdout, "  FAIL", err)
		return exitFailed
	}
	derived, ok := deriveTimeLimit(j, p, subs, *verbose)
	if !ok {
		return exitFailed
	}
	if code := checkAll(j, p, subs, *verbose, derived); code != exitOK {
		return code
	}
	return finishTimelimit(dir, p, derived, *write)
}

// checkAll judges every submission and says how many missed; a
// time_limit_exceeded one, when the limit was computed, with the limit
// times the safety margin.
func checkAll(j *verdict.Judge, p *problem.Problem, subs []problem.ExampleSubmission, verbose bool, derived *verdict.DerivedLimit) int {
	step("judging %d submissions", len(subs))
	failed := 0
	for _, s := range subs {
		var tl time.Duration
		if want, _ := verdict.ExpectedVerdict(s.Expect); derived != nil && want == verdict.TLE {
			tl = derived.TLELimit
		}
		if _, ok := checkSubmission(j, p, s, verbose, tl); !ok {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d submissions missed their expected verdict\n", failed, len(subs))
		return exitFailed
	}
	fmt.Fprintf(stdout, "all %d submissions got their expected verdict\n", len(subs))
	return exitOK
}

// finishTimelimit writes .timelimit for --write-timelimit, or says why
// not.
func finishTimelimit(dir string, p *problem.Problem, derived *verdict.DerivedLimit, write bool) int {
	switch {
	case !write:
		if derived != nil {
			fmt.Fprintf(stderr, "docket problem check: the package states no time limit: docket run and workers judge it with the default %v (docket problem check --write-timelimit writes the computed %ss to .timelimit)\n",
				verdict.DefaultTime, problem.FormatSeconds(derived.Limit))
		}
	case derived == nil:
		fmt.Fprintf(stderr, "docket problem check: --write-timelimit: the package states its time limit (%s); nothing written\n", orNone(p.Limits.TimeSource))
	default:
		if err := writeTimelimit(dir, derived); err != nil {
			fmt.Fprintln(stderr, "docket problem check: --write-timelimit:", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "wrote %s: %s\n", filepath.Join(dir, ".timelimit"), problem.FormatSeconds(derived.Limit))
	}
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// step shows a long operation's progress on stderr.
func step(f string, a ...any) { fmt.Fprintf(stderr, "* "+f+"\n", a...) }

// openForCheck opens the package arg names (openPackage), saying where
// a zip archive was unpacked; "" means the check cannot go on, with code
// the exit code. --write-timelimit (write) writes into the package,
// which an archive's unpacked copy is not.
func openForCheck(arg string, write bool) (string, func(), int) {
	dir, done, err := openPackage(arg)
	if err != nil {
		printLoadError(stderr, "docket problem check", err)
		return "", nil, exitFailed
	}
	if dir != arg {
		step("unpacked the zip archive %s into %s", arg, dir)
		if write {
			done()
			fmt.Fprintf(stderr, "docket problem check: --write-timelimit writes .timelimit into the package, and %s is a zip archive: unzip it and check the directory\n", arg)
			return "", nil, exitUsage
		}
	}
	return dir, done, exitOK
}

// loadForCheck loads the package in dir and lists its submissions/; a nil
// problem means the check cannot go on, with code the exit code.
func loadForCheck(dir string) (*problem.Problem, []problem.ExampleSubmission, int) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "docket problem check: %s is not a directory\n", dir)
		return nil, nil, exitUsage
	}
	step("loading the package %s", dir)
	p, err := problem.Load(dir)
	if err != nil {
		printLoadError(stderr, "docket problem check", err)
		return nil, nil, exitFailed
	}
	subs, err := problem.ExampleSubmissions(dir)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		fmt.Fprintf(stderr, "docket problem check: %s has no submissions/ directory, so there is nothing to check: put programs under submissions/accepted/, submissions/wrong_answer/, ... (docs/problems.md)\n", dir)
		return nil, nil, exitFailed
	case err != nil:
		fmt.Fprintln(stderr, "docket problem check:", err)
		return nil, nil, exitFailed
	case len(subs) == 0:
		fmt.Fprintf(stderr, "docket problem check: %s/submissions/ holds no programs under an <expected>/ directory (accepted, wrong_answer, ...): nothing to check\n", dir)
		return nil, nil, exitFailed
	}
	return p, subs, exitOK
}

// checkSubmission judges one program of submissions/ and prints whether
// it got its expected verdict; false when it did not (or would not load).
// tl, when set, is the base time limit to judge it with.
func checkSubmission(j *verdict.Judge, p *problem.Problem, s problem.ExampleSubmission, verbose bool, tl time.Duration) (*verdict.Result, bool) {
	if _, known := verdict.ExpectedVerdict(s.Expect); !known {
		fmt.Fprintf(stdout, "  SKIP %-40s unknown expected-verdict directory %q\n", s.Rel, s.Expect)
		return nil, true
	}
	sub, err := verdict.ReadSubmission(j.Langs, s.Language, []string{s.Path})
	if err != nil {
		fmt.Fprintf(stdout, "  FAIL %-40s %v\n", s.Rel, err)
		return nil, false
	}
	start := time.Now()
	opt := verdict.Options{TimeLimit: tl}
	if verbose {
		opt.Observer = &liveDisplay{out: stdout}
	}
	res := j.Judge(judgeCtx(), p, sub, opt)
	ok := verdict.MeetsExpectation(res, p.Kind, s.Expect)
	mark := "ok  "
	detail := fmt.Sprintf("%-3s score %g/%g  %dms", res.Verdict, res.Score, res.MaxScore, res.TimeMs)
	if tl > 0 {
		detail += fmt.Sprintf("  (limit %ss, the safety margin)", problem.FormatSeconds(tl))
	}
	if !ok {
		mark = "FAIL"
		detail += fmt.Sprintf("  (expected %s)", s.Expect) + missDetail(res)
	}
	fmt.Fprintf(stdout, "  %s %-40s %-10s %s  (%.1fs)\n", mark, s.Rel, languageOf(sub), detail, time.Since(start).Seconds())
	return res, ok
}

// missDetail says why a result missed: its error, the compiler's log, or
// the first test that failed.
func missDetail(res *verdict.Result) string {
	if res.Error != "" {
		return ": " + res.Error
	}
	if !res.Compile.OK {
		return ": " + oneLine(res.Compile.Log, 200)
	}
	for _, t := range res.Tests {
		if t.Verdict != verdict.AC && t.Verdict != verdict.SK {
			return fmt.Sprintf(": test %s %s %s", t.Name, t.Verdict, oneLine(t.Feedback, 120))
		}
	}
	return ""
}

func runProblemPush(args []string) int {
	fs := newFlags("problem push", helpText{
		synopsis: "[--json] [--quiet] DIR|ZIP...",
		about: "Validates each package (a directory or a zip archive) and uploads it to the store (object store bucket docket-problems),\n" +
			"where workers and docket submit find it by its id. Each step is shown on stderr, and so are the\n" +
			"package's warnings (its trusted programs, statements linked out of it; --quiet: not).\n" +
			"Exit: 0 all pushed, 1 a package did not load or upload, 2 usage, 3 NATS unreachable.",
		example: "docket problem push problems/aplusb problems/floats",
	})
	quiet := quietFlag(fs)
	asJSON := fs.Bool("json", false, "print a JSON object per package pushed (id, name, tests, bytes, digest, warnings) instead of a line")
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	args = fs.Args()
	if len(args) == 0 {
		fmt.Fprintln(stderr, "docket problem push: want at least one DIR (docket problem push --help)")
		return exitUsage
	}
	for _, dir := range args {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() && !st.Mode().IsRegular() {
			fmt.Fprintf(stderr, "docket problem push: %s is not a directory or a zip archive; nothing was pushed\n", dir)
			return exitUsage
		}
	}
	fmt.Fprintf(stderr, "* connecting to NATS\n")
	qe, nc, code := dialNATS("docket problem push")
	if nc == nil {
		return code
	}
	defer nc.Close()
	js, _ := jsFor(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := protocol.EnsureStreams(ctx, js, qe.streams()); err != nil {
		fmt.Fprintln(stderr, "docket problem push:", err)
		return exitSystem
	}
	failed := false
	for _, dir := range args {
		fmt.Fprintf(stderr, "* validating and uploading %s\n", dir)
		p, info, err := pushPackage(ctx, js, dir, stderr)
		if err != nil {
			printLoadError(stderr, "docket problem push "+dir, err)
			failed = true
			continue
		}
		printWarnings("docket problem push", p, *quiet)
		if *asJSON {
			json.NewEncoder(jsonOut).Encode(pushedJSON{ID: p.ID, Name: p.Name, Tests: len(p.Tests), Bytes: info.Size, Digest: p.Digest,
				Warnings: append([]problem.Warning{}, p.Warnings...)})
			continue
		}
		fmt.Fprintf(stdout, "pushed %s (%s): %d tests, %d bytes, %s\n", p.ID, p.Name, len(p.Tests), info.Size, p.Digest[:19])
	}
	if failed {
		return exitFailed
	}
	return exitOK
}

// buildTests builds the package's tests that are not files (a Polygon
// package's generated tests), or finds them built, and says so on w
// with the time it took.
func buildTests(j *verdict.Judge, p *problem.Problem, w io.Writer) (*verdict.TestBuild, error) {
	if p.Generation == nil {
		return &verdict.TestBuild{}, nil
	}
	step("building %d tests (generators and the main solution, in the sandbox)", len(p.Generation.Tests))
	b, err := j.BuildTests(judgeCtx(), p)
	if err != nil {
		return nil, err
	}
	if b.Cached {
		fmt.Fprintf(w, "tests: %d built before, found in the cache (%s)\n", b.Tests, b.Took.Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "tests: built %d in %.1fs\n", b.Tests, b.Took.Seconds())
	}
	return b, nil
}

// buildForPush builds the tests of the package in dir, if it has tests
// to build (its progress to w), for a push to upload with it; nil when
// it has none, or does not load (the push says why).
func buildForPush(dir string, w io.Writer) (map[string]string, error) {
	p, err := problem.Load(dir)
	if err != nil || p.Generation == nil {
		return nil, nil
	}
	j, release, err := newJudge(0)
	if err != nil {
		return nil, err
	}
	defer release()
	b, err := buildTests(j, p, w)
	if err != nil {
		return nil, err
	}
	return verdict.BuiltFiles(p, b), nil
}

// pushedJSON is docket problem push --json's line for a package.
type pushedJSON struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Tests    int               `json:"tests"`
	Bytes    uint64            `json:"bytes"`
	Digest   string            `json:"digest"`
	Warnings []problem.Warning `json:"warnings"`
}

func runProblemList(args []string) int {
	fs := newFlags("problem list", helpText{
		about:   "Lists the packages in the store: id, name, size, digest, when pushed.",
		example: "docket problem list",
	})
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(stderr, "docket problem list: takes no arguments")
		return exitUsage
	}
	_, nc, code := dialNATS("docket problem list")
	if nc == nil {
		return code
	}
	defer nc.Close()
	js, _ := jsFor(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := js.ObjectStore(ctx, protocol.ProblemBucket)
	if err != nil {
		fmt.Fprintln(stderr, "docket problem list:", err)
		return exitSystem
	}
	list, err := obs.List(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		fmt.Fprintln(stderr, "docket problem list:", err)
		return exitSystem
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tBYTES\tDIGEST\tPUSHED")
	for _, o := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", o.Name, o.Description, o.Size, o.Metadata["problem_digest"], o.ModTime.Format(time.RFC3339))
	}
	tw.Flush()
	if len(list) == 0 {
		fmt.Fprintln(stderr, "no problems in the store: docket problem push DIR")
	}
	return exitOK
}

// dialNATS loads the queue configuration and connects, reporting a
// failure as cmd's and returning the exit code for it.
func dialNATS(cmd string) (queueEnv, *nats.Conn, int) {
	qe, err := loadQueueEnv()
	if err != nil {
		fmt.Fprintln(stderr, cmd+":", err)
		return qe, nil, exitUsage
	}
	nc, err := qe.connect(strings.ReplaceAll(cmd, " ", "-"))
	if err != nil {
		fmt.Fprintln(stderr, cmd+":", err)
		return qe, nil, exitSystem
	}
	return qe, nc, exitOK
}

// printLoadError writes err, a package's errors one per line.
func printLoadError(w io.Writer, cmd string, err error) {
	var le *problem.LoadError
	if !errors.As(err, &le) || len(le.Errors) < 2 {
		fmt.Fprintf(w, "%s: %v\n", cmd, err)
		return
	}
	fmt.Fprintf(w, "%s: problem package %s: %d errors:\n", cmd, le.Dir, len(le.Errors))
	for _, e := range le.Errors {
		fmt.Fprintf(w, "  - %s\n", e)
	}
}
