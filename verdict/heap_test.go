package verdict

import (
	"testing"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
)

// Only an exit with the language's oom_exit_code is MLE memory_heap; the
// same code from a language without one (C++'s exit(3)), or any other
// ending, is left as the sandbox said.
func TestHeapExhausted(t *testing.T) {
	jvm := &langs.Language{OOMExitCode: 3}
	native := &langs.Language{}
	exit := func(code int) *sandbox.Result {
		return &sandbox.Result{Status: sandbox.RE, Source: sandbox.SourceExitCode, ExitCode: code}
	}
	for _, c := range []struct {
		lang   *langs.Language
		res    *sandbox.Result
		status sandbox.Status
		source string
	}{
		{jvm, exit(3), sandbox.MLE, SourceHeap},
		{jvm, exit(1), sandbox.RE, sandbox.SourceExitCode},
		{native, exit(3), sandbox.RE, sandbox.SourceExitCode},
		{jvm, &sandbox.Result{Status: sandbox.RE, Source: sandbox.SourceSignal, Signal: 3}, sandbox.RE, sandbox.SourceSignal},
		{jvm, &sandbox.Result{Status: sandbox.OK}, sandbox.OK, ""},
	} {
		got := heapExhausted(c.lang, c.res)
		if got.Status != c.status || got.Source != c.source {
			t.Errorf("%+v with oom_exit_code %d: %s %s, want %s %s", *c.res, c.lang.OOMExitCode, got.Status, got.Source, c.status, c.source)
		}
	}
	if heapExhausted(jvm, nil) != nil {
		t.Error("no result became one")
	}
}
