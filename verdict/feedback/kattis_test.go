package feedback

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadKattisDirEmpty(t *testing.T) {
	k, err := ReadKattisDir(t.TempDir())
	if err != nil || k != (Kattis{}) {
		t.Fatalf("empty dir: %+v, %v", k, err)
	}
	if _, err := ReadKattisDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing dir: no error")
	}
	f := filepath.Join(t.TempDir(), "file")
	write(t, filepath.Dir(f), map[string]string{"file": ""})
	if _, err := ReadKattisDir(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: %v", err)
	}
}

func TestReadKattisDir(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		JudgeMessageFile: "Wrong answer on line 3\nexpected 5\n",
		TeamMessageFile:  "bad \xff byte",
		ScoreFile:        " 12.5\n",
	})
	k, err := ReadKattisDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k.JudgeMessage != "Wrong answer on line 3\nexpected 5\n" {
		t.Errorf("judge message %q", k.JudgeMessage)
	}
	if k.TeamMessage != "bad \uFFFD byte" {
		t.Errorf("team message %q", k.TeamMessage)
	}
	if k.Score == nil || *k.Score != 12.5 || k.ScoreMultiplier != nil {
		t.Errorf("score %v multiplier %v", k.Score, k.ScoreMultiplier)
	}

	dir = t.TempDir()
	write(t, dir, map[string]string{ScoreMultiplierFile: "0.25"})
	k, err = ReadKattisDir(dir)
	if err != nil || k.ScoreMultiplier == nil || *k.ScoreMultiplier != 0.25 || k.Score != nil {
		t.Errorf("multiplier: %+v, %v", k, err)
	}

	write(t, dir, map[string]string{ScoreFile: "1"})
	k, err = ReadKattisDir(dir)
	if err == nil || !strings.Contains(err.Error(), "both score.txt and score_multiplier.txt") {
		t.Errorf("both scores: %v", err)
	}
	if k.Score == nil || k.ScoreMultiplier == nil {
		t.Errorf("both scores: values not kept: %+v", k)
	}
}

func TestReadKattisDirBadScores(t *testing.T) {
	for _, c := range []struct {
		file, content, err string
	}{
		{ScoreFile, "abc", `score.txt: "abc" is not a number`},
		{ScoreFile, "", "score.txt: empty"},
		{ScoreFile, "\n \n", "score.txt: empty"},
		{ScoreFile, "-1", "score.txt: score \"-1\" is negative"},
		{ScoreFile, "inf", "score.txt: \"inf\" is not a number"},
		{ScoreFile, "nan", "not a number"},
		{ScoreFile, "1 2", "not a number"},
		{ScoreFile, "1e400", "not a number"},
		{ScoreFile, "0x10", "not a number"},
		{ScoreFile, "1" + strings.Repeat(" ", 5000), "score.txt: larger than 4096 bytes"},
		{ScoreMultiplierFile, "1.5", `score_multiplier.txt: score multiplier "1.5" is not in [0, 1]`},
		{ScoreMultiplierFile, "-0.1", "not in [0, 1]"},
		{ScoreMultiplierFile, "half", "score_multiplier.txt: \"half\" is not a number"},
	} {
		dir := t.TempDir()
		write(t, dir, map[string]string{c.file: c.content, JudgeMessageFile: "still read"})
		k, err := ReadKattisDir(dir)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %q: error %v, want %q", c.file, c.content, err, c.err)
		}
		if k.JudgeMessage != "still read" || k.Score != nil || k.ScoreMultiplier != nil {
			t.Errorf("%s %q: %+v", c.file, c.content, k)
		}
	}
}

