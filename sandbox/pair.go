package sandbox

import (
	"errors"
	"os"
	"sync"
)

// RunPair runs two commands connected stdin<->stdout (a's stdout feeds
// b's stdin and b's stdout feeds a's stdin), each in its own sandbox with
// its own limits and measurements: an interactive submission and its
// interactor. Their Stdin and Stdout must be unset. Each side's stderr
// follows its Cmd.Stderr.
//
// Result.First tells which side ended first, and the order is causal, not
// a comparison of two clocks: docket keeps its own copies of each side's
// two pipe ends until it has seen that side end (exit status read, kill
// ordered or helper reaped), as problemtools' interactive.cc keeps the
// write ends. So the other side can read EOF, or die of SIGPIPE, only
// after the first end was recorded, and its own end comes later.
//
// Each side made with CommandContext is killed when its context ends;
// give both the same context so that a cancelled judging ends the pair
// at once, and the error then matches ErrCanceled.
func RunPair(a, b *Cmd) (*Result, *Result, error) {
	if a.Stdin != nil || a.Stdout != nil || b.Stdin != nil || b.Stdout != nil {
		return nil, nil, errors.New("sandbox: RunPair wires stdin and stdout itself")
	}
	aToB, bIn, err := pipe()
	if err != nil {
		return nil, nil, err
	}
	bToA, aIn, err := pipe()
	if err != nil {
		aToB.Close()
		bIn.Close()
		return nil, nil, err
	}
	a.Stdout, b.Stdin = aToB, bIn
	b.Stdout, a.Stdin = bToA, aIn
	var order endOrder
	a.onEnd = order.hook(a, aToB, aIn)
	b.onEnd = order.hook(b, bToA, bIn)
	if err := a.Start(); err != nil {
		closeFiles(aToB, bIn, bToA, aIn)
		return nil, nil, err
	}
	if err := b.Start(); err != nil {
		closeFiles(bToA, bIn)
		a.kill(SE, SourceSandbox)
		a.Wait()
		return nil, nil, err
	}
	var ra, rb *Result
	var wa, wb error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ra, wa = a.Wait() }()
	go func() { defer wg.Done(); rb, wb = b.Wait() }()
	wg.Wait()
	if ra != nil && rb != nil {
		ra.First, rb.First = order.first == a, order.first == b
	}
	return ra, rb, errors.Join(wa, wb)
}

// endOrder records which side of a pair ended first.
type endOrder struct {
	mu    sync.Mutex
	first *Cmd
}

// hook is c's end hook: c is first unless the other side was, and
// docket's copies of c's pipe ends close only now, so that the other side
// sees c's end (EOF on its stdin, SIGPIPE on its stdout) after it was
// recorded.
func (o *endOrder) hook(c *Cmd, own ...*os.File) func() {
	return func() {
		o.mu.Lock()
		if o.first == nil {
			o.first = c
		}
		o.mu.Unlock()
		closeFiles(own...)
	}
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// pipe returns (writer, reader).
func pipe() (*os.File, *os.File, error) {
	r, w, err := os.Pipe()
	return w, r, err
}
