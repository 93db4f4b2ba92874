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
	errA := a.Start()
	errB := error(nil)
	if errA == nil {
		errB = b.Start()
	}
	// The children hold their ends now; ours would keep a reader from ever
	// seeing EOF when the other side exits.
	for _, f := range []*os.File{aToB, bIn, bToA, aIn} {
		f.Close()
	}
	if errA != nil {
		return nil, nil, errA
	}
	if errB != nil {
		a.kill(SE, SourceSandbox)
		a.Wait()
		return nil, nil, errB
	}
	var ra, rb *Result
	var wa, wb error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ra, wa = a.Wait() }()
	go func() { defer wg.Done(); rb, wb = b.Wait() }()
	wg.Wait()
	return ra, rb, errors.Join(wa, wb)
}

// pipe returns (writer, reader).
func pipe() (*os.File, *os.File, error) {
	r, w, err := os.Pipe()
	return w, r, err
}
