// Package sandbox runs one untrusted process (or a connected pair) under
// limits and isolation, and measures it.
//
// It must not import any of docket's packages outside sandbox/: it knows
// nothing of languages, verdicts or queues (langs, verdict, protocol and
// the worker build on it).
//
// It reads like os/exec: a Cmd says what to run, Start and Wait (or Run) do
// it, and the Result says how it ended. What os/exec leaves to the caller
// is done here: the run gets new mount, pid, network, IPC, UTS and cgroup
// namespaces, a read-only minimal root, an unprivileged uid of its slot,
// rlimits, a seccomp filter and a fresh cgroup; a limit hit kills the whole
// tree; afterwards nothing of the run remains.
//
// Layers the host refuses are reported (Sandbox.Capabilities), never
// silently dropped: New fails when the host cannot give the configured
// minimum level.
package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox/cgroup"
	"github.com/docketjudge/docket/sandbox/mount"
	_ "github.com/docketjudge/docket/sandbox/nsinit" // the helper: takes over a re-executed binary
	"github.com/docketjudge/docket/sandbox/rlimit"
	"golang.org/x/sys/unix"
)

// Config is the host-wide sandbox configuration.
type Config struct {
	// StateDir holds the slot locks, the new-root mount point and the
	// temporary boxes. Default /run/docket (root) or $TMPDIR/docket-<uid>.
	StateDir string
	// UIDBase is the first sandbox uid: slot N runs targets as
	// UIDBase+2N and trusted helpers (checkers, interactors) as UIDBase+2N+1.
	UIDBase int
	// CgroupParent: create run cgroups beneath this cgroup path instead of
	// beneath docket's own cgroup.
	CgroupParent string
	// CgroupVersion forces cgroup v1 or v2 (0: auto).
	CgroupVersion int
	// MinLevel is the weakest isolation New accepts; default LevelFull.
	MinLevel Level
	// Binds are the read-only system directories every run sees; default
	// DefaultBinds. Languages add their own per Cmd.
	Binds []mount.Bind
	// DebugLog, when set, receives one JSON line per start (level, layers,
	// failure point): DOCKET_SANDBOX_DEBUG.
	DebugLog string
	// ExecHelpers starts every run's helper by executing the docket
	// binary, building the whole root each time, instead of forking it
	// from the zygote on a prepared template root: the same isolation,
	// about 1 ms slower a run. For comparison and debugging.
	ExecHelpers bool
	// NetNSPerRun gives every run a network namespace of its own, made
	// and torn down with it, instead of its slot's (netns.go): about
	// 0.8 ms more CPU a run (BenchmarkRunCPU), for an operator who wants
	// no namespace shared by consecutive runs even when empty, and for
	// comparison.
	NetNSPerRun bool
	// OneRun says the Sandbox serves a single run, as a one-off command
	// (docket exec) does: nothing is made for a next run (its space and
	// pipes ahead, a cgroup kept and reset for it), which such a command
	// would wait for only to remove. More runs are still correct, only
	// each pays for its own.
	OneRun bool
	// Trace, when set, is called at the end of each step of every run
	// with the step's name and how long it took: where a run's time goes
	// (the tests' phase breakdown). It is called from Start and Wait, at
	// once for runs of several slots, and must be quick.
	Trace func(phase string, d time.Duration)
}

// DefaultBinds are enough for dynamically linked programs and the usual
// interpreters. Missing ones are skipped.
var DefaultBinds = []mount.Bind{
	{Source: "/bin", Optional: true},
	{Source: "/lib", Optional: true},
	{Source: "/lib64", Optional: true},
	{Source: "/lib32", Optional: true},
	{Source: "/usr", Optional: true},
	{Source: "/etc/ld.so.cache", Optional: true},
	{Source: "/etc/alternatives", Optional: true},
}

// Sandbox is the host side: the probed capabilities, the cgroup manager,
// the state directory.
type Sandbox struct {
	cfg    Config
	caps   Capabilities
	cg     cgroup.Manager
	root   string // empty mount point for new roots
	boxes  string // parent of temporary boxes
	masks  []string
	debug  *debugLog
	slotMu sync.Mutex
	slots  map[int]bool
	// id makes run names (cgroups, boxes) unique on the host: pids are
	// not, across pid namespaces.
	id   string
	fast fastPath
	// hidden keeps the detached mounts that hide stdio files' host paths
	// (hiddencache.go).
	hidden hiddenTrees
	// netAhead is the network namespace made while New probes, for the
	// first slot run that needs one (netns_ahead.go).
	netAhead netAhead
	// ceiling caps the runs' rlimits at what the helper may set
	// (rlimit.Ceiling), taken once here.
	ceiling rlimit.Ceiling
}

// RunPrefix starts the names of this sandbox's cgroups and boxes.
func (s *Sandbox) RunPrefix() string { return "r" + s.id }

// DefaultStateDir is the state directory of a Config that names none:
// /run/docket for root, $TMPDIR/docket-<uid> otherwise.
func DefaultStateDir() string {
	if os.Geteuid() == 0 {
		return "/run/docket"
	}
	return filepath.Join(os.TempDir(), "docket-"+strconv.Itoa(os.Geteuid()))
}

