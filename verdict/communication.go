package verdict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/verdict/problem"
)

// A test of a CMS Communication task (cms/grading/tasktypes/
// Communication.py): the task's manager runs beside num_processes
// copies of the submission, each copy in a sandbox of its own (its own
// slot: uid, cgroup, network namespace). Copy i and the manager share
// two FIFOs, u<i>_to_m and m_to_u<i>, in a directory that docket makes
// for the copy's slot and mounts read-only at /fifo<i> in the copy's
// sandbox and in the manager's, as CMS mounts its FIFO directories: no
// other process can open them, and the copies can reach each other
// only through the manager. The manager reads the test's input on its
// stdin (and as input.txt), gets the FIFOs' paths as its arguments,
// and reports as a CMS comparator does: an outcome on stdout, a message
// on stderr.

// communication judges one test of a Communication task.
func (r *judging) communication(t *problem.Test, dir string, tr TestResult) TestResult {
	c := r.p.Communication
	slots, err := r.extra.take(r.slot.Sandbox(), c.Processes)
	if err != nil {
		return seTest(tr, fmt.Errorf("communication: a slot for each process: %w", err))
	}
	defer r.extra.give(slots)
	mbox := filepath.Join(dir, "manager")
	if err := r.managerBox(mbox, t); err != nil {
		return seTest(tr, err)
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	users := make([]*sandbox.Cmd, c.Processes)
	stderrs := make([]stderrHead, c.Processes)
	var fifoArgs []string
	var fifoBinds []mount.Bind
	for i, slot := range slots {
		b, err := makeFIFOs(slot, i)
		if err != nil {
			return seTest(tr, err)
		}
		defer removeFIFOs(b.Source, i)
		fifoBinds = append(fifoBinds, b)
		from, to := fifoPaths(b, i)
		fifoArgs = append(fifoArgs, to, from) // as CMS passes them: from copy i, to copy i
		users[i] = r.userCommand(ctx, slot, b, i, &stderrs[i])
	}
	in, err := os.Open(filepath.Join(mbox, "input.txt"))
	if err != nil {
		return seTest(tr, err)
	}
	defer in.Close()
	var mout, merr bytes.Buffer
	mgr := r.managerCommand(ctx, mbox, fifoArgs, fifoBinds)
	mgr.Stdin, mgr.Stdout, mgr.Stderr = in, &mout, &merr
	var run communicationRun
	r.timed(func() { run, err = runCommunication(mgr, users, cancel, max(time.Second, r.tl)) })
	if err != nil {
		return seTest(tr, fmt.Errorf("communication: %w", err))
	}
	run.stderrs, run.managerOut, run.managerErr = stderrs, mout.Bytes(), merr.Bytes()
	return r.communicationVerdict(tr, run)
}

func toManager(i int) string   { return fmt.Sprintf("u%d_to_m", i) }
func fromManager(i int) string { return fmt.Sprintf("m_to_u%d", i) }

// fifoPaths are copy i's FIFOs as its sandbox and the manager's see them
// (fifos mounted): from the manager, and to it.
func fifoPaths(fifos mount.Bind, i int) (from, to string) {
	return fifos.Target + "/" + fromManager(i), fifos.Target + "/" + toManager(i)
}

// managerProgram is where the manager's program directory is mounted,
// read-only, in its sandbox.
const managerProgram = "/program"

// managerBox prepares the manager's box: the test's input as input.txt,
// CMS's name for it, and a link to each file of its program, mounted at
// managerProgram (managerCommand) rather than copied into the box for
// every test.
func (r *judging) managerBox(box string, t *problem.Test) error {
	if err := mkBox(box, r.slot.TrustedUID); err != nil {
		return err
	}
	entries, err := os.ReadDir(r.manager.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Symlink(managerProgram+"/"+e.Name(), filepath.Join(box, e.Name())); err != nil {
			return err
		}
	}
	return copyFile(t.In, filepath.Join(box, "input.txt"), 0o644)
}

// makeFIFOs makes copy i's two FIFOs in a directory of slot's own,
// under the sandbox's state directory, and returns its bind at /fifo<i>:
// the same path for every test of the slot, so the sandbox's cached
// roots for it serve them all. The directory itself is kept from test
// to test (only its FIFOs are made anew): a directory removed and made
// again is a new inode at a bind's source, which makes the sandbox build
// every root that binds it again (fastpath.go), three for each test.
// Only docket writes there: the sandboxes see it read-only.
func makeFIFOs(slot *sandbox.Slot, i int) (mount.Bind, error) {
	dir := filepath.Join(slot.Sandbox().Config().StateDir, "fifo", strconv.Itoa(slot.N))
	b := mount.Bind{Source: dir, Target: fmt.Sprintf("/fifo%d", i)}
	if err := fifoDir(dir); err != nil {
		return b, err
	}
	if err := removeFIFOs(dir, i); err != nil {
		return b, err
	}
	for _, name := range []string{toManager(i), fromManager(i)} {
		fifo := filepath.Join(dir, name)
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			return b, fmt.Errorf("fifo: %w", err)
		}
		// mkfifo's mode is cut by the umask: set it, as CMS does.
		if err := os.Chmod(fifo, 0o666); err != nil {
			return b, err
		}
	}
	return b, nil
}

