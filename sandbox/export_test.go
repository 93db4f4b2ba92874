package sandbox

import (
	"os"

	"github.com/docketjudge/docket/sandbox/nsinit"
	"golang.org/x/sys/unix"
)

// SetRequestHook has f see (and change) each request as it goes to the
// helper, until the returned function restores none.
func SetRequestHook(f func(*nsinit.Request)) (restore func()) {
	requestHook = f
	return func() { requestHook = nil }
}

// ZygotePid is the pid of the Sandbox's zygote, 0 if none runs.
func ZygotePid(s *Sandbox) int {
	s.fast.mu.Lock()
	defer s.fast.mu.Unlock()
	if s.fast.z == nil {
		return 0
	}
	return s.fast.z.Pid()
}

// SplitSpace says whether runs may have docket clone their space's
// directories (mount.Rootfs.Split), as where the kernel allows it, or
// must send the whole space, as before Linux 6.15. It returns what
// restores the setting.
func SplitSpace(on bool) (restore func()) {
	was := splitRefused.Load()
	splitRefused.Store(!on)
	return func() { splitRefused.Store(was) }
}

// Warm starts the Sandbox's zygote now and waits for it (reporting
// whether it runs); otherwise it starts in the background at the second
// run.
func Warm(s *Sandbox) bool { return s.warm() }

// CgroupParent describes where the Sandbox creates its runs' cgroups
// ("v2 <directory>" on v2), "" without cgroups.
func CgroupParent(s *Sandbox) string {
	if s.cg == nil {
		return ""
	}
	return s.cg.Parent()
}

// SlotNetNS says whether runs that keep no network enter their slot's
// network namespace (netns.go).
func SlotNetNS(s *Sandbox) bool { return s.slotNetNS() }

// Spares is how many spare helpers wait on the Sandbox's templates.
func Spares(s *Sandbox) int {
	s.fast.mu.Lock()
	defer s.fast.mu.Unlock()
	n := 0
	for _, t := range s.fast.templates {
		n += len(t.spares)
	}
	return n
}

// NetChecked says whether the slot's network namespace for the role
// (trusted or not) has been found empty since the last run that entered
// it ended, so that the next run takes it without asking (netns.go).
func NetChecked(sl *Slot, trusted bool) bool {
	sl.netMu.Lock()
	defer sl.netMu.Unlock()
	n := roleNetNS(sl, trusted)
	return n != nil && n.clean
}

// roleNetNS is the slot's network namespace for the role, nil if it has
// none yet; the caller holds the slot's netMu.
func roleNetNS(sl *Slot, trusted bool) *netNS {
	if trusted {
		return sl.nets.trusted
	}
	return sl.nets.untrusted
}

// HoldNetNS gives a new descriptor of the slot's network namespace for
// the role (nil if it has none), which keeps it alive: a namespace's inode
// number is given again to a later one once it is freed, so a test that
// tells two namespaces apart by that number holds the first.
func HoldNetNS(sl *Slot, trusted bool) (*os.File, error) {
	sl.netMu.Lock()
	defer sl.netMu.Unlock()
	n := roleNetNS(sl, trusted)
	if n == nil {
		return nil, nil
	}
	fd, err := unix.FcntlInt(n.ns.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), n.ns.Name()), nil
}

// SpaceReady says whether the slot has its next run's space made ahead.
func SpaceReady(sl *Slot) bool {
	sl.ahead.mu.Lock()
	defer sl.ahead.mu.Unlock()
	return sl.ahead.ready != nil
}
