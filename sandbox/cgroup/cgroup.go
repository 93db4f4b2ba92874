// Package cgroup creates the control groups of sandboxed runs, on cgroup
// v1 (one directory per controller) or v2 (one unified directory),
// beneath docket's own cgroup or a configured parent: one short-lived
// group per run (New), or a group kept from run to run and reset between
// them (Keep), which spares every run a mkdir and an rmdir per controller.
//
// It must not import any other package of docket's.
//
// Creation, limits and deletion are plain mkdir, write and rmdir calls on
// both hierarchies (containerd's libraries would walk every directory on
// Delete with an lstat of each of its files, and their v2 package brings
// protobuf into every binary that imports this one). The few numbers a
// judge needs after every run (CPU time, memory peak, OOM kills) are read
// straight from their files.
package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Version is the cgroup hierarchy in use.
type Version int

// The hierarchies.
const (
	None Version = 0 // no hierarchy in use, or (in Options) let Open choose
	V1   Version = 1 // cgroup v1: one directory per controller
	V2   Version = 2 // cgroup v2: one unified directory
)

// String is "v1", "v2" or "none", as logs and the capability report show
// the version.
func (v Version) String() string {
	switch v {
	case V1:
		return "v1"
	case V2:
		return "v2"
	}
	return "none"
}

// Controller names as the judge uses them, the same on v1 and v2 except
// that v1 accounts CPU in "cpuacct" and v2 in "cpu".
const (
	Memory = "memory"
	Pids   = "pids"
	CPU    = "cpu" // accounting: cpuacct on v1, cpu.stat on v2 (always present)
	Cpuset = "cpuset"
)

// Spec is what one run's cgroup enforces.
type Spec struct {
	MemoryBytes int64  // 0: no limit. Swap is always off (v1 memsw = limit, v2 swap.max = 0).
	Pids        int64  // 0: no limit. Counts threads as well as processes.
	CPUs        string // cpuset to pin the run to ("1", "0-1"); "" leaves it unpinned
}

// Stats are a run's measurements, taken after it ended.
type Stats struct {
	CPU        time.Duration // user+system of every task that was in the group
	User       time.Duration
	System     time.Duration
	MemoryPeak int64  // bytes; 0 when the memory controller is unavailable
	OOMKills   uint64 // kernel OOM kills inside the group
}

// Group is one run's cgroup.
type Group interface {
	// AddProc moves a process (all its threads) into the group.
	AddProc(pid int) error
	// CPUUsage is the group's CPU time so far; cheap enough to poll.
	CPUUsage() (time.Duration, error)
	// Stats reads the final measurements.
	Stats() (Stats, error)
	// Procs lists the processes still in the group.
	Procs() ([]int, error)
	// Delete removes the group; it fails while processes remain.
	Delete() error
}

// Availability says, for each controller, whether runs get it and why not.
type Availability map[string]string // controller -> "" when usable, else the reason

// Usable reports whether a controller can be used.
func (a Availability) Usable(c string) bool {
	r, ok := a[c]
	return ok && r == ""
}

// Manager creates groups on one hierarchy.
type Manager interface {
	Version() Version
	// Controllers says which controllers groups get, and why the others not.
	Controllers() Availability
	// Parent describes where groups are created (for reports).
	Parent() string
	New(name string, spec Spec) (Group, error)
	// Keep creates a group that outlives its run, or takes over one of
	// that name left by an earlier process (a crashed worker), and makes
	// it ready for a run of spec. Between two runs, Reset it. An error
	// wrapping ErrNotReusable means this host cannot reset groups (v2
	// before Linux 6.12): use New for every run.
	Keep(name string, spec Spec) (Kept, error)
}

// Kept is a group kept from one run to the next.
type Kept interface {
	Group
	// Reset makes the group ready for the next run: it applies spec
	// where it differs from the last run's, and makes Stats and CPUUsage
	// count from now on (the memory peak from the memory still charged,
	// which must be little). It refuses while processes remain
	// (ErrNotEmpty), and with an error wrapping ErrNotReusable when the
	// group cannot count afresh (a run left page cache charged to it, or
	// the kernel cannot reset the peak): then Delete it and Keep a new one.
	Reset(spec Spec) error
}

var (
	// ErrNotReusable: a kept group cannot be made to count afresh.
	ErrNotReusable = errors.New("cgroup: group cannot be reused")
	// ErrNotEmpty: a group still holds processes.
	ErrNotEmpty = errors.New("cgroup: processes remain in the group")
)

// ResidualMax is the memory a kept group may still be charged with when
// it is reset, its peak then starting from there. After a run of a small
// program some 0.1-0.7 MiB remain (per-CPU charge batches, kernel objects
// freed late), which a fresh group's peak counts as well; a run that left
// more (files it read for the first time: a compiler's page cache) would
// make the next run's peak start high, so the group is not reused.
const ResidualMax = 1 << 20

// ErrUnavailable is returned by Open when no usable hierarchy exists.
var ErrUnavailable = errors.New("cgroup: no usable cgroup hierarchy")

// UnavailableError means no controller can be used; Controllers says why
// for each.
type UnavailableError struct{ Controllers Availability }

