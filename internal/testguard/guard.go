// Package testguard protects the machine that runs docket's tests from a
// sandbox bug. TestMain calls Main: as root, the test binary re-executes
// itself as PID 1 of a new pid namespace, in a private mount namespace, in
// a pids- and memory-limited cgroup. A kill(-1), a mount or a fork bomb
// that slips through a broken sandbox then stays inside the guard and the
// test fails instead of the machine.
//
// It must not import any other package of docket's (the sandbox least of
// all: it guards against its bugs); only tests import it.
package testguard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const envGuarded = "DOCKET_TEST_GUARDED"

// Limits of the guard cgroup.
const (
	guardPids   = 4096
	guardMemory = 8 << 30
)

// Main runs the tests inside the guard and exits.
func Main(m interface{ Run() int }) {
	if os.Getenv(envGuarded) == "1" && fuzzWorker() {
		// A fuzzing worker, started by the guarded coordinator: it is
		// inside the guard already, and its fd 3 is the coordinator's
		// pipe, not the gate.
		os.Exit(m.Run())
	}
	if os.Getenv(envGuarded) == "1" {
		os.Exit(guardedMain(m))
	}
	if os.Geteuid() != 0 {
		// Without root there is no namespace to hide in, and the sandbox
		// itself runs at a weaker level; the tests say so when they skip.
		os.Exit(m.Run())
	}
	os.Exit(parent())
}

// fuzzWorker reports whether this is a `go test -fuzz` worker process
// (the coordinator starts it with -test.fuzzworker first).
func fuzzWorker() bool {
	for _, a := range os.Args[1:] {
		if a == "-test.fuzzworker" || a == "--test.fuzzworker" || a == "-test.fuzzworker=true" {
			return true
		}
	}
	return false
}

// Guarded reports whether the tests run inside the guard.
func Guarded() bool { return os.Getenv(envGuarded) == "1" }

// Rerun runs the tests of this test binary that match the -test.run
// pattern run again, in a child process inside the guard (its pid
// namespace and cgroup), started through the command prefix wrap (such as
// unshare(1)) with env added to this process's environment. It returns the
// child's combined output. (A user namespace needs such a wrapper: a
// threaded process cannot enter one, and the Go runtime writes a child's
// uid_map through /proc/<pid>, which names another process here, where
// /proc is the host's.)
func Rerun(run string, wrap []string, env ...string) ([]byte, error) {
	if !Guarded() {
		return nil, fmt.Errorf("testguard: Rerun outside the guard")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// The child is guarded already: its gate opens at once.
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	gateW.Write([]byte{1})
	gateW.Close()
	defer gateR.Close()
	args := append(append(append([]string{}, wrap...), exe), "-test.run="+run, "-test.count=1")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.ExtraFiles = []*os.File{gateR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd.CombinedOutput()
}

func guardedMain(m interface{ Run() int }) int {
	gate := os.NewFile(3, "gate")
	var b [1]byte
	if n, _ := gate.Read(b[:]); n != 1 {
		fmt.Fprintln(os.Stderr, "testguard: parent did not release the guarded tests")
		return 2
	}
	gate.Close()
	// Mounts made here (and any that escape a sandbox) stay in this namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Fprintln(os.Stderr, "testguard: make / private:", err)
		return 2
	}
	return m.Run()
}

func parent() int {
	gateR, gateW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testguard:", err)
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testguard:", err)
		return 2
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envGuarded+"=1")
	cmd.ExtraFiles = []*os.File{gateR}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
		Pdeathsig:  syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testguard: start guarded tests:", err)
		return 2
	}
	gateR.Close()
	dirs, err := enter(cmd.Process.Pid)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		fmt.Fprintln(os.Stderr, "testguard: cannot build the guard cgroup:", err)
		return 2
	}
	gateW.Write([]byte{1})
	gateW.Close()
	err = cmd.Wait()
	for _, d := range dirs {
		removeTree(d)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			if ee.ExitCode() >= 0 {
				return ee.ExitCode()
			}
			fmt.Fprintln(os.Stderr, "testguard: guarded tests died:", ee)
			return 2
		}
		fmt.Fprintln(os.Stderr, "testguard:", err)
		return 2
	}
	return 0
}

// enter creates the guard cgroup beneath this process's own cgroup (v1
// pids and memory, or v2) and moves the guarded child into it.
func enter(pid int) ([]string, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	name := "docket-test-guard-" + strconv.Itoa(os.Getpid())
	var dirs []string
	if isCgroup2("/sys/fs/cgroup") {
		for _, line := range strings.Split(string(own), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				d := filepath.Join("/sys/fs/cgroup", p, name)
				if err := os.Mkdir(d, 0o755); err != nil {
					return nil, err
				}
				dirs = append(dirs, d)
				// As on v1, no guard without its pids limit. pids.max
				// exists only where the parent enables pids for its
				// children (a delegated cgroup free of processes, or
				// the root: make test-cgroup2 runs the tests there).
				if err := os.WriteFile(filepath.Join(d, "pids.max"), []byte(strconv.Itoa(guardPids)), 0); err != nil {
					return dirs, fmt.Errorf("v2 pids limit for the guard (is pids enabled in %s's cgroup.subtree_control?): %w", filepath.Dir(d), err)
				}
				os.WriteFile(filepath.Join(d, "memory.max"), []byte(strconv.Itoa(guardMemory)), 0)
				return dirs, os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
			}
		}
		return nil, fmt.Errorf("no v2 cgroup in /proc/self/cgroup")
	}
	needPids := false
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl != "pids" && ctl != "memory" {
				continue
			}
			d := filepath.Join("/sys/fs/cgroup", ctl, parts[2], name)
			if err := os.Mkdir(d, 0o755); err != nil {
				return dirs, err
			}
			dirs = append(dirs, d)
			if ctl == "pids" {
				needPids = true
				if err := os.WriteFile(filepath.Join(d, "pids.max"), []byte(strconv.Itoa(guardPids)), 0); err != nil {
					return dirs, err
				}
			} else {
				os.WriteFile(filepath.Join(d, "memory.limit_in_bytes"), []byte(strconv.Itoa(guardMemory)), 0)
			}
			if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
				return dirs, err
			}
		}
	}
	if !needPids {
		return dirs, fmt.Errorf("no v1 pids cgroup for the guard")
	}
	return dirs, nil
}

// removeTree removes a cgroup directory and its (empty) children.
func removeTree(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}

func isCgroup2(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Type == 0x63677270
}
