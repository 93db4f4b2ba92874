package verdict

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// commManager is a CMS Communication manager in Python: it sends each
// copy its index and reads back one line per copy; all "ok i" is
// outcome 1. "hang" from a copy makes it exit 3 (a manager failure).
const commManager = `import sys
k = (len(sys.argv) - 1) // 2
to = []
frm = []
for i in range(k):
    to.append(open(sys.argv[2 + 2 * i], "w"))
    frm.append(open(sys.argv[1 + 2 * i]))
for i in range(k):
    print(i, file=to[i], flush=True)
got = [f.readline().strip() for f in frm]
if "fail" in got:
    sys.exit(3)
ok = got == ["ok %d" % i for i in range(k)]
print(1.0 if ok else 0.0)
print("translate:success" if ok else "got %r" % got, file=sys.stderr)
`

// commTask is a CMS task folder with commManager, k copies, fifo_io.
func commTask(k string) map[string]string {
	return map[string]string{
		"task.yaml":          "name: c\nn_input: 1\ninfile: \"\"\noutfile: \"\"\nnum_processes: " + k + "\nuser_io: fifo_io\n",
		"input/input0.txt":   "x\n",
		"output/output0.txt": "x\n",
		"check/manager.py":   commManager,
	}
}

// Each copy of a Communication task runs in a sandbox of its own: it
// sees its own FIFOs at /fifo<i> (from the manager, to the manager, its
// index, as CMS passes them), never another copy's, and a different uid.
func TestCommunicationCopiesApart(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, commTask("2"))
	const copy = `import os, sys
frm, to, idx = sys.argv[1:4]
i = int(idx)
fin, fout = open(frm), open(to, "w")
got = fin.readline().strip()
other = "/fifo%d" % (1 - i)
ok = got == idx and frm == "/fifo%d/m_to_u%d" % (i, i) and to == "/fifo%d/u%d_to_m" % (i, i) and not os.path.exists(other)
print(("ok %d" % i) if ok else "bad %s %s %s %s" % (got, frm, to, os.path.exists(other)), file=fout)
`
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"c.py": copy}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 100 || len(res.Tests) != 1 || len(res.Tests[0].Steps) != 2 {
		t.Fatalf("%s %g: %s %+v", res.Verdict, res.Score, res.Error, res.Tests)
	}
	if res.Tests[0].VerdictSource != SourceManager {
		t.Errorf("verdict source %q", res.Tests[0].VerdictSource)
	}
}

// How a Communication test ends, as CMS's Communication task type ends
// it: a copy that crashes while the manager waits on it ends the test
// at once (RE, naming the copy), copies that exit without a word leave
// the manager waiting, stopped soon after (WA), a manager that fails is
// SE, and the
// copies' CPU times together reaching the limit is TLE even when each
// stays under it (Python's limit here: 1 s × its multiplier 2).
func TestCommunicationFailures(t *testing.T) {
	j := testJudge(t)
	p := loadPackage(t, commTask("2"))
	reply := `import sys
frm, to, idx = sys.argv[1:4]
fin, fout = open(frm), open(to, "w")
fin.readline()
`
	spin := `import time
end = time.process_time() + 1.2
while time.process_time() < end:
    pass
`
	for _, c := range []struct {
		name, src string
		verdict   Verdict
		feedback  string
	}{
		{"crash", reply + "if idx == '1':\n    raise SystemExit(4)\nfout.write('ok %s\\n' % idx)\n", RE, "process 1"},
		{"manager fails", reply + "fout.write('fail\\n')\n", SE, "manager: RE"},
		{"times add up", reply + spin + "fout.write('ok %s\\n' % idx)\n", TLE, "add up to"},
		{"silent", "pass\n", WA, "the program ended before the manager was done"},
		{"wrong", reply + "fout.write('ok 7\\n')\n", WA, "got ['ok 7', 'ok 7']"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"c.py": c.src}), Options{TimeLimit: time.Second})
			if c.verdict == TLE && len(res.Tests) == 1 && res.Tests[0].VerdictSource == sandbox.SourceWall {
				t.Skipf("a copy reached its wall-clock limit before its 1.2 s of CPU time: the machine is too loaded to show the CPU times' sum: %+v", res.Tests)
			}
			if len(res.Tests) != 1 || res.Verdict != c.verdict || !strings.Contains(res.Tests[0].Feedback, c.feedback) {
				t.Fatalf("%s: %s %+v", res.Verdict, res.Error, res.Tests)
			}
			if c.verdict == TLE && res.Tests[0].VerdictSource != sandbox.SourceCPU {
				t.Errorf("TLE by %q", res.Tests[0].VerdictSource)
			}
			if (c.verdict == RE || c.name == "silent") && time.Since(start) > 6*time.Second {
				t.Errorf("%s took %v: the manager and the other copy were not stopped", c.name, time.Since(start))
			}
		})
	}
}

// std_io: the FIFOs are the copy's stdin and stdout, opened in the
// sandbox before the program starts; one copy gets no index argument.
func TestCommunicationStdIO(t *testing.T) {
	j := testJudge(t)
	files := commTask("1")
	files["task.yaml"] = strings.Replace(files["task.yaml"], "user_io: fifo_io", "user_io: std_io", 1)
	p := loadPackage(t, files)
	src := "import sys\nassert len(sys.argv) == 1, sys.argv\nprint('ok', input(), flush=True)\n"
	res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"c.py": src}), Options{TimeLimit: 5 * time.Second})
	if res.Verdict != AC || res.Score != 100 {
		t.Fatalf("%s %g: %s %+v", res.Verdict, res.Score, res.Error, res.Tests)
	}
}

// A slot's FIFO directory is kept from test to test, the same inode, so
// that the sandbox's roots that bind it stay valid; only its FIFOs are
// made anew for each test and removed after it. A directory removed
// and made again for every test made the sandbox build three roots for
// each test (BenchmarkCommunication: 1.7-2.0 times three batch tests).
func TestCommunicationFIFODirKept(t *testing.T) {
	j := testJudge(t)
	files := commTask("1")
	files["input/input1.txt"], files["output/output1.txt"] = "y\n", "y\n"
	files["task.yaml"] = strings.Replace(files["task.yaml"], "n_input: 1", "n_input: 2", 1)
	p := loadPackage(t, files)
	src := "import sys\nfrm, to = sys.argv[1:3]\nfin, fout = open(frm), open(to, 'w')\nfout.write('ok %s\\n' % fin.readline().strip())\n"
	var inodes []uint64
	for range 2 {
		res := j.Judge(context.Background(), p, toSubmission("python3", map[string]string{"c.py": src}), Options{TimeLimit: 5 * time.Second})
		if res.Verdict != AC || len(res.Tests) != 2 {
			t.Fatalf("%s: %s %+v", res.Verdict, res.Error, res.Tests)
		}
		// The copy's slot: the judging's further slot, the lowest free.
		dirs, _ := filepath.Glob(filepath.Join(j.Slot.Sandbox().Config().StateDir, "fifo", "*"))
		if len(dirs) != 1 {
			t.Fatalf("FIFO directories %v, want the one copy's slot's", dirs)
		}
		dir := dirs[0]
		st, err := os.Lstat(dir)
		if err != nil || !st.IsDir() {
			t.Fatalf("the slot's FIFO directory after a judging: %v %v", st, err)
		}
		inodes = append(inodes, st.Sys().(*syscall.Stat_t).Ino)
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("FIFOs left after the judging: %v", left)
		}
	}
	if inodes[0] != inodes[1] {
		t.Errorf("the FIFO directory was made again: inode %d, then %d", inodes[0], inodes[1])
	}
}
