package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/docketjudge/docket/sandbox/fswatch"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/sandbox/nsinit"
	"github.com/docketjudge/docket/sandbox/seccomp"
	"github.com/docketjudge/docket/sandbox/seccomp/load"
	"golang.org/x/sys/unix"
)

// The fast path of a run as root with mount and pid namespaces: instead
// of executing the docket binary as the helper, which then builds the
// whole root, Start takes a helper the Sandbox's zygote
// (sandbox/nsinit/zygote.c) forked ahead of time, a "spare", already in
// fresh namespaces and in a private copy of a template root prepared once
// per set of binds, and hands it the run's descriptors. The helper and its
// protocol are the same from there on; Start falls back to an exec'd
// helper whenever the fast path is not available (a template that does not
// build, a box that cannot be cloned, a zygote that is gone).

// templateTTL bounds how long a template reflects the host's mounts: a
// template older than this is rebuilt on its next use. (A bind source or
// mask that is replaced, a new inode at its path, is caught on every use:
// the kernel reports it to the template's watch, or its stamp differs.)
const templateTTL = 10 * time.Second

// sparesPerTemplate is how many spare helpers wait on each template: one
// for the next run and one for a run of another slot at the same time.
const sparesPerTemplate = 2

type fastPath struct {
	mu        sync.Mutex
	z         *nsinit.Zygote
	thread    chan func() // runs a function on the zygote's OS thread
	templates map[string]*template
	nextID    uint32
	closed    bool
	failed    bool // the zygote could not be started: helpers are exec'd
	flags     uintptr
	pre       load.Program  // the spares' pre-filter (seccomp.PreFilter), nil without seccomp
	runs      int           // starts seen without a zygote
	starting  bool          // warmUp is under way
	ready     chan struct{} // closed when the current warmUp has ended
}

// warmAfter is how many runs exec their helpers before the zygote is
// started: a command that runs its program once (docket exec) never pays
// for a zygote it would not use again.
const warmAfter = 1

// template is one of the zygote's template roots and its spare helpers.
type template struct {
	id      uint32
	built   time.Time
	used    time.Time
	stamps  []stamp
	watch   *fswatch.Watch // the bind sources and masks marked, or nil: the stamps are taken again
	spares  []*spare
	refills int  // spares being forked
	dropped bool // no longer in use: spares forked for it are discarded
}

type spare struct {
	s    *nsinit.Spare
	proc *os.Process
	pre  bool // it loaded the pre-filter: its run's target loads the delta
}

// discard lets a spare go and reaps it: it is docket's child.
func (sp *spare) discard() {
	sp.s.Discard()
	go sp.proc.Wait()
}

// stamp is the identity of a bind source or mask when its template was
// built: what it was (or that it was missing).
type stamp struct {
	path     string
	follow   bool // stat (masks follow links), else lstat (binds)
	dev, ino uint64
	mode     uint32
	missing  bool
}

func takeStamp(path string, follow bool) stamp {
	s := stamp{path: path, follow: follow}
	var st unix.Stat_t
	var err error
	if follow {
		err = unix.Stat(path, &st)
	} else {
		err = unix.Lstat(path, &st)
	}
	if err != nil {
		s.missing = true
		return s
	}
	s.dev, s.ino, s.mode = st.Dev, st.Ino, st.Mode&unix.S_IFMT
	return s
}

func (t *template) fresh(now time.Time) bool {
	if now.Sub(t.built) > templateTTL {
		return false
	}
	if t.watch != nil {
		return !t.watch.Changed()
	}
	for _, s := range t.stamps {
		if takeStamp(s.path, s.follow) != s {
			return false
		}
	}
	return true
}

// watchRoot marks a template's bind sources (what each names, as lstat
// sees it) and masks (what each resolves to), so that fresh needs no
// stat of them; nil where one cannot be marked (fswatch.ErrNotWatchable,
// no inotify): fresh then takes the stamps again.
func watchRoot(binds []mount.Bind, masks []string) *fswatch.Watch {
	return newWatch(func(w *fswatch.Watch) (err error) {
		for _, b := range binds {
			err = errors.Join(err, w.Path(b.Source))
		}
		for _, m := range masks {
			err = errors.Join(err, w.Target(m))
		}
		return err
	})
}

func (t *template) close() { t.watch.Close() }

// fastEligible: the Sandbox can use the zygote at all.
func (s *Sandbox) fastEligible() bool {
	if s.cfg.ExecHelpers || !s.caps.Root || !s.caps.hasNS("mnt") || !s.caps.hasNS("pid") {
		return false
	}
	// A template mounts the masks before the box; a full build, after.
	for _, m := range s.masks {
		if m == BoxDir || strings.HasPrefix(m, BoxDir+"/") {
			return false
		}
	}
	return true
}

