package problem

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// cmsSubtask is a subtask of a CMS task: its points and how many tests,
// consecutive in codename order, it holds.
type cmsSubtask struct {
	Points float64
	Tests  int
}

// parseGEN reads gen/GEN as CMS's italy_yaml loader reads it: a line
// that is not blank and not only a comment is a test (a generator's
// command line); a comment "#COPY: file" is a test too; a comment
// "# ST: points" starts a subtask. Other comments are ignored. It
// returns the subtasks (none when no ST line occurs) and the number of
// tests. A line that is two of these at once, an ST line after tests
// with no subtask before them, and points that are not a non-negative
// integer are errors, as in CMS; so is an ST line with no test after it
// (an empty subtask, which CMS would score for free).
func parseGEN(b []byte) ([]cmsSubtask, int, error) {
	var subtasks []cmsSubtask
	tests, total := 0, 0
	open := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		cmd, comment, hasComment := strings.Cut(line, "#")
		cmd, comment = strings.TrimSpace(cmd), strings.TrimSpace(comment)
		isTest := cmd != ""
		isCopy := hasComment && strings.HasPrefix(comment, "COPY:")
		isST := hasComment && strings.HasPrefix(comment, "ST:")
		if isTest && (isCopy || isST) || isCopy && isST {
			return nil, 0, fmt.Errorf("gen/GEN line %d: a test and a command on one line", n)
		}
		if isTest || isCopy {
			tests++
			total++
			continue
		}
		if !isST {
			continue
		}
		points, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(comment, "ST:")))
		if err != nil || points < 0 {
			return nil, 0, fmt.Errorf("gen/GEN line %d: %q is not a subtask's points (a non-negative integer)", n, comment)
		}
		switch {
		case open && tests == 0:
			return nil, 0, fmt.Errorf("gen/GEN line %d: the subtask before it has no test", n)
		case open:
			subtasks[len(subtasks)-1].Tests = tests
		case tests > 0:
			return nil, 0, fmt.Errorf("gen/GEN line %d: %d tests before the first subtask", n, tests)
		}
		subtasks = append(subtasks, cmsSubtask{Points: float64(points)})
		open, tests = true, 0
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("gen/GEN: %v", err)
	}
	if open {
		if tests == 0 {
			return nil, 0, fmt.Errorf("gen/GEN: the last subtask has no test")
		}
		subtasks[len(subtasks)-1].Tests = tests
	}
	return subtasks, total, nil
}