// New probes the host and prepares the state directory.
func New(cfg Config) (*Sandbox, error) {
	if cfg.StateDir == "" {
		cfg.StateDir = DefaultStateDir()
	}
	if cfg.UIDBase == 0 {
		cfg.UIDBase = 61000
	}
	if cfg.MinLevel == 0 {
		cfg.MinLevel = LevelFull
	}
	if cfg.Binds == nil {
		cfg.Binds = DefaultBinds
	}
	var idb [6]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return nil, err
	}
	s := &Sandbox{cfg: cfg, slots: map[int]bool{}, id: hex.EncodeToString(idb[:])}
	if abs, err := filepath.Abs(cfg.StateDir); err == nil {
		cfg.StateDir = abs // the zygote resolves paths in its own working directory
		s.cfg.StateDir = abs
	}
	s.root = filepath.Join(cfg.StateDir, "root")
	s.boxes = filepath.Join(cfg.StateDir, "boxes")
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{cfg.StateDir, 0o711}, {s.root, 0o700}, {s.boxes, 0o711}, {filepath.Join(cfg.StateDir, "slots"), 0o700}} {
		if err := os.MkdirAll(d.path, d.mode); err != nil {
			return nil, fmt.Errorf("sandbox: state dir: %w", err)
		}
		os.Chmod(d.path, d.mode)
	}
	// Made while New probes, if runs can take it (slotNetNS, which the
	// probe decides: dropped below if they cannot).
	if os.Geteuid() == 0 && !cfg.NetNSPerRun {
		s.netAhead.start()
	}
	var cgErr error
	trials := loadCgroupTrials(cfg.StateDir, os.Geteuid() != 0)
	cgOpts := cgroup.Options{Version: cgroup.Version(cfg.CgroupVersion), Parent: cfg.CgroupParent}
	if trials != nil {
		cgOpts.Trials = trials // a nil *cgroupTrials in the interface would not be nil
	}
	s.cg, cgErr = cgroup.Open(cgOpts)
	trials.save()
	s.caps = probe(cfg.StateDir, s.cg, cgErr)
	s.ceiling = rlimit.OwnCeiling(s.caps.Root)
	// The worker's own binary is hidden even when it lives under a bound
	// directory such as /usr/local/bin.
	if exe, err := os.Executable(); err == nil {
		s.masks = append(s.masks, exe)
	}
	if s.caps.hasNS("mnt") && s.caps.hasNS("pid") {
		if err := s.probeBox(); err != nil {
			s.caps.withoutBox(err)
		}
	}
	// After the probe box: the log is the runs'.
	if cfg.DebugLog != "" {
		s.debug = &debugLog{path: cfg.DebugLog}
	}
	if !s.slotNetNS() || s.caps.Level < cfg.MinLevel {
		s.netAhead.close()
	}
	if s.caps.Level < cfg.MinLevel {
		return s, &LevelError{Have: s.caps.Level, Want: cfg.MinLevel, Missing: s.caps.Missing()}
	}
	return s, nil
}

// Close ends the Sandbox's zygote, which removes its template roots, and
// its prepared network namespaces. Runs still going are killed; later runs
// exec their helpers. The process's exit does the same.
func (s *Sandbox) Close() error {
	s.fast.close()
	s.hidden.close()
	s.netAhead.close()
	return nil
}

// LevelError means the host cannot give the configured minimum isolation.
type LevelError struct {
	Have, Want Level
	Missing    []string
}

// Error names both levels and the layers missing.
func (e *LevelError) Error() string {
	return fmt.Sprintf("sandbox: isolation level %s is below the required %s: %s",
		e.Have, e.Want, strings.Join(e.Missing, "; "))
}

// Capabilities reports what the host allows and the level in use.
func (s *Sandbox) Capabilities() Capabilities { return s.caps }

// Config returns the configuration with defaults filled in.
func (s *Sandbox) Config() Config { return s.cfg }

// Slot is one judging place: its own uids, box names and cgroup names.
// Two slots never share a uid or a box. A slot runs one untrusted and one
// trusted process at a time (an interactive pair).
type Slot struct {
	sb         *Sandbox
	N          int
	UID, GID   int // untrusted targets
	TrustedUID int // checkers and interactors (gid = TrustedUID)
	lock       *os.File
	mu         sync.Mutex
	seq        uint64
	groups     slotGroups // kept cgroups (slotgroups.go)
	netMu      sync.Mutex
	nets       slotNets   // network namespaces (netns.go)
	teardowns  teardowns  // runs still being torn down (teardown.go)
	ahead      aheadSpace // the next run's space, made ahead (space_ahead.go)
	pipes      pipesAhead // and its pipes (pipes_ahead.go)
}