func TestReadKattisDirLongMessages(t *testing.T) {
	dir := t.TempDir()
	// A euro sign across the 64 KiB limit, and a file of invalid bytes that
	// triples in size when replaced.
	write(t, dir, map[string]string{
		JudgeMessageFile: strings.Repeat("a", MaxKattisMessage-1) + "€" + strings.Repeat("b", 100),
		TeamMessageFile:  strings.Repeat("\xffa", MaxKattisMessage/2),
	})
	k, err := ReadKattisDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]string{"judge": k.JudgeMessage, "team": k.TeamMessage} {
		if len(m) > MaxKattisMessage || !utf8.ValidString(m) || !strings.HasSuffix(m, "…[truncated]") {
			t.Errorf("%s message: %d bytes, valid %v, ends %q", name, len(m), utf8.ValidString(m), m[max(0, len(m)-20):])
		}
	}
	if strings.Contains(k.JudgeMessage, "\uFFFD") {
		t.Error("judge message: a rune cut by the limit became U+FFFD")
	}
	// Exactly at the limit: not truncated.
	write(t, dir, map[string]string{JudgeMessageFile: strings.Repeat("a", MaxKattisMessage)})
	if k, _ := ReadKattisDir(dir); k.JudgeMessage != strings.Repeat("a", MaxKattisMessage) {
		t.Errorf("message at the limit changed (%d bytes)", len(k.JudgeMessage))
	}
}

func TestReadKattisDirNotRegular(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	write(t, filepath.Dir(secret), map[string]string{"secret": "42"})
	if err := os.Symlink(secret, filepath.Join(dir, ScoreFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, JudgeMessageFile)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, TeamMessageFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ScoreMultiplierFile), 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var k Kattis
	var err error
	go func() {
		k, err = ReadKattisDir(dir)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadKattisDir blocked (on the FIFO?)")
	}
	if k != (Kattis{}) {
		t.Errorf("read through a non-regular file: %+v", k)
	}
	for _, want := range []string{
		"score.txt is a symbolic link",
		"judgemessage.txt is a symbolic link",
		"teammessage.txt is not a regular file",
		"score_multiplier.txt is not a regular file",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// The open itself refuses symbolic links and non-regular files, whatever
// Lstat saw (a swap between the two).
func TestReadFileOpen(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "link"), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err == nil {
		f.Close()
		t.Fatal("O_NOFOLLOW opened a symbolic link")
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = os.OpenFile(filepath.Join(dir, "fifo"), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("O_NONBLOCK open of a FIFO: %v", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || regular("fifo", fi) == nil {
		t.Errorf("FIFO passed as regular: %v", err)
	}
}

func TestParseScore(t *testing.T) {
	good := map[string]float64{"0": 0, "-0": 0, "1": 1, "12.5\n": 12.5, "\t 3e2 \r\n": 300, ".5": 0.5, "100.": 100, "1e-400": 0}
	for s, want := range good {
		v, err := ParseScore([]byte(s))
		if err != nil || v != want || math.Signbit(v) {
			t.Errorf("ParseScore(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
	for _, s := range []string{"", " ", "-1", "-1e-9", "inf", "+inf", "NaN", "1_0", "1,5", "1 2", "0x1p3", "½", "1e999"} {
		if v, err := ParseScore([]byte(s)); err == nil {
			t.Errorf("ParseScore(%q) = %v, want an error", s, v)
		}
	}
	for s, ok := range map[string]bool{"0": true, "1": true, "1.0": true, "0.5": true, "1.0000001": false, "-0": true, "-0.5": false} {
		v, err := ParseScoreMultiplier([]byte(s))
		if (err == nil) != ok || err == nil && (v < 0 || v > 1) {
			t.Errorf("ParseScoreMultiplier(%q) = %v, %v", s, v, err)
		}
	}
}

func FuzzScoreFile(f *testing.F) {
	for _, s := range []string{"12.5\n", "0", "-1", "inf", "nan", " 1e3 ", "1e400", "0x10", "1 2", "\xff", ".", "5.", "-0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseScore(b)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n") && !strings.Contains(strconv.Quote(string(b)), "\\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || math.Signbit(v) {
			t.Fatalf("ParseScore(%q) = %v", b, v)
		}
		back, err := ParseScore([]byte(strconv.FormatFloat(v, 'g', -1, 64)))
		if err != nil || back != v {
			t.Fatalf("ParseScore(%q) = %v does not round-trip: %v, %v", b, v, back, err)
		}
		m, err := ParseScoreMultiplier(b)
		if (err == nil) != (v <= 1) || err == nil && m != v {
			t.Fatalf("ParseScoreMultiplier(%q) = %v, %v; score %v", b, m, err, v)
		}
	})
}
