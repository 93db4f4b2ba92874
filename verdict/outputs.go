package verdict

import (
	"errors"
	"io/fs"
	"os"
)

// testOutputs are the output files of one slot's batch tests checked by
// the default comparison: two names used in turn, each removed and made
// anew in the background once its test is over, for the test after next.
// On ext4 the removal and creation took about 80 µs of every test here,
// most of a judge's time outside its runs; made ahead, a test opens
// nothing for its output. A file is always a new one, never one
// truncated (newOutput says why).
type testOutputs struct {
	names [2]string
	ahead [2]chan madeOutput // the file made ahead for names[i], if any
	n     int                // tests handed a file so far
}

type madeOutput struct {
	f   *os.File
	err error
}

func newTestOutputs(path string) *testOutputs {
	return &testOutputs{names: [2]string{path + "-a", path + "-b"}}
}

// take is the next test's output file: made ahead, or made now.
func (o *testOutputs) take() (*os.File, error) {
	i := o.n % 2
	o.n++
	if ch := o.ahead[i]; ch != nil {
		o.ahead[i] = nil
		if m := <-ch; m.err == nil {
			return m.f, nil
		}
	}
	return newOutput(o.names[i])
}

// done says the test given f is over (its output read): its file is
// replaced by a new one in the background, which a later take returns.
func (o *testOutputs) done(f *os.File) {
	i := 0
	if f.Name() == o.names[1] {
		i = 1
	}
	ch := make(chan madeOutput, 1)
	o.ahead[i] = ch
	go func() {
		f, err := newOutput(o.names[i])
		ch <- madeOutput{f, err}
	}()
}

// close waits for the files made ahead and closes them; they are removed
// with the workspace.
func (o *testOutputs) close() {
	for i, ch := range o.ahead {
		if ch != nil {
			if m := <-ch; m.err == nil {
				m.f.Close()
			}
			o.ahead[i] = nil
		}
	}
}

// newOutput makes a run's output file at path, a new one: the last
// test's is removed, not truncated. ext4 writes out a file whose written
// data is truncated away (its auto_da_alloc, for programs that rewrite a
// file in place), which took about 0.3 ms of every test here, most of the
// judge's time outside its runs.
func newOutput(path string) (*os.File, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}
