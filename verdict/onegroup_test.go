package verdict

import (
	"context"
	"testing"
)

// A package of data/secret alone, or of data/sample alone, is judged in
// the real sandbox like any other: every test runs, and its verdicts make
// the submission's. In a scoring package the samples score nothing.
func TestOneGroupPackagesJudge(t *testing.T) {
	j := testJudge(t)
	echo := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(
		"#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);return 0;}\n")}}
	minus := Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(
		"#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a-b);return 0;}\n")}}
	for _, tc := range []struct {
		name, group, yaml string
		sample            bool
		maxScore          float64
	}{
		{"only secret", "secret", "name: s\n", false, 1},
		{"only sample", "sample", "name: s\n", true, 1},
		{"scoring, only sample", "sample", "name: s\ntype: scoring\n", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loadPackage(t, map[string]string{
				"problem.yaml":                tc.yaml,
				"data/" + tc.group + "/1.in":  "1 0\n", // a-b is right here
				"data/" + tc.group + "/1.ans": "1\n",
				"data/" + tc.group + "/2.in":  "1 2\n",
				"data/" + tc.group + "/2.ans": "3\n",
			})
			res := j.Judge(context.Background(), p, echo, Options{})
			if res.Verdict != AC || len(res.Tests) != 2 || res.MaxScore != tc.maxScore {
				t.Fatalf("accepted program: %s, %d tests, max score %g (want %g): %s", res.Verdict, len(res.Tests), res.MaxScore, tc.maxScore, res.Error)
			}
			for _, tr := range res.Tests {
				if tr.Verdict != AC || tr.Group != tc.group || tr.Sample != tc.sample {
					t.Errorf("test %s: %s group %s sample %v", tr.Name, tr.Verdict, tr.Group, tr.Sample)
				}
			}
			res = j.Judge(context.Background(), p, minus, Options{})
			if res.Verdict != WA || len(res.Tests) != 2 || res.Tests[0].Verdict != AC || res.Tests[1].Verdict != WA {
				t.Errorf("wrong answer: %s %+v", res.Verdict, res.Tests)
			}
		})
	}
}