// startFast starts the run's helper from the zygote: a spare if one is
// ready, else one forked now. It returns the helper's process, or nil when
// the caller must exec the helper itself, and a function to call once the
// run is over (Cmd.refillSpares), which forks the spares that replace the
// one taken (not earlier: the zygote would compete with this helper's
// setup and the target for the CPU and the kernel's namespace locks).
// binds are the root's binds; run has
// the request and status pipes, stdio, and the box and /tmp as detached
// mounts.
func (s *Sandbox) startFast(binds []mount.Bind, flags uintptr, run nsinit.RunFiles) (h fastHelper, refill func(), err error) {
	none := func() {}
	flags &^= unix.CLONE_NEWNS // the template's copy is the new mount namespace
	f := &s.fast
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.failed {
		return h, none, nil
	}
	if f.z == nil {
		// Started in the background once a second run comes; until it
		// is ready, helpers are exec'd.
		if f.runs++; f.runs > warmAfter {
			f.warmUp(s, binds)
		}
		return h, none, nil
	}
	t := f.template(s, binds)
	if t == nil {
		return h, none, nil
	}
	refill = func() {
		f.mu.Lock()
		f.refill(t)
		f.mu.Unlock()
	}
	if flags == f.flags {
		// A spare has this run's namespaces: take one if one is ready.
		for len(t.spares) > 0 {
			sp := t.spares[0]
			t.spares = t.spares[1:]
			if err := sp.s.Run(run); err == nil {
				return fastHelper{sp.proc, sp.pre}, refill, nil
			}
			go sp.proc.Wait() // it died waiting: reap it, try the next
		}
	}
	pid, err := f.z.Clone(t.id, flags, run)
	var ze *nsinit.ZygoteError
	switch {
	case err == nil:
		// Our child (the zygote forks it with CLONE_PARENT): on Linux
		// FindProcess opens a pidfd to wait on and signal it.
		p, _ := os.FindProcess(pid)
		return fastHelper{proc: p}, refill, nil
	case errors.As(err, &ze):
		return h, refill, &SetupError{"start helper", err}
	default: // gone: exec this helper, start a new zygote next time
		f.reset()
		return h, none, nil
	}
}

// fastHelper is a helper the zygote forked: proc nil when there is none
// (the caller execs one); pre when it loaded the pre-filter.
type fastHelper struct {
	proc *os.Process
	pre  bool
}

// preFilter is the filter spares load before their run (seccomp's
// PreFilter) where runs have seccomp filters, else nil; nil too should it
// not assemble, and runs then load their whole filter.
func (s *Sandbox) preFilter() load.Program {
	if !s.caps.Seccomp {
		return nil
	}
	pre, err := seccomp.PreFilter()
	if err != nil {
		return nil
	}
	return pre
}

// spareFlags are the namespaces spares are forked into: those of a run
// that keeps no network, but the mount namespace (the template's copy).
func (s *Sandbox) spareFlags() uintptr { return s.runFlags(false) &^ unix.CLONE_NEWNS }