// Slot claims slot n for this process. Slots are locked with flock(2) on a
// file in the state directory, so several docket processes on one host
// never share one.
func (s *Sandbox) Slot(n int) (*Slot, error) {
	if n < 0 || n > 4096 {
		return nil, fmt.Errorf("sandbox: slot %d out of range", n)
	}
	s.slotMu.Lock()
	defer s.slotMu.Unlock()
	if s.slots[n] {
		return nil, fmt.Errorf("sandbox: slot %d already in use by this process: %w", n, ErrSlotInUse)
	}
	f, err := os.OpenFile(filepath.Join(s.cfg.StateDir, "slots", strconv.Itoa(n)+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox: slot lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("sandbox: slot %d is held by another process: %w", n, ErrSlotBusy)
		}
		return nil, fmt.Errorf("sandbox: slot lock: %w", err)
	}
	s.slots[n] = true
	uid := s.cfg.UIDBase + 2*n
	return &Slot{sb: s, N: n, UID: uid, GID: uid, TrustedUID: uid + 1, lock: f, teardowns: newTeardowns()}, nil
}

// Slot's and AcquireSlot's errors, for errors.Is.
var (
	// ErrSlotBusy means another process holds the slot.
	ErrSlotBusy = errors.New("slot busy")
	// ErrSlotInUse means this process holds the slot (a Slot not released).
	ErrSlotInUse = errors.New("slot in use")
	// ErrNoFreeSlot means every slot is held, here or by other processes.
	ErrNoFreeSlot = errors.New("sandbox: no free slot")
)

// AcquireSlot claims the lowest free slot.
func (s *Sandbox) AcquireSlot() (*Slot, error) {
	for n := 0; n <= 4096; n++ {
		sl, err := s.Slot(n)
		if err == nil {
			return sl, nil
		}
		if !errors.Is(err, ErrSlotBusy) && !errors.Is(err, ErrSlotInUse) {
			return nil, err
		}
	}
	return nil, ErrNoFreeSlot
}

// Release gives the slot back, once every run of it has been torn down.
func (sl *Slot) Release() {
	sl.Settle()
	sl.ahead.close() // after the teardowns, which make it
	sl.pipes.close()
	sl.sb.slotMu.Lock()
	delete(sl.sb.slots, sl.N)
	sl.sb.slotMu.Unlock()
	sl.closeGroups() // before the lock: the names are the lock's
	sl.netMu.Lock()
	sl.nets.close()
	sl.netMu.Unlock()
	if sl.lock != nil {
		sl.lock.Close()
		sl.lock = nil
	}
}

// netNS is the network namespace for the slot's next run, trusted or not,
// and the run's entry number in it (netns.go).
func (sl *Slot) netNS(trusted bool) (*netNS, uint64, error) {
	sl.netMu.Lock()
	defer sl.netMu.Unlock()
	return sl.nets.netNSFor(trusted, &sl.sb.netAhead)
}

// netSettled: the run that entered n as entry is over, every process of
// it gone (netns.go).
func (sl *Slot) netSettled(n *netNS, entry uint64) {
	sl.netMu.Lock()
	defer sl.netMu.Unlock()
	sl.nets.settled(n, entry)
}

// slotNetNS says whether runs that keep no network enter their slot's
// network namespace (netns.go): where the helper can (docket is root, so
// the helper is in no user namespace of its own) and where the namespace
// stays as fresh as a new one (seccomp refuses such runs socket(2)).
func (s *Sandbox) slotNetNS() bool {
	c := &s.caps
	return !s.cfg.NetNSPerRun && c.Root && c.Seccomp && c.cloneflags&unix.CLONE_NEWNET != 0
}

// cgroupInto says the helper starts each run's target inside the run's
// cgroup (clone3 CLONE_INTO_CGROUP, cgroup.CloneDir), and the target then
// makes its own cgroup namespace: on cgroup v2 (v1 joins through `tasks`
// without the lock that this avoids), as root (the helper is in no user
// namespace of its own) and where cgroup namespaces are allowed.
func (s *Sandbox) cgroupInto() bool {
	c := &s.caps
	return c.Root && c.cloneflags&unix.CLONE_NEWCGROUP != 0 && s.cg != nil && s.cg.Version() == cgroup.V2
}

// runFlags are the namespaces a run's helper is started in: every one the
// host allows, but no network namespace of its own with network (the
// host's) or where runs enter their slot's (slotNetNS), and no cgroup
// namespace where its target makes its own (cgroupInto).
func (s *Sandbox) runFlags(network bool) uintptr {
	flags := s.caps.cloneflags
	if network || s.slotNetNS() {
		flags &^= unix.CLONE_NEWNET
	}
	if s.cgroupInto() {
		flags &^= unix.CLONE_NEWCGROUP
	}
	return flags
}

// Sandbox returns the slot's sandbox.
func (sl *Slot) Sandbox() *Sandbox { return sl.sb }

// Command returns a Cmd for this slot, as exec.Command does.
func (sl *Slot) Command(name string, args ...string) *Cmd {
	return &Cmd{Slot: sl, Args: append([]string{name}, args...)}
}

func (sl *Slot) nextSeq() uint64 {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.seq++
	return sl.seq
}
