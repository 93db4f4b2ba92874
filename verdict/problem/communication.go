package problem

import (
	"fmt"
	"os"
	"path/filepath"
)

// Communication is a CMS Communication task (cms/grading/tasktypes/
// Communication.py): the task's manager runs beside Processes copies of
// the submission, each in a sandbox of its own, joined to the manager by
// a pair of FIFOs per process. The manager reads the test's input on its
// stdin and reports an outcome as a CMS comparator does.
type Communication struct {
	Manager *Program // trusted: compiled from its source, or an executable
	// Processes is num_processes: how many copies of the submission run
	// at once (1 to MaxProcesses). With more than one, each gets its
	// index (0, 1, ...) as its last argument, as CMS gives it.
	Processes int
	// FIFOArgs is user_io: fifo_io, the FIFOs' paths are the program's
	// arguments (from the manager, to the manager); otherwise std_io, they
	// are its stdin and stdout.
	FIFOArgs bool
}

// MaxProcesses bounds num_processes: each process takes a sandbox slot
// of its own for the test's length.
const MaxProcesses = 8

// User I/O modes of a Communication task (task.yaml user_io).
const (
	userIOStd   = "std_io"
	userIOFIFOs = "fifo_io"
)

// cmsCommunication reads a CMS task's manager (check/manager.<ext> or
// cor/manager.<ext>, its source, or else the executable check/manager
// or cor/manager), which makes it a Communication task,
// with num_processes, user_io and the stubs of sol/ (stub.<ext>, the
// program's main, compiled with the submission). It reports whether the
// task has a manager; without one, num_processes and user_io are errors.
func (l *loader) cmsCommunication(p *Problem, y *cmsTask) bool {
	var mgr *Program
	for _, dir := range []string{"check", "cor"} {
		prog, found := l.cmsProgramOrExecutable(dir, "manager")
		if found && prog == nil {
			return true // an executable docket cannot run: the error says it
		}
		if found {
			mgr = prog
			break
		}
	}
	if mgr == nil {
		if y.NumProcesses != nil || y.UserIO != "" {
			l.errorf("task.yaml: num_processes and user_io are for Communication tasks, which have a manager (check/manager.cpp or cor/manager.cpp)")
		}
		return false
	}
	stubs := l.stubs(p, "sol", "stub")
	c := &Communication{Manager: mgr, Processes: 1}
	if y.NumProcesses != nil {
		c.Processes = *y.NumProcesses
	}
	l.userIO(c, y.UserIO, stubs, "task.yaml")
	l.communication(p, c, "task.yaml num_processes")
	return true
}

// stubs reads dir's stub.<ext> files (as names them in the box) and
// reports whether there were any: a Communication task with stubs
// compiles each submission with its language's stub, CMS's "stub"
// compilation; without, the submission alone.
func (l *loader) stubs(p *Problem, dir, base string) bool {
	before := len(p.Includes)
	l.mainDir(p, dir, base, "stub")
	return len(p.Includes) > before
}

// userIO reads user_io: std_io or fifo_io, by default fifo_io with
// stubs and std_io without, as CMS's italy_yaml loader sets it.
func (l *loader) userIO(c *Communication, v string, stubs bool, where string) {
	switch v {
	case userIOFIFOs:
		c.FIFOArgs = true
	case userIOStd:
	case "":
		c.FIFOArgs = stubs
	default:
		l.errorf("%s user_io: %q is neither %s nor %s", where, v, userIOStd, userIOFIFOs)
	}
}

// communication checks c and makes p a Communication task, which the
// manager judges: no comparator, and no output files submitted.
func (l *loader) communication(p *Problem, c *Communication, where string) {
	if c.Processes < 1 || c.Processes > MaxProcesses {
		l.errorf("%s: %d processes; docket runs 1 to %d", where, c.Processes, MaxProcesses)
	}
	if p.TakesOutputs() {
		l.errorf("%s: a Communication task takes no output files (output_only_testcases, output_optional_testcases, output_only subtasks)", where)
	}
	c.Manager.Protocol = CMS
	p.Communication, p.Checker = c, nil
}

// unusedGraders warns of graders a Communication task has beside its
// stubs: CMS compiles the stub, never the grader, and so does docket.
func (l *loader) unusedGraders(dir string) {
	entries, _ := os.ReadDir(filepath.Join(l.dir, dir))
	for _, e := range entries {
		n := e.Name()
		if _, ok := mainFileLang(n, "grader"); ok {
			rel := dir + "/" + n
			l.warn(Warning{Code: WarnUnused, Message: fmt.Sprintf("%s is not used: a Communication task compiles the submission with its stub", rel), Paths: []string{rel}})
		}
	}
}
