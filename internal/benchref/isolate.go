package benchref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Isolate is one box of the reference sandbox, isolate v1.10.1, initialised
// for a benchmark and cleaned up after it. Its limits are docket's
// defaults for a test: 1 s of CPU, 3 s of wall time, 256 MiB.
type Isolate struct {
	bin string
	id  int
	// CG is whether isolate's cgroup mode (--cg, memory limited by the
	// cgroup) works on this host; otherwise memory is an address-space limit.
	CG bool
	// Dir is the box's directory on the host, /box inside.
	Dir string
	// madeCG are the parent cgroups initCG created, removed at cleanup.
	madeCG []string
}

// cgParent is the cgroup (in each of isolate's v1 controllers) that
// scripts/isolate.sh's configuration names as the parent of its boxes.
const cgParent = "docket-bench-isolate"

// OpenIsolate finds isolate (scripts/isolate.sh) and initialises box id,
// with --cg when isolate's cgroup mode works here. When there is no isolate
// it returns nil and the reason, and the benchmark skips its column.
func OpenIsolate(tb testing.TB, id int) (*Isolate, error) {
	tb.Helper()
	bin, err := findIsolate()
	if err != nil {
		return nil, err
	}
	i := &Isolate{bin: bin, id: id}
	if why := i.initCG(); why != nil {
		tb.Logf("isolate without --cg (memory as an address-space limit): %v", why)
		if err := i.init(); err != nil {
			return nil, err
		}
	}
	tb.Cleanup(func() {
		i.command("--cleanup").Run()
		i.removeCG()
	})
	return i, nil
}

// removeCG removes the parent cgroups initCG made, once isolate's box is
// cleaned up: the benchmark leaves no cgroup behind. One that still holds
// a box (another benchmark's isolate) stays: rmdir refuses it.
func (i *Isolate) removeCG() {
	for _, dir := range i.madeCG {
		os.Remove(dir)
	}
}

// findIsolate runs scripts/isolate.sh from the module's root.
func findIsolate() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd := exec.Command("sh", filepath.Join(root, "scripts/isolate.sh"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/isolate.sh: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// initCG tries isolate's cgroup mode, which on cgroup v1 needs the parent
// cgroup in the memory, cpuacct and cpuset controllers (the last with the
// root's CPUs and memory nodes); the parent is made if missing, and
// removed again when the benchmark ends (removeCG).
func (i *Isolate) initCG() error {
	for _, c := range []string{"memory", "cpuacct", "cpuset"} {
		dir := filepath.Join("/sys/fs/cgroup", c, cgParent)
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", c, "tasks")); err != nil {
			return fmt.Errorf("no cgroup v1 %s controller at /sys/fs/cgroup/%s", c, c)
		}
		switch err := os.Mkdir(dir, 0o755); {
		case err == nil:
			i.madeCG = append(i.madeCG, dir)
		case !errors.Is(err, os.ErrExist):
			return err
		}
	}
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		v, err := os.ReadFile(filepath.Join("/sys/fs/cgroup/cpuset", f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join("/sys/fs/cgroup/cpuset", cgParent, f), v, 0o644); err != nil {
			return err
		}
	}
	i.CG = true
	if err := i.init(); err != nil {
		i.CG = false
		return err
	}
	return nil
}

func (i *Isolate) init() error {
	// A box an earlier run left behind (a benchmark killed half-way, in
	// either mode) makes --init fail; the benchmark's boxes are its own.
	exec.Command(i.bin, "--box-id="+strconv.Itoa(i.id), "--cg", "--cleanup").Run()
	exec.Command(i.bin, "--box-id="+strconv.Itoa(i.id), "--cleanup").Run()
	out, err := i.command("--init").Output()
	if err != nil {
		return fmt.Errorf("isolate --init: %w%s", err, stderrOf(err))
	}
	i.Dir = filepath.Join(strings.TrimSpace(string(out)), "box")
	return nil
}

func (i *Isolate) command(args ...string) *exec.Cmd {
	base := []string{"--box-id=" + strconv.Itoa(i.id)}
	if i.CG {
		base = append(base, "--cg")
	}
	return exec.Command(i.bin, append(base, args...)...)
}

// Command is `isolate --run -- argv...` in the box with the test limits;
// the program inherits the command's stdin and stdout through isolate,
// and isolate exits non-zero when the program fails or passes a limit.
func (i *Isolate) Command(argv ...string) *exec.Cmd {
	limits := []string{"--time=1", "--wall-time=3", "--silent"}
	if i.CG {
		limits = append(limits, "--cg-mem=262144")
	} else {
		limits = append(limits, "--mem=262144")
	}
	return i.command(append(append(limits, "--run", "--"), argv...)...)
}

// Run runs Command(argv...) with the stdin and stdout given; a non-zero
// exit of isolate is an error that includes what isolate said.
//
// isolate 1.10's keeper sometimes fails a run that went well with "Error
// parsing /proc/N/task/N/children: unexpected children found" (it reads
// the list while the kernel changes it); such a run is retried once, from
// the start of stdin when stdin can seek.
func (i *Isolate) Run(stdin io.Reader, stdout io.Writer, argv ...string) error {
	var err error
	for try := 0; try < 2; try++ {
		var out, stderr bytes.Buffer
		cmd := i.Command(argv...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &stderr
		if err = cmd.Run(); err == nil {
			_, err = stdout.Write(out.Bytes())
			return err
		}
		err = fmt.Errorf("isolate --run %s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
		s, ok := stdin.(io.Seeker)
		if !strings.Contains(stderr.String(), "unexpected children found") || !ok {
			return err
		}
		if _, serr := s.Seek(0, io.SeekStart); serr != nil {
			return err
		}
	}
	return err
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}
