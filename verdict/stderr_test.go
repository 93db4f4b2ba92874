package verdict

import (
	"context"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// fillStderrC prints the right answer, then floods stderr forever
// (DOMjudge's test-fill-stderr); floodStdoutC floods stdout instead.
const (
	fillStderrC = `#include <stdio.h>
int main(void){long long a,b;if(scanf("%lld %lld",&a,&b)!=2)return 1;printf("%lld\n",a+b);fflush(stdout);
for(;;)fputs("Fill stderr with nonsense, to test the judge's stability.\n",stderr);}
`
	floodStdoutC = `#include <stdio.h>
int main(void){long long a,b;if(scanf("%lld %lld",&a,&b)!=2)return 1;for(;;)printf("%lld\n",a+b);}
`
)

// A stderr flood is never a verdict of its own: the first 64 KiB are kept
// (and dropped), the rest drained, and the time limit ends the run, TLE.
// A stdout flood past the output limit stays OLE.
func TestOutputFloods(t *testing.T) {
	j := testJudge(t)
	p := sumPackage(t, "name: floods\nlimits:\n  output: 1\n")
	for _, tc := range []struct {
		name, src string
		want      Verdict
		sources   []string
	}{
		{"stderr", fillStderrC, TLE, []string{sandbox.SourceCPU, sandbox.SourceWall}},
		{"stdout", floodStdoutC, OLE, []string{sandbox.SourceFileSize}}, // stdout is a file: RLIMIT_FSIZE
	} {
		res := j.Judge(context.Background(), p, Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(tc.src)}}, Options{})
		if res.Verdict != tc.want || len(res.Tests) != 1 {
			t.Errorf("%s flood: verdict %s with %d tests (%s), want %s", tc.name, res.Verdict, len(res.Tests), res.Error, tc.want)
			continue
		}
		if src := res.Tests[0].VerdictSource; src != tc.sources[0] && src != tc.sources[len(tc.sources)-1] {
			t.Errorf("%s flood: verdict_source %s, want one of %v", tc.name, src, tc.sources)
		}
	}
}
