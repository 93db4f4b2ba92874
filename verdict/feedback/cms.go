package feedback

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CMS is what a CMS comparator or manager reports (cms/grading/steps/
// trusted.py, extract_outcome_and_text): the test's outcome, a number in
// [0, 1], on the first line of its stdout; the message for the
// contestant on the first line of its stderr, where
// "translate:success", "translate:partial" and "translate:wrong" stand
// for CMS's own messages; and lines "ADMIN_MESSAGE: text" after it, for
// the judges.
type CMS struct {
	Outcome float64
	Text    string // for the contestant
	Admin   string // for the judges, "" if none
}

// cmsMessages are CMS's evaluation messages (cms/grading/steps/
// evaluation.py), by their translate: key.
var cmsMessages = map[string]string{
	"success": "Output is correct",
	"partial": "Output is partially correct",
	"wrong":   "Output isn't correct",
}

// CMSMessage is CMS's message for an outcome with no text of its own:
// correct, partially correct or not.
func CMSMessage(outcome float64) string {
	switch {
	case outcome >= 1:
		return cmsMessages["success"]
	case outcome > 0:
		return cmsMessages["partial"]
	}
	return cmsMessages["wrong"]
}

// ParseCMS reads a comparator's or manager's stdout and stderr. An
// outcome that is not a finite number in [0, 1] is an error: the
// package's program failed (CMS takes any float; docket refuses what no
// score type but GroupThreshold can use, which ParseCMSRaw reads). Text
// is cut to 4 KiB and made valid UTF-8.
func ParseCMS(stdout, stderr []byte) (CMS, error) {
	c, err := ParseCMSRaw(stdout, stderr)
	if err == nil && (c.Outcome < 0 || c.Outcome > 1) {
		return CMS{}, fmt.Errorf("the outcome %v is outside [0, 1]", c.Outcome)
	}
	return c, err
}

// ParseCMSRaw is ParseCMS for a GroupThreshold task, whose outcomes are
// raw numbers (an error measure the threshold bounds): any finite number.
func ParseCMSRaw(stdout, stderr []byte) (CMS, error) {
	first, _, _ := bytes.Cut(stdout, []byte("\n"))
	word := strings.TrimSpace(string(first))
	v, err := strconv.ParseFloat(word, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return CMS{}, fmt.Errorf("the outcome %q on the first line of stdout is not a number", cutUTF8(word, 64))
	}
	c := CMS{Outcome: v}
	lines := strings.Split(strings.ToValidUTF8(string(stderr), "\uFFFD"), "\n")
	c.Text = strings.TrimSpace(lines[0])
	if key, ok := strings.CutPrefix(c.Text, "translate:"); ok {
		if m, known := cmsMessages[strings.TrimSpace(key)]; known {
			c.Text = m
		}
	}
	var admin []string
	for _, l := range lines[1:] {
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), "ADMIN_MESSAGE:"); ok {
			admin = append(admin, strings.TrimSpace(a))
		}
	}
	c.Text, c.Admin = cutUTF8(c.Text, 4<<10), cutUTF8(strings.Join(admin, " "), 4<<10)
	return c, nil
}