// refill forks spares for t in the background, up to sparesPerTemplate.
// Called with f.mu held; the zygote is asked without it, so a run of
// another slot never waits for a spare it does not take.
func (f *fastPath) refill(t *template) {
	z, flags, pre := f.z, f.flags, f.pre
	if z == nil || t.dropped {
		return
	}
	for len(t.spares)+t.refills < sparesPerTemplate {
		t.refills++
		go func() {
			s, err := z.Spare(t.id, flags, pre)
			var sp *spare
			if err == nil {
				p, _ := os.FindProcess(s.Pid)
				sp = &spare{s: s, proc: p, pre: pre != nil}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			t.refills--
			switch {
			case err != nil:
				if errors.Is(err, nsinit.ErrZygoteGone) && f.z == z {
					f.reset()
				}
			case t.dropped || f.z != z:
				sp.discard()
			default:
				t.spares = append(t.spares, sp)
			}
		}()
	}
}

// warmUp starts the zygote in the background, with a template for binds
// and its spares. Called with f.mu held.
func (f *fastPath) warmUp(s *Sandbox, binds []mount.Bind) {
	if f.starting || f.closed || f.failed || f.z != nil {
		return
	}
	f.starting = true
	f.ready = make(chan struct{})
	if f.thread == nil {
		// The zygote is started on a locked OS thread of its own that
		// outlives it: the zygote's and every helper's parent-death
		// signal follow that thread, which Go would otherwise be free to
		// end.
		f.thread = make(chan func())
		go func(th chan func()) {
			runtime.LockOSThread() // never unlocked: the thread ends with the Sandbox
			for fn := range th {
				fn()
			}
		}(f.thread)
	}
	thread, ready := f.thread, f.ready
	go func() {
		defer close(ready)
		started := make(chan struct{})
		var z *nsinit.Zygote
		var err error
		thread <- func() {
			z, err = nsinit.StartZygote(func(c *exec.Cmd) error { return c.Start() })
			close(started)
		}
		<-started
		f.mu.Lock()
		defer f.mu.Unlock()
		f.starting = false
		switch {
		case f.closed:
			if z != nil {
				z.Close()
			}
			close(f.thread) // close left it to this
			f.thread = nil
		case err != nil:
			f.failed = true
		default:
			f.z, f.flags, f.templates = z, s.spareFlags(), map[string]*template{}
			f.pre = s.preFilter()
			if t := f.template(s, binds); t != nil {
				f.refill(t)
			}
		}
	}()
}

// reset ends the zygote and every template and spare: the next run
// starts a new one.
func (f *fastPath) reset() {
	for k := range f.templates {
		f.dropLocal(k)
	}
	if f.z != nil {
		f.z.Close()
		f.z = nil
	}
}

// template returns a fresh template for binds and the masks, building it
// if needed; nil if it does not build.
func (f *fastPath) template(s *Sandbox, binds []mount.Bind) *template {
	var key strings.Builder
	abs := make([]mount.Bind, len(binds))
	for i, b := range binds {
		b.Source = absPath(b.Source)
		abs[i] = b
		key.WriteString(strings.Join([]string{b.Source, b.Target, boolStr(b.Writable), boolStr(b.Optional)}, "\x00"))
		key.WriteByte(1)
	}
	for _, m := range s.masks {
		key.WriteString(m)
		key.WriteByte(2)
	}
	now := time.Now()
	if t, ok := f.templates[key.String()]; ok {
		if t.fresh(now) {
			t.used = now
			return t
		}
		f.drop(key.String())
	}
	if len(f.templates) >= nsinit.MaxTemplates {
		var oldest string
		for k, t := range f.templates {
			if oldest == "" || t.used.Before(f.templates[oldest].used) {
				oldest = k
			}
		}
		f.drop(oldest)
	}
	f.nextID++
	t := &template{id: f.nextID, built: now, used: now}
	// Marks and stamps before the build: a change in between is seen on
	// first use.
	t.watch = watchRoot(abs, s.masks)
	for _, b := range abs {
		t.stamps = append(t.stamps, takeStamp(b.Source, false))
	}
	for _, m := range s.masks {
		t.stamps = append(t.stamps, takeStamp(m, true))
	}
	err := f.z.BuildTemplate(t.id, &mount.Rootfs{MountPoint: s.root, Binds: abs, Masks: s.masks, DevByBind: !s.caps.Root})
	if err != nil {
		t.close()
		// A root that does not build is reported by the exec'd helper's
		// full build, with the same message; a zygote that is gone is
		// started again next time.
		if errors.Is(err, nsinit.ErrZygoteGone) {
			f.reset()
		}
		return nil
	}
	f.templates[key.String()] = t
	return t
}

// drop removes a template: its spares go, the zygote releases it.
func (f *fastPath) drop(key string) {
	t := f.templates[key]
	if t == nil {
		return
	}
	f.dropLocal(key)
	if f.z != nil {
		if err := f.z.DropTemplate(t.id); errors.Is(err, nsinit.ErrZygoteGone) {
			f.reset()
		}
	}
}

func (f *fastPath) dropLocal(key string) {
	t := f.templates[key]
	delete(f.templates, key)
	t.dropped = true
	t.close()
	for _, sp := range t.spares {
		sp.discard()
	}
	t.spares = nil
}

func (f *fastPath) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	f.reset()
	if f.thread != nil && !f.starting {
		close(f.thread) // the locked thread ends
		f.thread = nil
	}
}

// warm starts the zygote now, with the Sandbox's own binds, and waits
// for it: for the tests, which hold both ways of starting helpers to the
// same behaviour. It reports whether the zygote runs.
func (s *Sandbox) warm() bool {
	if !s.fastEligible() {
		return false
	}
	f := &s.fast
	f.mu.Lock()
	f.warmUp(s, s.cfg.Binds)
	ready := f.ready
	f.mu.Unlock()
	if ready != nil {
		<-ready
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.z != nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
