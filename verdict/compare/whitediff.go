package compare

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// whiteDiff is CMS's white-diff (cms/grading/steps/whitediff.py), the
// comparison of CMS tasks without a comparator: line i of the output
// must equal line i of the answer up to the number and kind of
// whitespace (runs of space, \t, \v, \f, \r collapse to one, leading and
// trailing ones go), and lines of whitespace alone after either file's
// end do not count. Unlike the Kattis comparison, line breaks matter:
// "1 2" is not "1\n2". Its messages are CMS's.
func whiteDiff(team, answer io.Reader) (Outcome, error) {
	t, a := bufio.NewReader(team), bufio.NewReader(answer)
	for line := 1; ; line++ {
		lt, errT := readLine(t)
		la, errA := readLine(a)
		if errT != nil && errT != io.EOF {
			return Outcome{}, fmt.Errorf("compare: reading team output: %w", errT)
		}
		if errA != nil && errA != io.EOF {
			return Outcome{}, fmt.Errorf("compare: reading answer: %w", errA)
		}
		if len(lt) == 0 && len(la) == 0 {
			return accepted, nil // both ended (an empty read is EOF)
		}
		if len(lt) == 0 || len(la) == 0 {
			if len(bytes.TrimFunc(lt, isWhite)) > 0 {
				return Outcome{Message: "Contestant output too long"}, nil
			}
			if len(bytes.TrimFunc(la, isWhite)) > 0 {
				return Outcome{Message: "Contestant output too short"}, nil
			}
			continue
		}
		ct, ca := canonical(lt), canonical(la)
		if !bytes.Equal(ct, ca) {
			return Outcome{Message: fmt.Sprintf("Expected `%s`, found `%s` on line %d", cut(ca), cut(ct), line)}, nil
		}
	}
}

// readLine is the next line with its newline, or what is left before
// EOF; empty at EOF.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		b, err := r.ReadSlice('\n')
		line = append(line, b...)
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(line) > 0 {
				err = nil
			}
			return line, err
		}
	}
}

// canonical is a line with its whitespace runs made one space and its
// ends trimmed: two lines are equal for white-diff when these are.
func canonical(b []byte) []byte {
	return bytes.Join(bytes.FieldsFunc(b, isWhite), []byte{' '})
}

// isWhite: CMS's whitespace, the six bytes of C's isspace.
func isWhite(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// cut is a line as CMS quotes it in the message: at most 100 bytes, then
// "...", as text (a byte that is not UTF-8 becomes U+FFFD).
func cut(b []byte) string {
	s := string(b)
	if len(b) > 100 {
		s = string(b[:100]) + "..."
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
