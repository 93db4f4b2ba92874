package problem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docketjudge/docket/verdict/overshoot"
	"go.yaml.in/yaml/v3"
)

// yamlProblem is problem.yaml across the format versions. Unknown keys
// are allowed (the format has many docket does not use: author, source,
// license, rights_owner, keywords, uuid, ...).
type yamlProblem struct {
	ProblemFormatVersion string     `yaml:"problem_format_version"`
	Name                 yaml.Node  `yaml:"name"` // a string, or a map of languages (2023-07)
	Type                 yaml.Node  `yaml:"type"` // a string or a list (2023-07)
	Validation           string     `yaml:"validation"`
	ValidatorFlags       string     `yaml:"validator_flags"`
	Limits               yamlLimits `yaml:"limits"`
	Docket               yamlDocket `yaml:"docket"`
}

type yamlLimits struct {
	TimeLimit *float64 `yaml:"time_limit"`
	// The time limit computed from accepted submissions (timemult.go):
	// the legacy keys and the 2023-07 ones.
	TimeMultiplier *float64        `yaml:"time_multiplier"`
	SafetyMargin   *float64        `yaml:"time_safety_margin"`
	Multipliers    yamlMultipliers `yaml:"time_multipliers"`
	Resolution     *float64        `yaml:"time_resolution"`
	Memory         int             `yaml:"memory"`
	Output         int             `yaml:"output"`
	ValidationMem  int             `yaml:"validation_memory"`
	// ValidationPasses: a multi-pass problem's most passes (default 2).
	ValidationPasses *int `yaml:"validation_passes"`
}

type yamlDocket struct {
	Checker    *yamlProgram `yaml:"checker"`
	Interactor *yamlProgram `yaml:"interactor"`
	TwoStep    *yamlTwoStep `yaml:"two_step"`
	TimeLimit  *float64     `yaml:"time_limit"`
	DiskMB     int          `yaml:"disk_mb"`
	Feedback   string       `yaml:"feedback"` // samples | all | none
	// WallOvershoot: how long past the time limit a run may take in wall
	// time (overshoot syntax, "1s|10%").
	WallOvershoot string `yaml:"wall_overshoot"`
}

type yamlProgram struct {
	Protocol string `yaml:"protocol"`
	Source   string `yaml:"source"`
}

type yamlTwoStep struct {
	Mode       string    `yaml:"mode"` // phases | programs
	FirstArgs  []string  `yaml:"first_args"`
	SecondArgs []string  `yaml:"second_args"`
	Handoff    yaml.Node `yaml:"handoff"` // "stdout" or {file: NAME}
}

func (l *loader) readYAML(p *Problem) *yamlProblem {
	y := &yamlProblem{}
	b, err := os.ReadFile(filepath.Join(l.dir, "problem.yaml"))
	if err != nil {
		l.errorf("problem.yaml: %v", err)
		return y
	}
	// io.EOF: an empty problem.yaml, which sets nothing.
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(y); err != nil && !errors.Is(err, io.EOF) {
		l.errorf("problem.yaml: %v", err)
	}
	return y
}

// applyYAML applies problem.yaml, section by section; the kind of
// problem (type, validation) comes before what depends on it.
func (l *loader) applyYAML(p *Problem, y *yamlProblem) {
	p.Name = yamlName(y.Name, p.ID)
	l.applyType(p, y.Type)
	l.applyValidation(p, y.Validation)
	p.ValidatorFlags = strings.Fields(y.ValidatorFlags)
	l.applyPasses(p, y.Limits.ValidationPasses)
	l.applyTimeLimit(p, y)
	l.applyTimeMultipliers(p, y)
	l.applySizeLimits(p, y)
	if s := y.Docket.WallOvershoot; s != "" {
		if o, err := overshoot.Parse(s); err != nil {
			l.fail(fmt.Errorf("problem.yaml docket.wall_overshoot: %w", err))
		} else {
			p.Limits.WallOvershoot = o
		}
	}
	if f, err := ParseFeedbackPolicy(y.Docket.Feedback); err != nil {
		l.errorf("problem.yaml docket.feedback: %v", err)
	} else {
		p.Feedback = f
	}
	if ts := y.Docket.TwoStep; ts != nil {
		l.applyTwoStep(p, ts)
	}
}

