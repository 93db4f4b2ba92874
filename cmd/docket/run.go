package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/docketjudge/docket/verdict"
)

func init() {
	register("run", "judge FILE... against a problem directory locally, without NATS", runRun)
}

func runRun(args []string) int {
	fs := newFlags("run", helpText{
		synopsis: "--problem DIR|ZIP [--lang L] [--entry NAME] [--time-limit 2s] [--json] [--quiet] FILE...",
		about: "Judges FILE... locally against a problem package with the same pipeline as the worker, without NATS.\n" +
			"The package's warnings (its trusted programs, statements linked out of it) go to stderr (--quiet: not).\n" +
			"Exit: 0 AC, 1 any other verdict, 2 usage (a package or FILE that will not load, an unknown language,\na bad limit), 3 system. With --json, stdout is a result even then: verdict SE, the reason in error.",
		example: "docket run problems/aplusb/submissions/accepted/main.c --problem problems/aplusb --time-limit 2s",
	})
	dir := fs.String("problem", "", "problem package: a directory or a zip archive (required)")
	lang := fs.String("lang", "", "language id (default: from the first file's extension)")
	tl := durationLimit(fs, "time-limit", 0, "time limit per test, a `duration` with a unit: 2s, 1500ms (default: the package's)")
	mem := positiveInt(fs, "memory", "memory limit in `MiB` (default: the package's)")
	entry := fs.String("entry", "", "entry point: the main source file, or for Java and Kotlin the main class (default: the rules of docs/languages.md)")
	all := fs.Bool("all", false, "run every test of a pass-fail problem, not stopping at the first failure")
	parallel := positiveInt(fs, "parallel-tests", "how many tests run at once, each on a sandbox slot of its own (default DOCKET_PARALLEL_TESTS, else 1)")
	asJSON := fs.Bool("json", false, "print only the result JSON (with the package's warnings in package_warnings)")
	quiet := quietFlag(fs)
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	// fail reports what leaves nothing to judge: on stderr and, with
	// --json, as an SE result on stdout, since a harness reads stdout.
	fail := func(code int, err error) int {
		fmt.Fprintln(stderr, "docket run:", err)
		if *asJSON {
			printJSON(verdict.SystemError(err.Error()))
		}
		return code
	}
	if *dir == "" || fs.NArg() == 0 {
		return fail(exitUsage, errors.New("--problem DIR|ZIP and at least one FILE are required"))
	}
	p, done, err := loadPackage(*dir)
	if err != nil {
		printLoadError(stderr, "docket run", err)
		if *asJSON {
			printJSON(verdict.SystemError(err.Error()))
		}
		return exitUsage
	}
	defer done()
	printWarnings("docket run", p, *quiet)
	j, release, err := newJudge(*parallel)
	if err != nil {
		return fail(exitSystem, err)
	}
	defer release()
	if _, err := buildTests(j, p, stderr); err != nil {
		return fail(exitFailed, err)
	}
	sub, err := verdict.ReadSubmission(j.Langs, *lang, fs.Args())
	if err != nil {
		return fail(exitUsage, err)
	}
	if _, err := j.Langs.Lookup(sub.Language); err != nil && sub.Language != "" {
		return fail(exitUsage, err) // a --lang the catalog does not know
	}
	sub.EntryPoint = *entry
	opt := verdict.Options{TimeLimit: *tl, MemoryMB: *mem, RunAll: *all}
	if !*asJSON {
		opt.Observer = &liveDisplay{out: stderr, tty: isTerminal(os.Stderr)}
		fmt.Fprintf(stderr, "judging %s (%s) against %s: %d tests\n", fs.Arg(0), languageOf(sub), p.ID, len(p.Tests))
	}
	start := time.Now()
	res := j.Judge(judgeCtx(), p, sub, opt)
	if *asJSON {
		printJSONValue(runJSON{Result: res, PackageWarnings: p.Warnings})
	} else {
		printSummary(res, time.Since(start))
	}
	if res.Verdict == verdict.AC {
		return exitOK
	}
	return exitFailed
}

// languageOf names a submission's language for a person: its id, or
// for one of output files alone, which has none, what it is.
func languageOf(sub verdict.Submission) string {
	if sub.Language == "" {
		return "output files"
	}
	return sub.Language
}

func printJSON(res *verdict.Result) { printJSONValue(res) }

func printJSONValue(v any) {
	enc := json.NewEncoder(jsonOut)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func printSummary(res *verdict.Result, took time.Duration) {
	w := stdout
	if !res.Compile.OK && res.Compile.Log != "" {
		fmt.Fprintf(w, "compiler output:\n%s\n", res.Compile.Log)
	}
	counts := map[verdict.Verdict]int{}
	for _, t := range res.Tests {
		counts[t.Verdict]++
	}
	var parts []string
	for v, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(parts)
	for _, g := range res.Groups {
		fmt.Fprintf(w, "group %-24s %-3s %g/%g\n", g.Name, g.Verdict, g.Score, g.MaxScore)
	}
	fmt.Fprintf(w, "verdict %s  score %g/%g  max time %dms  max memory %d KiB  tests: %v  limits: %dms (%s ×%g), %d MiB",
		res.Verdict, res.Score, res.MaxScore, res.TimeMs, res.MemoryKB, parts,
		res.Limits.TimeMs, res.Limits.TimeSource, res.Limits.TimeMultiplier, res.Limits.MemoryMB)
	if took > 0 {
		fmt.Fprintf(w, "  judged in %.2fs", took.Seconds())
	}
	if res.Worker != "" {
		fmt.Fprintf(w, "  by %s (attempt %d)", res.Worker, res.Attempt)
	}
	fmt.Fprintln(w)
	if res.Error != "" {
		fmt.Fprintf(w, "error: %s\n", res.Error)
	}
}
