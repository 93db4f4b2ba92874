package bridge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// tokenContext is mixed into every per-submission token so that the same
// secret can sign other things later without a token for one meaning
// another.
const tokenContext = "docket-submission-v1:"

// expiringContext is the context of a token with an expiry: a message of
// one kind can never be read as the other's (an id holds no ':', so no
// "docket-submission-v1:<id>" starts with this).
const expiringContext = "docket-submission-until-v1:"

// maxExpiryDigits bounds an expiry's decimal Unix seconds: 12 digits
// reach past the year 30000, and the number cannot overflow int64.
const maxExpiryDigits = 12

// SubmissionToken is the per-submission bridge token for id, without an
// expiry (valid until the secret changes):
//
//	lowercase hex( HMAC-SHA256(secret, "docket-submission-v1:" + id) )
//
// A backend computes the same value with any HMAC library and hands it to
// the browser of the submission's owner; it opens that submission only.
func SubmissionToken(secret []byte, id string) string {
	return mac(secret, tokenContext+id)
}

// SubmissionTokenUntil is a per-submission token that the bridge refuses
// from expiry on:
//
//	E + "." + lowercase hex( HMAC-SHA256(secret, "docket-submission-until-v1:" + E + ":" + id) )
//
// where E is expiry in decimal Unix seconds (bridge/README.md, "Access").
func SubmissionTokenUntil(secret []byte, id string, expiry time.Time) string {
	e := strconv.FormatInt(expiry.Unix(), 10)
	return e + "." + mac(secret, expiringMessage(e, id))
}

func expiringMessage(expiry, id string) string { return expiringContext + expiry + ":" + id }

func mac(secret []byte, msg string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// tokenOpens reports whether tok, either form, opens submission id at
// now under secret. The MAC is compared in constant time; an expired
// token is refused only after its MAC checks out, so that a forged one
// learns nothing from the answer's timing about the expiry.
func tokenOpens(secret []byte, tok, id string, now time.Time) bool {
	expiry, sum, expiring := strings.Cut(tok, ".")
	if !expiring {
		return macEqual(tok, SubmissionToken(secret, id))
	}
	if len(expiry) == 0 || len(expiry) > maxExpiryDigits || strings.Trim(expiry, "0123456789") != "" {
		return false
	}
	if !macEqual(sum, mac(secret, expiringMessage(expiry, id))) {
		return false
	}
	until, err := strconv.ParseInt(expiry, 10, 64)
	return err == nil && now.Unix() < until
}

// macEqual compares a token's hex MAC (either case) with the expected
// one in constant time.
func macEqual(got, want string) bool {
	if len(got) != 2*sha256.Size {
		return false
	}
	g, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	w, _ := hex.DecodeString(want)
	return hmac.Equal(g, w)
}

// secretSpace is what SecretKey trims: what an editor or `echo` adds
// around a secret, and nothing that a generated secret could hold.
const secretSpace = " \t\r\n"

// SecretKey is the HMAC key of a secret's text, from a file or a
// variable: its bytes with leading and trailing spaces, tabs, CRs and
// LFs removed, nothing else changed (a hex secret is not decoded). So
// "s3cret\n" and "s3cret" are the same key, and a backend that reads
// the same file computes the same tokens.
func SecretKey(text string) []byte { return []byte(strings.Trim(text, secretSpace)) }