// yamlName is the problem's name: a string, or of a map of languages
// (2023-07) the English one, else any; id when there is none.
func yamlName(n yaml.Node, id string) string {
	name := ""
	switch n.Kind {
	case yaml.ScalarNode:
		name = n.Value
	case yaml.MappingNode:
		var m map[string]string
		n.Decode(&m)
		name = m["en"]
		if name == "" {
			for _, v := range m {
				name = v
				break
			}
		}
	}
	if name == "" {
		return id
	}
	return name
}

// applyType reads type: a string of words or a list (2023-07).
func (l *loader) applyType(p *Problem, n yaml.Node) {
	var types []string
	switch n.Kind {
	case yaml.ScalarNode:
		types = strings.Fields(n.Value)
	case yaml.SequenceNode:
		n.Decode(&types)
	}
	for _, t := range types {
		switch t {
		case "pass-fail":
		case "scoring":
			p.Kind = Scoring
		case "interactive":
			p.Interactive = true
		case "multi-pass":
			p.MultiPass = true
		case "submit-answer":
			l.errorf("problem.yaml type: %q is not supported by docket yet", t)
		default:
			l.errorf("problem.yaml type: unknown type %q (pass-fail, scoring, interactive, multi-pass)", t)
		}
	}
}

// applyValidation reads the legacy validation line as problemtools does:
// default alone, or custom followed by any of interactive and score, plus
// multi-pass, which DOMjudge reads (problemtools knows it only as the
// 2023-07 type). score says the validator writes score.txt; it does not
// make the problem scoring (type does), and on a pass-fail problem, where
// the format allows it nowhere, it is a warning: the scores count for
// nothing.
func (l *loader) applyValidation(p *Problem, validation string) {
	v := strings.Fields(validation)
	switch {
	case len(v) == 0:
		return
	case v[0] == "default":
		if len(v) > 1 {
			l.errorf("problem.yaml validation: %q: default takes no further words (custom does: interactive, score, multi-pass)", validation)
		}
		return
	case v[0] != "custom":
		l.errorf("problem.yaml validation: %q does not begin with default or custom", validation)
		return
	}
	for _, w := range v[1:] {
		switch w {
		case "interactive":
			p.Interactive = true
		case "score":
			p.ValidatorScores = true
		case "multi-pass":
			p.MultiPass = true
		default:
			l.errorf("problem.yaml validation: unknown word %q after custom (interactive, score, multi-pass)", w)
		}
	}
	if p.ValidatorScores && p.Kind != Scoring {
		l.warn(Warning{Code: WarnScoreOnPassFail, Paths: []string{"problem.yaml"}, Message: "problem.yaml validation: " +
			"score is for scoring problems, and this one is pass-fail (no type: scoring): its validator's scores count for nothing"})
	}
}

// applyTimeLimit reads limits.time_limit, else docket.time_limit.
func (l *loader) applyTimeLimit(p *Problem, y *yamlProblem) {
	for _, c := range []struct {
		t   *float64
		key string
	}{{y.Limits.TimeLimit, "limits.time_limit"}, {y.Docket.TimeLimit, "docket.time_limit"}} {
		if c.t == nil || p.Limits.Time != 0 {
			continue
		}
		if d, err := seconds(*c.t); err != nil {
			l.errorf("problem.yaml %s: %v", c.key, err)
		} else {
			p.Limits.Time = d
			p.Limits.TimeSource = "problem.yaml " + c.key
		}
	}
}

// applySizeLimits reads the limits in MiB: memory, output,
// validation_memory and docket.disk_mb.
func (l *loader) applySizeLimits(p *Problem, y *yamlProblem) {
	if y.Limits.Memory < 0 || y.Limits.Output < 0 || y.Limits.ValidationMem < 0 {
		l.errorf("problem.yaml limits: memory, output and validation_memory must be positive MiB")
	}
	if y.Limits.Memory > MaxMB || y.Limits.Output > MaxMB || y.Limits.ValidationMem > MaxMB {
		l.errorf("problem.yaml limits: memory, output and validation_memory must be at most %d MiB", MaxMB)
	}
	p.Limits.MemoryMB, p.Limits.OutputMB, p.Limits.ValidationMB = y.Limits.Memory, y.Limits.Output, y.Limits.ValidationMem
	if y.Docket.DiskMB < 0 || y.Docket.DiskMB > MaxMB {
		l.errorf("problem.yaml docket.disk_mb: %d is not between 1 and %d MiB", y.Docket.DiskMB, MaxMB)
	}
	p.Limits.DiskMB = y.Docket.DiskMB
}

