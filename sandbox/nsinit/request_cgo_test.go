//go:build cgo

package nsinit

import (
	"math/rand"
	"reflect"
	"testing"
)

// sameDecoding fails unless the C decoder (request.c) and decodeRequest
// agree on body: the same request, or the same error message.
func sameDecoding(t *testing.T, body []byte) {
	t.Helper()
	goReq, goErr := decodeRequest(body)
	cReq, cErr := decodeRequestC(body)
	if (goErr == nil) != (cErr == nil) || (goErr != nil && goErr.Error() != cErr.Error()) {
		t.Fatalf("decoders disagree on %q:\n  Go: %v\n   C: %v", body, goErr, cErr)
	}
	if goErr == nil && !reflect.DeepEqual(goReq, cReq) {
		t.Fatalf("decoders disagree on %q:\n  Go: %+v\n   C: %+v", body, goReq, cReq)
	}
}

func TestDecodersAgree(t *testing.T) {
	for _, tc := range malformed {
		sameDecoding(t, tc.body)
	}
	sameDecoding(t, encode(t, fullRequest())[4:])
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 5000; i++ {
		body := encode(t, randomRequest(r))[4:]
		sameDecoding(t, body)
		for j := 0; j < 4; j++ {
			body = mutate(r, body)
			sameDecoding(t, body)
		}
	}
}

// FuzzDecoders: go test -fuzz FuzzDecoders ./sandbox/nsinit/
func FuzzDecoders(f *testing.F) {
	f.Add(encode(f, fullRequest())[4:])
	for _, tc := range malformed {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameDecoding(t, body) })
}

// DK_BOX_DIR, every template's box mount point, is BoxDir.
func TestBoxDirAgrees(t *testing.T) {
	if boxDirC != BoxDir {
		t.Fatalf("DK_BOX_DIR is %q, BoxDir %q", boxDirC, BoxDir)
	}
}
