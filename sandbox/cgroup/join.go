package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
)

// JoinFiles opens, for writing, the cgroup.procs file of each directory
// AddProc would write (one per v1 hierarchy, a kept group's cpuset only
// for a pinned run; one on v2), in the same order. A process that writes
// "0" to each joins the group: the sandbox's target does so itself, just
// before it gives up root, so the helper that starts it never enters the
// group. The kernel checks the opener's credentials (docket's), not the
// writer's. The caller closes the files.
func JoinFiles(g Group) ([]*os.File, error) {
	j, ok := g.(interface{ joinDirs() []string })
	if !ok {
		return nil, fmt.Errorf("cgroup: join files of a %T", g)
	}
	dirs := j.joinDirs()
	files := make([]*os.File, 0, len(dirs))
	for _, d := range dirs {
		f, err := os.OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY, 0)
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
