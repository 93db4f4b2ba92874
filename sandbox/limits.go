package sandbox

import "time"

// Limits bound one run. The zero value is safe: every unset field gets
// the default below, never "unlimited".
type Limits struct {
	CPUTime  time.Duration // user+system CPU of the whole tree; default 10s
	WallTime time.Duration // monotonic wall clock from release; default 2×CPUTime+1s
	Memory   int64         // bytes, enforced by the memory cgroup (swap off); default 256 MiB

	// Processes is the number of processes the run may have. 1 (the
	// default) refuses fork, vfork and non-thread clone with EPERM while
	// threads still work. Above 1 the pids cgroup allows Processes tasks
	// (threads count, as in isolate's --processes).
	Processes int
	// Threads bounds the tasks (threads) of a single-process run; default 64.
	Threads int

	// Stdout is the bytes of stdout before OLE (pipes and files); of both
	// streams together when Cmd.Stdout and Cmd.Stderr are one writer.
	// Default 64 MiB.
	Stdout int64
	Stderr int64 // bytes of stderr kept and allowed; default 1 MiB
	// TruncateStderr keeps the first Stderr bytes of a piped stderr and
	// reads and drops the rest instead of ending the run OLE: a program's
	// diagnostics are never its answer, so a flood only burns its own time
	// until a time limit ends it (TLE), as DOMjudge's test-fill-stderr
	// expects. Result.StderrDropped counts what was dropped. An *os.File
	// stderr is not a pipe: FileSize still bounds it; a stderr shared with
	// Stdout is capped with it, as stdout.
	TruncateStderr bool
	// FileSize is RLIMIT_FSIZE, the largest file the run may write
	// (SIGXFSZ → OLE "file_size"); default Stdout.
	FileSize     int64
	OpenFiles    int   // RLIMIT_NOFILE; default 64
	Stack        int64 // RLIMIT_STACK; default Memory
	AddressSpace int64 // RLIMIT_AS; default unlimited, never the worker's own: a limit breaks the JVM, Go and ASan
	// Disk is how many bytes the run may write to /box and /tmp together
	// (beyond what the box held at the start), and DiskInodes how many
	// files, directories and links it may create there. Both are one
	// tmpfs of the run's own; the pages it writes are charged to Memory
	// as well. Passing either ends the run OLE "disk". Defaults 64 MiB
	// and 4096.
	Disk       int64
	DiskInodes int
	// CPUs pins the run with a cpuset ("1", "0-1"); "" leaves it unpinned.
	CPUs string
}

// withDefaults fills every unset field.
func (l Limits) withDefaults() Limits {
	if l.CPUTime <= 0 {
		l.CPUTime = 10 * time.Second
	}
	if l.WallTime <= 0 {
		l.WallTime = 2*l.CPUTime + time.Second
	}
	if l.Memory <= 0 {
		l.Memory = 256 << 20
	}
	if l.Processes <= 0 {
		l.Processes = 1
	}
	if l.Threads <= 0 {
		l.Threads = 64
	}
	if l.Stdout <= 0 {
		l.Stdout = 64 << 20
	}
	if l.Stderr <= 0 {
		l.Stderr = 1 << 20
	}
	if l.FileSize <= 0 {
		l.FileSize = l.Stdout
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = 64
	}
	if l.Stack <= 0 {
		l.Stack = l.Memory
	}
	if l.Disk <= 0 {
		l.Disk = 64 << 20
	}
	if l.DiskInodes <= 0 {
		l.DiskInodes = 4096
	}
	return l
}

// tasks is the pids cgroup limit. The helper, the run's init, is never
// in the group: the target joins it alone.
func (l Limits) tasks() int64 {
	if l.Processes > 1 {
		return int64(l.Processes)
	}
	return int64(l.Threads)
}
