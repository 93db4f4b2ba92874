package worker

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/protocol"
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
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "s-1", Problem: "aplusb", Language: "c", Files: files})
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

// A job's entry_point is a file name or a class name; anything else is
// refused at decoding, CE with the cause matchable (langs.ErrEntryPoint)
// and the submission id kept for the final result.
func TestDecodeJobEntryPoint(t *testing.T) {
	job := func(entry string) []byte {
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "s-1", Problem: "aplusb", Language: "java",
			Files: map[string]string{"Main.java": "class Main {}"}, EntryPoint: entry})
		return b
	}
	for _, good := range []string{"", "main.py", "Main", "contest.a.Sol", "Outer$Inner", "a+b.c++"} {
		j, err := DecodeJob(job(good), 0)
		if err != nil || j.EntryPoint != good {
			t.Errorf("entry point %q: %v, entry %q", good, err, j.EntryPoint)
		}
	}
	for _, bad := range []string{"-cp", "@opts", "../Main", "a/b.py", "Main;rm", "a b", ".Main", "+x", strings.Repeat("A", 2000)} {
		j, err := DecodeJob(job(bad), 0)
		var pe *PoisonError
		if !errors.As(err, &pe) || pe.Verdict != verdict.CE || !errors.Is(err, langs.ErrEntryPoint) {
			t.Errorf("entry point %q: %v, want a CE PoisonError wrapping langs.ErrEntryPoint", bad, err)
			continue
		}
		if j == nil || j.SubmissionID != "s-1" || len(pe.Msg) > maxErrorLen {
			t.Errorf("entry point %q: job %+v, message of %d bytes", bad, j, len(pe.Msg))
		}
	}
}

// A job of output files alone (output_<codename>.txt, a CMS OutputOnly
// task's submission) may have no language; any other job needs one. The
// output files' names are checked as any file's.
func TestDecodeJobOutputFiles(t *testing.T) {
	job := func(names ...string) []byte {
		files := map[string]string{}
		for _, n := range names {
			files[n] = "42\n"
		}
		b, _ := json.Marshal(protocol.Job{V: 1, SubmissionID: "s-1", Problem: "oo", Files: files})
		return b
	}
	if j, err := DecodeJob(job("output_000.txt", "output_1-01.txt"), 0); err != nil || j.Language != "" {
		t.Errorf("output files alone: %v", err)
	}
	for _, names := range [][]string{{"main.c"}, {"output_000.txt", "main.c"}, {}} {
		_, err := DecodeJob(job(names...), 0)
		var pe *PoisonError
		if !errors.As(err, &pe) || pe.Verdict != verdict.SE || !strings.Contains(pe.Msg, "job has no language") {
			t.Errorf("files %q without a language: %v, want SE: no language", names, err)
		}
	}
	_, err := DecodeJob(job("output_../x.txt"), 0)
	var pe *PoisonError
	if !errors.As(err, &pe) || pe.Verdict != verdict.CE || !errors.Is(err, langs.ErrFileName) {
		t.Errorf("output_../x.txt: %v, want a CE PoisonError wrapping langs.ErrFileName", err)
	}
}