// applyTwoStep reads docket.two_step: its mode, its handoff, and that the
// problem is not also interactive or multi-pass.
func (l *loader) applyTwoStep(p *Problem, ts *yamlTwoStep) {
	t := &TwoStep{FirstArgs: ts.FirstArgs, SecondArgs: ts.SecondArgs}
	switch ts.Mode {
	case "phases", "":
	case "programs":
		t.Programs = true
	default:
		l.errorf("problem.yaml docket.two_step.mode: %q is not phases or programs", ts.Mode)
	}
	switch ts.Handoff.Kind {
	case 0:
	case yaml.ScalarNode:
		if ts.Handoff.Value != "stdout" {
			l.errorf("problem.yaml docket.two_step.handoff: %q is not stdout or {file: NAME}", ts.Handoff.Value)
		}
	case yaml.MappingNode:
		var m map[string]string
		ts.Handoff.Decode(&m)
		t.HandoffFile = m["file"]
		if t.HandoffFile == "" || strings.ContainsAny(t.HandoffFile, "/\x00\\") || t.HandoffFile == "." || t.HandoffFile == ".." || len(t.HandoffFile) > 255 {
			l.errorf("problem.yaml docket.two_step.handoff.file: %q must be a plain file name", t.HandoffFile)
		}
	}
	if p.Interactive {
		l.errorf("problem.yaml: a problem cannot be both interactive and two-step")
	}
	if p.MultiPass {
		l.fail(fmt.Errorf("problem.yaml: %w: a problem cannot be both multi-pass and two-step", ErrMultiPass))
	}
	p.TwoStep = t
}

// applyPasses sets a multi-pass problem's limits.validation_passes: at
// least 2 (one pass is not multi-pass), default 2, and at most
// MaxValidationPasses. Given to another kind of problem it is refused, not
// ignored: the package says something docket would not do.
func (l *loader) applyPasses(p *Problem, n *int) {
	switch {
	case n == nil:
		if p.MultiPass {
			p.Limits.ValidationPasses = DefaultValidationPasses
		}
	case !p.MultiPass:
		l.fail(fmt.Errorf("problem.yaml limits.validation_passes: %w: the problem is not multi-pass", ErrMultiPass))
	case *n < 2 || *n > MaxValidationPasses:
		l.fail(fmt.Errorf("problem.yaml limits.validation_passes: %w: %d is not between 2 and %d", ErrMultiPass, *n, MaxValidationPasses))
	default:
		p.Limits.ValidationPasses = *n
	}
}

// Bounds of a package's limits: a time limit beyond MaxTime or a memory
// or output limit beyond MaxMB is a typo (or an attack), and would
// overflow the arithmetic that scales it.
const (
	MaxTime = time.Hour
	MaxMB   = 1 << 20 // 1 TiB
	// A multi-pass problem's passes: the format's default, and a bound
	// (each pass has the full time limit; a validator that always asks
	// for another would otherwise hold a worker for hours).
	DefaultValidationPasses = 2
	MaxValidationPasses     = 100
)

// seconds converts a time limit in seconds, refusing what is not a
// positive, finite number up to MaxTime (NaN, .inf, -1, 1e300).
func seconds(t float64) (time.Duration, error) {
	if !(t > 0) || t > MaxTime.Seconds() {
		return 0, fmt.Errorf("%v is not a positive number of seconds up to %v", t, MaxTime.Seconds())
	}
	return time.Duration(t * float64(time.Second)), nil
}

