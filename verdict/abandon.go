package verdict

import (
	"context"
	"errors"
	"fmt"

	"github.com/docketjudge/docket/verdict/problem"
)

// ErrAbandoned is the error of a judging whose context ended before its
// verdict: a worker stopping past its grace period, or one that lost its
// job to another worker. It wraps the context's cause too.
var ErrAbandoned = errors.New("verdict: judging abandoned")

// JudgeOrAbandon is Judge for a caller that may give the judging up.
// When ctx ends first, the sandbox run in progress (a compile, a test,
// a checker, an interactor) is killed at once, nothing further is run,
// the Observer hears nothing more (no skipped tests: the judging is not
// over, it is someone else's now), and the error matches ErrAbandoned
// and ctx's cause, with no result.
func (j *Judge) JudgeOrAbandon(ctx context.Context, p *problem.Problem, sub Submission, opt Options) (*Result, error) {
	res := j.judgeSubmission(ctx, p, sub, opt)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %w", ErrAbandoned, context.Cause(ctx))
	}
	return res, nil
}
