package fswatch

import (
	"bytes"
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// Changed reports whether anything marked may have changed since it was
// marked: an event that matters, events lost to an overflow, or a change
// of the mount table (a mount over a marked path changes what it names
// without an event of its own). Once true, it stays true.
func (w *Watch) Changed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed || w.closed {
		return true
	}
	gen, err := mountGeneration()
	w.changed = w.drain() || err != nil || gen != w.mounts
	return w.changed
}

// drain reads every event queued and reports whether one matters; an
// error of the read other than "nothing queued" counts as a change.
func (w *Watch) drain() bool {
	var buf [4096]byte
	changed := false
	for {
		n, err := unix.Read(w.fd, buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return changed
		}
		if err != nil || n <= 0 {
			return true
		}
		changed = w.matters(buf[:n]) || changed
	}
}

// matters reports whether one of the events in b is a change of what is
// marked.
func (w *Watch) matters(b []byte) bool {
	changed := false
	for len(b) >= unix.SizeofInotifyEvent {
		wd := int(int32(binary.NativeEndian.Uint32(b[0:4])))
		mask := binary.NativeEndian.Uint32(b[4:8])
		size := int(binary.NativeEndian.Uint32(b[12:16]))
		end := unix.SizeofInotifyEvent + size
		if end > len(b) {
			return true // cannot happen: the kernel returns whole events
		}
		name := bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00")
		b = b[end:]
		m := w.marks[wd]
		switch {
		case mask&unix.IN_Q_OVERFLOW != 0, m == nil, m.any:
			changed = true
		case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0:
			changed = true
		case m.names[string(name)]:
			changed = true
		}
	}
	return changed
}

// Close lets the marks go. Freeing an inotify instance with marks waits
// for the kernel's readers (an SRCU grace period), so it is done in the
// background: Close itself returns at once. A nil Watch has nothing to
// close.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	go unix.Close(w.fd)
}