// groupYAML is a testdata.yaml / test_group.yaml.
type groupYAML struct {
	OnReject             string    `yaml:"on_reject"`
	Grading              string    `yaml:"grading"`
	GraderFlags          string    `yaml:"grader_flags"`
	AcceptScore          yaml.Node `yaml:"accept_score"`
	RejectScore          yaml.Node `yaml:"reject_score"`
	Range                string    `yaml:"range"`
	OutputValidatorFlags string    `yaml:"output_validator_flags"`
	InputValidatorFlags  yaml.Node `yaml:"input_validator_flags"`
	MaxScore             yaml.Node `yaml:"max_score"`
	ScoreAggregation     string    `yaml:"score_aggregation"`
}

// applyGroupYAML applies testdata.yaml / test_group.yaml keys over the
// inherited config: how the group's tests are judged, then scored.
func applyGroupYAML(c *GroupConfig, b []byte) error {
	var y groupYAML
	if err := yaml.Unmarshal(b, &y); err != nil {
		return err
	}
	if err := applyGroupFlags(c, &y); err != nil {
		return err
	}
	if err := applyGroupScores(c, &y); err != nil {
		return err
	}
	if y.OutputValidatorFlags != "" {
		c.ValidatorFlags = strings.Fields(y.OutputValidatorFlags)
	}
	return nil
}

// applyGroupFlags reads on_reject, grader_flags and score_aggregation
// (2025-09's name for the min and sum flags).
func applyGroupFlags(c *GroupConfig, y *groupYAML) error {
	switch y.OnReject {
	case "":
	case "break", "continue":
		c.OnReject = y.OnReject
	default:
		return fmt.Errorf("on_reject: %q is not break or continue", y.OnReject)
	}
	switch y.Grading {
	case "":
	case "default", GradingCustom:
		c.Grading = y.Grading
	default:
		return fmt.Errorf("grading: %q is not default or custom", y.Grading)
	}
	if y.GraderFlags != "" {
		c.GraderFlags = strings.Fields(y.GraderFlags)
	}
	if y.GraderFlags != "" && c.Grading != GradingCustom {
		// A custom grader's flags are its own business (subtask_score=10).
		for _, f := range c.GraderFlags {
			switch f {
			case "min", "sum", "max", "avg", "first_error", "worst_error", "ignore_sample", "accept_if_any_accepted", "always_accept":
			default:
				return fmt.Errorf("grader_flags: unknown flag %q", f)
			}
		}
	}
	switch y.ScoreAggregation { // 2025-09
	case "":
	case "sum", "min":
		c.GraderFlags = append(c.GraderFlags, y.ScoreAggregation)
	case "pass-fail":
	default:
		return fmt.Errorf("score_aggregation: %q is not pass-fail, sum or min", y.ScoreAggregation)
	}
	return nil
}

// applyGroupScores reads accept_score, reject_score, max_score and range.
func applyGroupScores(c *GroupConfig, y *groupYAML) error {
	if err := yamlScore(y.AcceptScore, "accept_score", &c.AcceptScore); err != nil {
		return err
	}
	if err := yamlScore(y.RejectScore, "reject_score", &c.RejectScore); err != nil {
		return err
	}
	if y.MaxScore.Kind != 0 {
		var v float64
		if err := yamlScore(y.MaxScore, "max_score", &v); err != nil {
			return err
		}
		c.MaxScore = &v
	}
	if y.Range != "" {
		f := strings.Fields(y.Range)
		if len(f) != 2 {
			return fmt.Errorf("range: %q is not \"min max\"", y.Range)
		}
		lo, e1 := strconv.ParseFloat(f[0], 64)
		hi, e2 := strconv.ParseFloat(f[1], 64)
		if e1 != nil || e2 != nil || !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return fmt.Errorf("range: %q is not \"min max\"", y.Range)
		}
		c.Range = &[2]float64{lo, hi}
	}
	return nil
}

// yamlScore sets *dst to the score n, when the key is given: a finite
// number.
func yamlScore(n yaml.Node, key string, dst *float64) error {
	if n.Kind == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) { // scores are finite
		return fmt.Errorf("%s: %q is not a number", key, n.Value)
	}
	*dst = v
	return nil
}

// HasFlag reports whether a grader flag is set.
func (c GroupConfig) HasFlag(f string) bool {
	for _, g := range c.GraderFlags {
		if g == f {
			return true
		}
	}
	return false
}
