package cgroup

import "golang.org/x/sys/unix"

func isCgroup2(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return st.Type == cgroup2Magic
}
