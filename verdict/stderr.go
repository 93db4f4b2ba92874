package verdict

import "strings"

// StderrExcerptBytes bounds the excerpt of a submission's stderr a test
// result quotes (stderr_excerpt): its first and its last half, where a
// runtime names what went wrong (Java's first line, Python's last line of
// a traceback, a C++ terminate message, a failed assertion); never a dump.
const StderrExcerptBytes = 256

// stderrElision joins the first and last half of a longer stderr.
const stderrElision = "\n...\n"

// stderrHead is a submission's stderr: the first and the last
// StderrExcerptBytes/2 kept, the rest accepted and dropped, so that a
// flood costs the program only its own time.
type stderrHead struct {
	head, tail []byte
	total      int64
}

func (h *stderrHead) Write(p []byte) (int, error) {
	const half = StderrExcerptBytes / 2
	written := len(p)
	h.total += int64(written)
	if room := half - len(h.head); room > 0 {
		n := min(room, len(p))
		h.head = append(h.head, p[:n]...)
		p = p[n:]
	}
	if len(p) >= half {
		h.tail = append(h.tail[:0], p[len(p)-half:]...)
	} else if len(p) > 0 {
		h.tail = append(h.tail, p...)
		if over := len(h.tail) - half; over > 0 {
			h.tail = append(h.tail[:0], h.tail[over:]...)
		}
	}
	return written, nil
}

// String is the excerpt: all of it when it fits, else its first and last
// half around an elision mark. Bytes that are not UTF-8 become U+FFFD.
func (h *stderrHead) String() string {
	s := string(h.head)
	if h.total > int64(len(h.head)+len(h.tail)) {
		s += stderrElision
	}
	return strings.ToValidUTF8(s+string(h.tail), "\uFFFD")
}

// withStderr quotes the program's stderr in a test whose run failed (RE,
// TLE, MLE, OLE: the sandbox's verdict, before any checker): why it
// failed, in its own words. A contestant sees it only where the test's
// details are shown (it may echo the test's input).
func withStderr(tr TestResult, h *stderrHead) TestResult {
	if tr.Verdict != AC && h.total > 0 {
		tr.StderrExcerpt = h.String()
	}
	return tr
}
