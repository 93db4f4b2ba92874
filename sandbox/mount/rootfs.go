// Package mount describes a sandboxed run's filesystem: a new root on a
// private tmpfs holding read-only bind mounts of the system and language
// directories (read-only, nosuid and nodev down to every host mount below
// them), the writable box, a size-limited /tmp, a fresh /proc and a
// minimal /dev, then pivot_root into it. Bind and Rootfs are how the
// parent describes that root; the sandbox helper builds it in C, inside a
// new mount namespace, before the uid switch and before the Go runtime
// starts (sandbox/nsinit/rootfs.c and submounts.c). ParseMountinfo reads a
// mount table back, for the checks of a built root.
//
// It must not import any other package of docket's: the sandbox and its
// helper both import it.
package mount

// Bind is one host path made visible inside the sandbox.
type Bind struct {
	Source   string `json:"src"`
	Target   string `json:"dst"` // absolute path inside the sandbox; default Source
	Writable bool   `json:"rw,omitempty"`
	Optional bool   `json:"opt,omitempty"` // a missing Source is skipped instead of failing
}

// Rootfs is everything the helper needs to build the new root.
type Rootfs struct {
	MountPoint string `json:"mp"`   // empty host directory the new root's tmpfs goes on
	Binds      []Bind `json:"b"`    // read-only unless Writable; the box is one of them
	TmpSize    int64  `json:"tmp"`  // bytes; 0: 16 MiB
	Proc       bool   `json:"proc"` // mount a fresh /proc (needs a new pid namespace)
	// DevByBind bind-mounts the host's device nodes instead of mknod, for
	// a user namespace, where mknod is not allowed.
	DevByBind bool `json:"devbind,omitempty"`
	// Masks are host paths hidden behind an empty read-only file when a
	// bind makes them visible (the worker's own binary under /usr/local).
	Masks []string `json:"masks,omitempty"`
	// Template: the root is a copy of the zygote's template root, on which
	// the helper mounts only Binds (the box), /tmp and /proc. Only a
	// helper forked by the zygote builds such a root.
	Template bool `json:"template,omitempty"`
	// FromFDs: the box and /tmp are the directories box and tmp of the
	// run's space, a detached tmpfs the parent made (the run's bounded
	// writable space) on descriptor SpaceFD, instead of a box bind and a
	// /tmp of TmpSize.
	FromFDs bool `json:"fds,omitempty"`
	// Split (with FromFDs): the parent has cloned the space's two
	// directories itself, and sends them as two detached mounts, the box
	// on SpaceFD and /tmp on the descriptor after the cgroup files and
	// the network namespace (dk_space_tmp_fd in sandbox/nsinit/nsinit.h):
	// the helper attaches each and never attaches, clones and detaches
	// the whole space, whose detach waits for an RCU grace period on the
	// run's path. Cloning a detached mount takes Linux 6.15; before, the
	// helper gets the space.
	Split bool `json:"split,omitempty"`
}

// SpaceFD is where a helper finds the run's space with FromFDs.
const SpaceFD = 5
