package feedback

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/docketjudge/docket/verdict/compare"
)

// Limits on what is read from a feedback directory.
const (
	MaxKattisMessage = 64 << 10 // judgemessage.txt, teammessage.txt
	maxScoreFile     = 4 << 10  // score.txt, score_multiplier.txt
)

// Names of the feedback files.
const (
	JudgeMessageFile    = "judgemessage.txt"
	TeamMessageFile     = "teammessage.txt"
	ScoreFile           = "score.txt"
	ScoreMultiplierFile = "score_multiplier.txt"
)

// Kattis is what an output validator (or interactor) left in its feedback
// directory. Nil scores are absent files.
type Kattis struct {
	JudgeMessage, TeamMessage string
	Score                     *float64 // score.txt: ≥ 0
	ScoreMultiplier           *float64 // score_multiplier.txt: in [0, 1]
}

// ReadKattisDir reads the feedback files of dir, which must exist. It reads
// all it can: with an error (every problem found, each naming its file) the
// fields of the files that were fine are still set.
func ReadKattisDir(dir string) (Kattis, error) {
	var k Kattis
	if fi, err := os.Stat(dir); err != nil {
		return k, fmt.Errorf("feedback: %w", err)
	} else if !fi.IsDir() {
		return k, fmt.Errorf("feedback: %s is not a directory", dir)
	}
	var errs []error
	for _, m := range []struct {
		name string
		to   *string
	}{{JudgeMessageFile, &k.JudgeMessage}, {TeamMessageFile, &k.TeamMessage}} {
		b, truncated, err := readFile(dir, m.name, MaxKattisMessage)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		*m.to = message(b, truncated, MaxKattisMessage)
	}
	for _, s := range []struct {
		name  string
		to    **float64
		parse func([]byte) (float64, error)
	}{{ScoreFile, &k.Score, ParseScore}, {ScoreMultiplierFile, &k.ScoreMultiplier, ParseScoreMultiplier}} {
		b, truncated, err := readFile(dir, s.name, maxScoreFile)
		switch {
		case err != nil:
			errs = append(errs, err)
		case b == nil:
		case truncated:
			errs = append(errs, fmt.Errorf("feedback: %s: larger than %d bytes", s.name, maxScoreFile))
		default:
			v, err := s.parse(b)
			if err != nil {
				errs = append(errs, fmt.Errorf("feedback: %s: %w", s.name, err))
				continue
			}
			*s.to = &v
		}
	}
	if k.Score != nil && k.ScoreMultiplier != nil {
		errs = append(errs, fmt.Errorf("feedback: both %s and %s were written; at most one is allowed", ScoreFile, ScoreMultiplierFile))
	}
	return k, errors.Join(errs...)
}

// readFile reads at most limit bytes of dir/name. An absent file gives nil
// and no error; a present one a non-nil slice. truncated says the file had
// more.
func readFile(dir, name string, limit int) (b []byte, truncated bool, err error) {
	path := filepath.Join(dir, name)
	// Lstat first so that a device or FIFO is not even opened in the
	// ordinary case; the fstat below is what makes it safe against a swap.
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("feedback: %s: %w", name, err)
	}
	if err := regular(name, fi); err != nil {
		return nil, false, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, false, fmt.Errorf("feedback: %s is a symbolic link, which is not followed", name)
	case err != nil:
		return nil, false, fmt.Errorf("feedback: %s: %w", name, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, false, fmt.Errorf("feedback: %s: %w", name, err)
	}
	if err := regular(name, fi); err != nil {
		return nil, false, err
	}
	b, err = io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, false, fmt.Errorf("feedback: %s: %w", name, err)
	}
	if len(b) > limit {
		return b[:limit], true, nil
	}
	if b == nil {
		b = []byte{}
	}
	return b, false, nil
}

func regular(name string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("feedback: %s is a symbolic link, which is not followed", name)
	}
	return fmt.Errorf("feedback: %s is not a regular file (%s); ignored", name, m.Type())
}

// message turns raw bytes into a valid UTF-8 string of at most limit bytes.
// truncated says b was already cut; the result then ends in a marker.
func message(b []byte, truncated bool, limit int) string {
	const marker = "…[truncated]"
	if truncated {
		// Drop a rune cut in half by the read limit.
		if i := lastRuneStart(b); i >= 0 && !utf8.FullRune(b[i:]) {
			b = b[:i]
		}
	}
	s := string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	if len(s) > limit {
		truncated = true
	}
	if !truncated {
		return s
	}
	return cutUTF8(s, limit-len(marker)) + marker
}

// lastRuneStart is the index of the start of the last rune of b, or -1.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}

// cutUTF8 cuts the valid UTF-8 string s to at most n bytes at a rune
// boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ParseScore parses the contents of score.txt: one non-negative number in
// the specification's float grammar, with optional whitespace around it.
func ParseScore(b []byte) (float64, error) {
	v, err := parseNumber(b)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("score %s is negative", show(b))
	}
	return v, nil
}

// ParseScoreMultiplier parses the contents of score_multiplier.txt: one
// number in [0, 1].
func ParseScoreMultiplier(b []byte) (float64, error) {
	v, err := parseNumber(b)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("score multiplier %s is not in [0, 1]", show(b))
	}
	return v, nil
}

func parseNumber(b []byte) (float64, error) {
	t := bytes.Trim(b, " \t\n\v\f\r")
	if len(t) == 0 {
		return 0, errors.New("empty, expected a number")
	}
	v, ok := compare.ParseNumber(t)
	if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%s is not a number", show(b))
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}

// show quotes a short excerpt of b for an error message.
func show(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 40 {
		return fmt.Sprintf("%q...", b[:40])
	}
	return fmt.Sprintf("%q", b)
}