// Error gives ErrUnavailable's text and each controller's reason.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%v: %v", ErrUnavailable, map[string]string(e.Controllers))
}

// Unwrap returns ErrUnavailable, so that errors.Is matches either form.
func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// Options choose the hierarchy and where groups go.
type Options struct {
	// Version forces v1 or v2; None picks the one whose controllers are
	// mounted (v1 on a hybrid host).
	Version Version
	// Parent is a cgroup path (relative to each hierarchy's root, e.g.
	// "/docket") to create groups beneath. Empty: beneath the process's own
	// cgroup, in a "docket" child.
	Parent string
	// Root is the cgroup filesystem root; default /sys/fs/cgroup.
	Root string
	// Trials remembers the directories where creating groups was tried
	// and worked, so that Open need not try again each time (the caller
	// keeps them, as docket does in its state directory). Nil: Open tries
	// every directory.
	Trials Trials
}

// Trials is a record of trial group creations that worked.
type Trials interface {
	// Worked: creating groups in dir was tried and worked.
	Worked(dir string) bool
	// Record notes that creating groups in dir was just tried and worked.
	Record(dir string)
}

// Open detects the hierarchy and prepares the parent cgroup.
func Open(opts Options) (Manager, error) {
	if opts.Root == "" {
		opts.Root = "/sys/fs/cgroup"
	}
	mode := detect(opts.Root)
	v := opts.Version
	if v == None {
		switch mode {
		case modeUnified:
			v = V2
		case modeHybrid, modeLegacy:
			v = V1
		default:
			return nil, ErrUnavailable
		}
	}
	switch v {
	case V1:
		if mode == modeUnified || mode == modeNone {
			return nil, fmt.Errorf("%w: cgroup v1 requested but %s has no v1 controllers", ErrUnavailable, opts.Root)
		}
		return openV1(opts)
	case V2:
		mount := opts.Root
		if mode == modeHybrid {
			mount = opts.Root + "/unified"
		} else if mode != modeUnified {
			return nil, fmt.Errorf("%w: cgroup v2 requested but no cgroup2 mount under %s", ErrUnavailable, opts.Root)
		}
		return openV2(mount, opts)
	}
	return nil, fmt.Errorf("cgroup: unknown version %d", v)
}

type hierMode int

const (
	modeNone hierMode = iota
	modeLegacy
	modeHybrid
	modeUnified
)

const cgroup2Magic = 0x63677270

func detect(root string) hierMode {
	if isCgroup2(root) {
		return modeUnified
	}
	if _, err := os.Stat(root + "/memory"); err != nil {
		if _, err := os.Stat(root + "/pids"); err != nil {
			return modeNone
		}
	}
	if isCgroup2(root + "/unified") {
		return modeHybrid
	}
	return modeLegacy
}

// ownPaths parses /proc/self/cgroup: controller -> path ("" key for v2).
func ownPaths() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// readUint reads a file holding one decimal number.
func (c *ctl) readUint(path string) (uint64, error) {
	b, err := c.read(path)
	if err != nil {
		return 0, err
	}
	return parseUint(b)
}

// parseUint parses a file's one number ("max" being 0).
func parseUint(b []byte) (uint64, error) {
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// readKey finds "key value" in a flat keyed file (cpu.stat, memory.events, oom_control).
func (c *ctl) readKey(path, key string) (uint64, bool, error) {
	b, err := c.read(path)
	if err != nil {
		return 0, false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil, err
		}
	}
	return 0, false, nil
}

// readKeys parses a whole flat keyed file ("key value" lines).
func (c *ctl) readKeys(path string) (map[string]uint64, error) {
	b, err := c.read(path)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
				out[k] = n
			}
		}
	}
	return out, nil
}

// readControl reads a small control file with plain open, read and close.
// (os.ReadFile would also register it with the poller, since cgroup files
// can be polled, and stat it: nine system calls instead of three for each
// of the files read after every run.)
func readControl(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return readFD(fd, path)
}

// writeFile writes a control file: one open, write and close, no create.
func writeFile(path, value string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		_, err = unix.Write(fd, []byte(value))
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := unix.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// readProcs parses a cgroup.procs file.
func (c *ctl) readProcs(path string) ([]int, error) {
	b, err := c.read(path)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids, nil
}

// validName keeps group names to one path element.
func validName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return fmt.Errorf("cgroup: invalid group name %q", name)
	}
	return nil
}

// tryCreate checks that groups can be created in dir, unless opts.Trials
// says it was tried before and worked.
func (opts Options) tryCreate(dir string) error {
	if opts.Trials != nil && opts.Trials.Worked(dir) {
		return nil
	}
	if err := probeCreate(dir); err != nil {
		return err
	}
	if opts.Trials != nil {
		opts.Trials.Record(dir)
	}
	return nil
}

// probeCreate checks that groups can be created in dir (the directory may
// exist, made by root, while this process may not write there).
func probeCreate(dir string) error {
	p := filepath.Join(dir, fmt.Sprintf("probe-%d", os.Getpid()))
	if err := os.Mkdir(p, 0o755); err != nil {
		return fmt.Errorf("cannot create cgroups in %s: %v", dir, err)
	}
	os.Remove(p)
	return nil
}
