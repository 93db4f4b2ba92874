package problem

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/docketjudge/docket/langs"
)

// A Polygon package (polygon.codeforces.com), as Polygon exports it and
// its authors keep it: problem.xml, the tests in tests/ by
// input-path-pattern and answer-path-pattern, files/ (testlib.h,
// generators, validators), the checker, an interactor and solutions
// with tags. Tests that exist only as generator commands are built as
// Polygon's doall builds them (Generation, built by verdict). The
// format, as docs/problems.md says, was read from public packages and
// the tools that import them.

// isPolygon: the folder has problem.xml and no other format's file.
func isPolygon(dir string) bool {
	return exists(dir, "problem.xml") && missing(dir, "problem.yaml") && !isCMSTask(dir) && !isTPSTask(dir)
}

// maxProblemXML bounds problem.xml: Polygon's are a few kilobytes per
// hundred tests.
const maxProblemXML = 8 << 20

// pgProblem is problem.xml: the parts docket reads. The rest
// (statements, tutorials, properties, stresses, tags) is left alone.
type pgProblem struct {
	XMLName   xml.Name   `xml:"problem"`
	ShortName string     `xml:"short-name,attr"`
	Names     []pgName   `xml:"names>name"`
	Judging   *pgJudging `xml:"judging"`
	Files     pgFiles    `xml:"files"`
	Assets    pgAssets   `xml:"assets"`
}

type pgName struct {
	Language string `xml:"language,attr"`
	Value    string `xml:"value,attr"`
}

type pgJudging struct {
	InputFile  string      `xml:"input-file,attr"`
	OutputFile string      `xml:"output-file,attr"`
	Testsets   []pgTestset `xml:"testset"`
}

type pgTestset struct {
	Name          string     `xml:"name,attr"`
	TimeLimit     string     `xml:"time-limit"`
	MemoryLimit   string     `xml:"memory-limit"`
	TestCount     string     `xml:"test-count"`
	InputPattern  string     `xml:"input-path-pattern"`
	AnswerPattern string     `xml:"answer-path-pattern"`
	Tests         []pgTest   `xml:"tests>test"`
	Groups        []pgGroup  `xml:"groups>group"`
	Scripts       []xml.Name `xml:"script"`
}

type pgTest struct {
	Method string `xml:"method,attr"`
	Cmd    string `xml:"cmd,attr"`
	Sample string `xml:"sample,attr"`
	Group  string `xml:"group,attr"`
	Points string `xml:"points,attr"`
}

type pgGroup struct {
	Name           string   `xml:"name,attr"`
	Points         string   `xml:"points,attr"`
	PointsPolicy   string   `xml:"points-policy,attr"`
	FeedbackPolicy string   `xml:"feedback-policy,attr"`
	Dependencies   []pgDeps `xml:"dependencies>dependency"`
}

type pgDeps struct {
	Group string `xml:"group,attr"`
}

type pgFiles struct {
	Resources   []pgFile       `xml:"resources>file"`
	Executables []pgExecutable `xml:"executables>executable"`
}

type pgFile struct {
	Path string `xml:"path,attr"`
	Type string `xml:"type,attr"`
}

type pgExecutable struct {
	Source *pgFile `xml:"source"`
	Binary *pgFile `xml:"binary"`
}

type pgAssets struct {
	Checker    *pgChecker   `xml:"checker"`
	Interactor *pgProgram   `xml:"interactor"`
	Solutions  []pgSolution `xml:"solutions>solution"`
}

type pgChecker struct {
	Name   string  `xml:"name,attr"`
	Type   string  `xml:"type,attr"`
	Source *pgFile `xml:"source"`
	Copy   *pgFile `xml:"copy"`
}

type pgProgram struct {
	Source *pgFile `xml:"source"`
}

type pgSolution struct {
	Tag    string  `xml:"tag,attr"`
	Source *pgFile `xml:"source"`
}

// parseProblemXML decodes problem.xml; errors name what is wrong.
func parseProblemXML(b []byte) (*pgProblem, error) {
	if len(b) > maxProblemXML {
		return nil, fmt.Errorf("%d bytes, over the limit of %d", len(b), maxProblemXML)
	}
	var y pgProblem
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	if err := d.Decode(&y); err != nil {
		return nil, err
	}
	// One document: anything but whitespace and comments after it is
	// a mistake (two packages' files concatenated).
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("text after </problem>")
			}
		case xml.StartElement:
			return nil, fmt.Errorf("element <%s> after </problem>", t.Name.Local)
		}
	}
	return &y, nil
}

