package sandbox

import (
	"io"
	"os"
	"strings"
	"testing"
)

// smallStdin takes at most 4096 bytes, all written before the child
// starts (its end for writing closed: the child reads them, then EOF),
// and leaves a larger reader unread for the copying goroutine.
func TestSmallStdin(t *testing.T) {
	var files []*os.File
	big := strings.NewReader(strings.Repeat("x", smallInput+1))
	if in, ok, err := smallStdin(big, &files); ok || err != nil || in != nil || big.Len() != smallInput+1 || len(files) != 0 {
		t.Fatalf("%d bytes: taken %v, %v; %d left unread, %d files", smallInput+1, ok, err, big.Len(), len(files))
	}
	want := strings.Repeat("y", smallInput)
	small := strings.NewReader(want)
	in, ok, err := smallStdin(small, &files)
	if !ok || err != nil || small.Len() != 0 || len(files) != 1 || files[0] != in {
		t.Fatalf("%d bytes: taken %v, %v; %d left unread, %d files", smallInput, ok, err, small.Len(), len(files))
	}
	defer in.Close()
	got, err := io.ReadAll(in) // ends: no writer is left
	if err != nil || string(got) != want {
		t.Errorf("read back %d bytes (%v), want %d", len(got), err, len(want))
	}
}
