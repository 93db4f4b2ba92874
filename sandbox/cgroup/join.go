package cgroup

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// JoinFiles opens, for writing, the file of each directory AddProc would
// write (one per v1 hierarchy, a kept group's cpuset only for a pinned
// run; one on v2) through which a process moves itself in, in the same
// order. A single-threaded process that writes "0" to each joins the
// group: the sandbox's target does so itself, just before it gives up
// root, so the helper that starts it never enters the group. The kernel
// checks the opener's credentials (docket's), not the writer's. The
// caller closes the files.
//
// On v1 the file is `tasks`, not `cgroup.procs`: "0" written there moves
// the writing thread alone, which the kernel does without the write side
// of its global cgroup_threadgroup_rwsem. Taking that lock waits for an
// RCU grace period when it has been idle (about 10 ms here: most of a
// `docket-exec` command's time) and sends every fork and exit on the
// host down a slow path meanwhile. The target is forked without
// CLONE_THREAD, so its one thread is the whole process. v2 has no such
// file (cgroup.threads moves a thread only within one domain).
func JoinFiles(g Group) ([]*os.File, error) {
	j, ok := g.(interface{ joinFiles() []string })
	if !ok {
		return nil, fmt.Errorf("cgroup: join files of a %T", g)
	}
	paths := j.joinFiles()
	files := make([]*os.File, 0, len(paths))
	for _, p := range paths {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// CloneDir opens a v2 group's directory for clone3's CLONE_INTO_CGROUP:
// a process started into it is in the group from its first instruction,
// and the kernel seeds the group under the read side of its threadgroup
// lock, which a write to cgroup.procs takes for writing (JoinFiles). v1
// has no such clone: an error. The kernel checks such a clone against the
// caller's cgroup namespace: under nsdelegate (systemd's default) it
// refuses a group outside that namespace, so the caller must not be in
// one rooted beside the group (the sandbox's helper has none of its own;
// its target makes one once started). The caller closes the file.
func CloneDir(g Group) (*os.File, error) {
	v2, ok := g.(*v2Group)
	if !ok {
		return nil, fmt.Errorf("cgroup: no directory to start a process in for a %T (cgroup v2 only)", g)
	}
	fd, err := unix.Open(v2.dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: v2.dir, Err: err}
	}
	return os.NewFile(uintptr(fd), v2.dir), nil
}
