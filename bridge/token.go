package bridge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// tokenContext is mixed into every per-submission token so that the same
// secret can sign other things later without a token for one meaning
// another.
const tokenContext = "docket-submission-v1:"

// SubmissionToken is the per-submission bridge token for id:
//
//	lowercase hex( HMAC-SHA256(secret, "docket-submission-v1:" + id) )
//
// A backend computes the same value with any HMAC library and hands it to
// the browser of the submission's owner; it opens that submission only.
func SubmissionToken(secret []byte, id string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(tokenContext))
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}