// fifoDir makes a slot's FIFO directory, root's and mode 0755, unless it
// is there; what is there must be a directory (not a link to one).
func fifoDir(dir string) error {
	st, err := os.Lstat(dir)
	if err == nil && st.IsDir() {
		return nil
	}
	if err == nil {
		return fmt.Errorf("fifo directory %s: not a directory (%s)", dir, st.Mode().Type())
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.Chmod(dir, 0o755)
}

// removeFIFOs removes copy i's FIFOs from dir, if there: after each
// test, and before the next makes them anew (after a docket that
// stopped mid-test).
func removeFIFOs(dir string, i int) error {
	for _, name := range []string{toManager(i), fromManager(i)} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// userCommand is copy i of the submission, in slot's sandbox with the
// task's limits. With fifo_io its arguments are the FIFOs' paths (from
// the manager, to the manager); with std_io the FIFOs are its stdin and
// stdout, opened in that order inside the sandbox, as isolate opens
// CMS's redirections (a shell does it and execs the program). With
// several copies, each gets its index as its last argument.
func (r *judging) userCommand(ctx context.Context, slot *sandbox.Slot, fifos mount.Bind, i int, stderr *stderrHead) *sandbox.Cmd {
	c := r.p.Communication
	var extra []string
	from, to := fifoPaths(fifos, i)
	if c.FIFOArgs {
		extra = append(extra, from, to)
	}
	if c.Processes > 1 {
		extra = append(extra, strconv.Itoa(i))
	}
	cmd := slot.CommandContext(ctx, "")
	cmd.Args = r.prog.command(r.memMB, extra...)
	if !c.FIFOArgs {
		cmd.Args = append([]string{"/bin/sh", "-c", `exec <"$1" >"$2"; shift 2; exec "$@"`, "std_io", from, to}, cmd.Args...)
	}
	cmd.BoxFrom, cmd.Env = r.prog.dir, r.prog.lang.Env
	cmd.Binds = append(binds(r.prog.lang), fifos)
	cmd.Stderr = stderr
	cmd.Limits = r.runLimits(r.prog)
	return cmd
}

// managerCommand is the manager's run, with CMS's limits for it: at
// least num_processes times (the time limit + 1 s) of CPU time, or 10 s,
// and wall time past the slowest copy's.
func (r *judging) managerCommand(ctx context.Context, box string, fifoArgs []string, fifos []mount.Bind) *sandbox.Cmd {
	n := r.p.Communication.Processes
	cmd := r.trustedCommandContext(ctx, r.manager, box)
	cmd.Binds = append(cmd.Binds, mount.Bind{Source: r.manager.dir, Target: managerProgram})
	cmd.Binds = append(cmd.Binds, fifos...)
	cmd.Args = r.manager.command(checkerMemoryMB, fifoArgs...)
	cmd.Limits.CPUTime = max(time.Duration(n)*(r.tl+time.Second), 10*time.Second)
	cmd.Limits.WallTime = max(2*cmd.Limits.CPUTime, r.wall+2*time.Second)
	return cmd
}
