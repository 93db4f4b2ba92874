package bridge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/docketjudge/docket/protocol"
)

// A CMS task's public test is no sample group's: it is under secret/ and
// marked "sample": true (verdict's Test.Public). The contestant's view
// goes by the mark, not the group's name: the public test's feedback
// (the raw outcome of a GroupThreshold comparator, say) is shown, the
// private one's hidden, and both keep their verdict and score.
func TestCMSPublicTestShownToContestant(t *testing.T) {
	res := protocol.Result{V: protocol.Version, Verdict: protocol.AC, Score: 40, MaxScore: 100, FeedbackPolicy: protocol.FeedbackSamples,
		Tests: []protocol.TestResult{
			{Name: "secret/subtask1/000", Group: "secret/subtask1", Sample: true, Verdict: protocol.AC, Score: 40, Feedback: "Correct (outcome 1.5, threshold 2)"},
			{Name: "secret/subtask2/001", Group: "secret/subtask2", Sample: false, Verdict: protocol.WA, Score: 0, Feedback: "Not correct (outcome 1.75, threshold 1)"},
		}}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	out, err := contestantResult(data)
	if err != nil {
		t.Fatal(err)
	}
	var view protocol.Result
	if err := json.Unmarshal(out, &view); err != nil {
		t.Fatal(err)
	}
	if len(view.Tests) != 2 || view.Tests[0].Feedback != res.Tests[0].Feedback || view.Tests[1].Feedback != "" || strings.Contains(string(out), "1.75") ||
		view.Tests[1].Verdict != protocol.WA || view.Tests[0].Score != 40 || view.Score != 40 {
		t.Errorf("contestant's view: %s", out)
	}
}
