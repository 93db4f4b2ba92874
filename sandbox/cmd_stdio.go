package sandbox

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
)

// stdio turns the Cmd's reader and writers into files for the child.
// The child's ends go to childFiles; copiers, where a pipe is needed, to
// the run's copiers, which Wait waits for.
func (c *Cmd) stdio(childFiles *[]*os.File) (in, out, errf *os.File, err error) {
	s := c.state
	if in, err = c.stdinFile(childFiles); err != nil {
		return
	}
	out, s.stdout, err = c.outFile(childFiles, c.Stdout, s.lim.Stdout, SourceOutput, false)
	if err != nil {
		return
	}
	if c.Stdout != nil && sameWriter(c.Stdout, c.Stderr) {
		// One pipe: two copiers would write into the one writer at once
		// (a data race) and lose the order of the streams.
		return in, out, out, nil
	}
	errf, s.stderr, err = c.outFile(childFiles, c.Stderr, s.lim.Stderr, SourceStderr, s.lim.TruncateStderr)
	return
}

// stdinFile is the child's stdin: /dev/null for nil, a file as it is
// (hidePath), a small in-memory input written ahead (smallStdin), else a
// pipe fed from the reader.
func (c *Cmd) stdinFile(childFiles *[]*os.File) (*os.File, error) {
	switch r := c.Stdin.(type) {
	case nil:
		// Opened for each run: a shared open file would carry a flock
		// from one run to the next. Not through os.Open, which would
		// try the poller and ask for the descriptor's flags (six system
		// calls to one).
		fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: os.DevNull, Err: err}
		}
		in := os.NewFile(uintptr(fd), os.DevNull)
		*childFiles = append(*childFiles, in)
		return in, nil
	case *os.File:
		return c.hidePath(r, childFiles)
	case *strings.Reader, *bytes.Reader, *bytes.Buffer:
		if in, ok, err := smallStdin(r.(smallReader), childFiles); ok || err != nil {
			return in, err
		}
	}
	return c.stdinPipe(childFiles)
}

// smallReader is an in-memory reader that knows what it has left.
type smallReader interface {
	io.Reader
	Len() int
}

// smallInput is the most stdin written into the pipe before the child
// starts: PIPE_BUF, which fits whole into an empty pipe of any size the
// kernel gives (a single page, for a user past pipe-user-pages-soft).
const smallInput = 4096 // PIPE_BUF on Linux

// smallStdin writes a small in-memory stdin into a pipe of its own at
// once, and closes the pipe's end for writing: no copying goroutine to
// start and wake, no poller for the pipe (a test's input, a+b's "1 2").
// It reports false, having read nothing, for more than smallInput bytes.
func smallStdin(r smallReader, childFiles *[]*os.File) (*os.File, bool, error) {
	if r.Len() > smallInput {
		return nil, false, nil
	}
	var buf [smallInput]byte
	n, _ := io.ReadFull(r, buf[:r.Len()]) // memory: all of it
	rfd, wfd, err := newPipe()
	if err != nil {
		return nil, true, err
	}
	w := os.NewFile(uintptr(wfd), "|1") // blocking: os.File.Write writes it all
	_, err = w.Write(buf[:n])
	w.Close()
	if err != nil {
		syscall.Close(rfd)
		return nil, true, err
	}
	in := os.NewFile(uintptr(rfd), "|0")
	*childFiles = append(*childFiles, in)
	return in, true, nil
}

// stdinPipe is a pipe fed from the Cmd's reader by a goroutine.
func (c *Cmd) stdinPipe(childFiles *[]*os.File) (*os.File, error) {
	pr, pw, err := pipeToChild()
	if err != nil {
		return nil, err
	}
	*childFiles = append(*childFiles, pr)
	copiers := &c.state.copiers
	copiers.Add(1)
	go func(r io.Reader) {
		defer copiers.Done()
		io.Copy(pw, r) // EPIPE when the target stops reading: fine
		pw.Close()
	}(c.Stdin)
	return pr, nil
}

// outFile is the child's end for an output writer: a file as it is
// (hidePath), else a pipe drained into w (or a buffer, for nil) capped
// at limit; past the cap the run ends as OLE from src, unless truncate.
func (c *Cmd) outFile(childFiles *[]*os.File, w io.Writer, limit int64, src string, truncate bool) (*os.File, *capped, error) {
	if f, ok := w.(*os.File); ok {
		f, err := c.hidePath(f, childFiles)
		return f, nil, err
	}
	pr, pw, err := c.state.pipesAhead.outPipe()
	if err != nil {
		return nil, nil, err
	}
	*childFiles = append(*childFiles, pw)
	cp := &capped{w: w, limit: limit, truncate: truncate, onOver: func() { c.kill(OLE, src) }}
	copiers := &c.state.copiers
	copiers.Add(1)
	go func() {
		defer copiers.Done()
		cp.drain(pr)
		pr.Close()
	}()
	return pw, cp, nil
}

// sameWriter is os/exec's test for a shared Stdout and Stderr: interface
// equality, and false for writers that cannot be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a == b
}

// capped copies a pipe into a writer (or its own buffer) and calls onOver
// as soon as more than limit bytes arrive: a cap that holds on pipes, where
// RLIMIT_FSIZE does not apply. With truncate it keeps reading past the
// cap and drops the rest: the writer never blocks, nothing ends the run,
// and docket holds no more than limit bytes and one read buffer.
type capped struct {
	w        io.Writer
	buf      bytes.Buffer
	limit    int64
	n        int64
	over     bool
	truncate bool
	dropped  int64 // bytes read past the cap (truncate)
	onOver   func()
}

// drainBufs are drain's read buffers: two a run (stdout and stderr), which
// would otherwise be 128 KiB for the garbage collector every run.
var drainBufs = sync.Pool{New: func() any { return new([64 << 10]byte) }}

func (cp *capped) drain(r io.Reader) {
	buf := drainBufs.Get().(*[64 << 10]byte)
	defer drainBufs.Put(buf)
	b := buf[:]
	for {
		n, err := r.Read(b)
		if n > 0 && cp.over {
			cp.dropped += int64(n)
		} else if n > 0 {
			cp.take(b[:n])
		}
		if err != nil {
			return
		}
	}
}

// take keeps what fits under the cap; the first byte past it calls onOver,
// or only counts as dropped when the cap truncates.
func (cp *capped) take(b []byte) {
	keep := int64(len(b))
	if cp.n+keep > cp.limit {
		keep = cp.limit - cp.n
		cp.over = true
	}
	if keep > 0 {
		if cp.w != nil {
			cp.w.Write(b[:keep])
		} else {
			cp.buf.Write(b[:keep])
		}
	}
	cp.n += keep
	if !cp.over {
		return
	}
	if cp.truncate {
		cp.dropped += int64(len(b)) - keep
		return
	}
	cp.onOver()
}
