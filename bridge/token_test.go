package bridge

import (
	"strings"
	"testing"
	"time"
)

// The expiring form, computed independently (openssl dgst -sha256 -hmac).
func TestSubmissionTokenUntilVector(t *testing.T) {
	const want = "2000000000.c12724a5ac76ae7d7a305c6109a734997813118c3d67d63e361570d092445997"
	if got := SubmissionTokenUntil([]byte("test-secret"), "s-42", time.Unix(2000000000, 0)); got != want {
		t.Fatalf("SubmissionTokenUntil = %s, want %s", got, want)
	}
}

// Against a bridge on a real server: an expired token is refused, one
// that has not expired opens its submission (and only it), an old token
// without expiry still works, and a token whose expiry was edited, or
// that is malformed, opens nothing.
func TestExpiringTokens(t *testing.T) {
	e := newEnv(t, nil)
	e.publish("s-1", "started", nil)
	e.publish("s-2", "started", nil)
	key := []byte(testSecret)
	future := SubmissionTokenUntil(key, "s-1", time.Now().Add(time.Hour))
	past := SubmissionTokenUntil(key, "s-1", time.Now().Add(-time.Second))
	exp, sum, _ := strings.Cut(future, ".")
	later := "9" + exp // the same MAC with a later expiry
	for _, c := range []struct {
		name, token, id string
		want            int
	}{
		{"future", future, "s-1", 202},
		{"future, upper-case hex", exp + "." + strings.ToUpper(sum), "s-1", 202},
		{"old form, no expiry", SubmissionToken(key, "s-1"), "s-1", 202},
		{"past", past, "s-1", 403},
		{"future, other submission", future, "s-2", 403},
		{"expiry edited", later + "." + sum, "s-1", 403},
		{"MAC alone", sum, "s-1", 403},
		{"no expiry digits", "." + sum, "s-1", 403},
		{"signed expiry", "-" + exp + "." + sum, "s-1", 403},
		{"13 digits", "1" + strings.Repeat("0", 12) + "." + sum, "s-1", 403},
		{"two dots", exp + "." + sum + ".", "s-1", 403},
		{"other secret", SubmissionTokenUntil([]byte("other"), "s-1", time.Now().Add(time.Hour)), "s-1", 403},
	} {
		for _, how := range []string{"query", "header"} {
			path, hdr := "/v1/submissions/"+c.id, []string{"Authorization: Bearer " + c.token}
			if how == "query" {
				path, hdr = path+"?token="+c.token, nil
			}
			if code, body := e.status(path, hdr...); code != c.want {
				t.Errorf("%s (%s): %d %s, want %d", c.name, how, code, body, c.want)
			}
		}
	}
}

// The key is the secret's text without the white space a file or an
// editor adds around it; nothing inside is changed.
func TestSecretKeyTrims(t *testing.T) {
	for in, want := range map[string]string{
		"s3cret":                "s3cret",
		"s3cret\n":              "s3cret",
		"  s3cret \t\r\n":       "s3cret",
		"\r\ns3 cret\n\n":       "s3 cret",
		"a1b2c3d4e5f6\n":        "a1b2c3d4e5f6", // hex text stays text
		" \n\t ":                "",
		"s3cret\v":              "s3cret\v", // only space, tab, CR and LF
		"\u00a0s3cret\u00a0\n":  "\u00a0s3cret\u00a0",
		"line1\nline2\n":        "line1\nline2",
		"trailing-spaces   \n ": "trailing-spaces",
	} {
		if got := string(SecretKey(in)); got != want {
			t.Errorf("SecretKey(%q) = %q, want %q", in, got, want)
		}
	}
	if SubmissionToken(SecretKey("s3cret \n"), "s-1") != SubmissionToken([]byte("s3cret"), "s-1") {
		t.Error("a trailing newline changes the tokens")
	}
}

// An expiring token opens its submission up to the second before E and
// never from E on.
func TestExpiryBoundary(t *testing.T) {
	key := []byte(testSecret)
	e := time.Unix(2000000000, 0)
	tok := SubmissionTokenUntil(key, "s-1", e)
	for _, c := range []struct {
		now  time.Time
		want bool
	}{
		{e.Add(-time.Second), true},
		{e.Add(-time.Millisecond), true},
		{e, false},
		{e.Add(time.Hour), false},
	} {
		if got := tokenOpens(key, tok, "s-1", c.now); got != c.want {
			t.Errorf("at %v (expiry %v): opens=%v, want %v", c.now.UTC(), e.UTC(), got, c.want)
		}
	}
	if tokenOpens(key, tok, "s-2", e.Add(-time.Hour)) {
		t.Error("the token opens another submission")
	}
}
