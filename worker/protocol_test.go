package worker

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict"
)

// A job whose file names a compiler would read as options or option
// files is refused at decoding, CE (the contestant chose the names), with
// the cause matchable; ordinary names pass.
func TestDecodeJobFileNames(t *testing.T) {
	job := func(names ...string) []byte {
		files := map[string]string{}
		for _, n := range names {
			files[n] = "int main(){}"
		}
		b, _ := json.Marshal(Job{V: 1, SubmissionID: "s-1", Problem: "aplusb", Language: "c", Files: files})
		return b
	}
	for _, bad := range []string{"@opts", "-o", "-wrapper", "-fplugin=x.so", "--help", ".hidden", "..", "a/b.c", "a b.c", "+x.c"} {
		j, err := DecodeJob(job("main.c", bad), 0)
		var pe *PoisonError
		if !errors.As(err, &pe) || pe.Verdict != verdict.CE || !errors.Is(err, langs.ErrFileName) {
			t.Errorf("file %q: %v, want a CE PoisonError wrapping langs.ErrFileName", bad, err)
		}
		if j == nil || j.SubmissionID != "s-1" {
			t.Errorf("file %q: the submission id was lost: %+v", bad, j)
		}
	}
	for _, good := range [][]string{{"main.c"}, {"Main.java"}, {"sol_1.cpp", "a-b.h"}, {"a+b.c++"}, {"_x.py"}} {
		if _, err := DecodeJob(job(good...), 0); err != nil {
			t.Errorf("files %q refused: %v", good, err)
		}
	}
}