func (l *loader) loadPolygon(p *Problem) {
	b, err := os.ReadFile(filepath.Join(l.dir, "problem.xml"))
	var y *pgProblem
	if err == nil {
		y, err = parseProblemXML(b)
	}
	if err != nil {
		l.errorf("problem.xml: %v", err)
		return
	}
	p.Name = firstOf(pgTitle(y.Names), y.ShortName, p.ID)
	ts := l.pgTestset(y)
	if ts == nil {
		return
	}
	l.pgLimits(p, ts)
	l.pgFileIO(p, y.Judging)
	res := l.pgResources(y.Files.Resources)
	l.pgChecker(p, y.Assets.Checker, res)
	l.pgInteractor(p, y.Assets.Interactor, res)
	sols := l.pgSolutions(y.Assets.Solutions)
	tests := l.pgTests(p, ts)
	if len(l.errs) > 0 {
		return
	}
	l.pgGroups(p, ts, tests)
	l.pgGeneration(p, y, tests, sols, res)
}

// pgTitle is the package's name: the English one, else the first.
func pgTitle(names []pgName) string {
	for _, n := range names {
		if n.Language == "english" {
			return n.Value
		}
	}
	if len(names) > 0 {
		return names[0].Value
	}
	return ""
}

// pgTestset is judging's testset named tests, the one Polygon judges
// with (others, such as pretests, are Codeforces rounds' and left alone).
// A generation script left in it (FreeMarker) is refused: Polygon
// expands it into the tests' commands when it exports the package.
func (l *loader) pgTestset(y *pgProblem) *pgTestset {
	if y.Judging == nil {
		l.errorf("problem.xml: no <judging> element")
		return nil
	}
	for i := range y.Judging.Testsets {
		ts := &y.Judging.Testsets[i]
		if ts.Name != "tests" {
			continue
		}
		if len(ts.Scripts) > 0 {
			l.errorf("problem.xml testset tests: a <script> (a FreeMarker generation script) is not supported: export the package from Polygon, which writes each test's generator command")
			return nil
		}
		return ts
	}
	l.errorf("problem.xml: no <testset name=\"tests\"> in <judging>")
	return nil
}

// pgLimits reads time-limit (milliseconds) and memory-limit (bytes).
func (l *loader) pgLimits(p *Problem, ts *pgTestset) {
	ms, err := strconv.ParseFloat(strings.TrimSpace(ts.TimeLimit), 64)
	d, derr := seconds(ms / 1000)
	if err != nil || derr != nil {
		l.errorf("problem.xml testset tests time-limit: %q is not a positive number of milliseconds up to %v", ts.TimeLimit, MaxTime.Milliseconds())
	} else {
		p.Limits.Time, p.Limits.TimeSource = d, "problem.xml time-limit"
	}
	bytes, err := strconv.ParseInt(strings.TrimSpace(ts.MemoryLimit), 10, 64)
	if err != nil || bytes < 1<<20 || bytes > 1<<40 {
		l.errorf("problem.xml testset tests memory-limit: %q is not a number of bytes between 1 MiB and 1 TiB", ts.MemoryLimit)
		return
	}
	p.Limits.MemoryMB = int((bytes + 1<<20 - 1) >> 20)
}

// pgFileIO reads judging's input-file and output-file: "" (or stdin,
// stdout) is the standard stream, another name a file in the program's
// working directory.
func (l *loader) pgFileIO(p *Problem, j *pgJudging) {
	for _, f := range []struct {
		key, v, std string
		dst         *string
	}{{"input-file", j.InputFile, "stdin", &p.InputFile}, {"output-file", j.OutputFile, "stdout", &p.OutputFile}} {
		if f.v == "" || f.v == f.std {
			continue
		}
		if err := langs.ValidFileName(f.v); err != nil {
			l.errorf("problem.xml judging %s: %v", f.key, err)
			continue
		}
		*f.dst = f.v
	}
	if p.InputFile != "" && p.InputFile == p.OutputFile {
		l.errorf("problem.xml judging: input-file and output-file are both %q", p.InputFile)
	}
}
