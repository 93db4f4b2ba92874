package sandbox_test

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
)

// These tests hold the helper to what a target must see and to the exact
// setup error messages.

// openDir is a temporary directory every sandbox uid can enter.
func openDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	os.Chmod(filepath.Dir(d), 0o755)
	os.Chmod(d, 0o755)
	return d
}

func run(t *testing.T, cmd *sandbox.Cmd) *sandbox.Result {
	t.Helper()
	res, err := cmd.Run()
	if err != nil {
		t.Fatalf("run %q: %v", cmd.Args, err)
	}
	return res
}

func TestRootfsLayout(t *testing.T) { eachHelperPath(t, rootfsLayout) }

func rootfsLayout(t *testing.T, sl *sandbox.Slot) {
	// What the root must hold: the mount points, and the top-level names of
	// the default binds the host has.
	want := map[string]bool{"box": true, "dev": true, "proc": true, "tmp": true}
	var links []string
	for _, b := range sandbox.DefaultBinds {
		st, err := os.Lstat(b.Source)
		if err != nil {
			continue
		}
		want[strings.Split(b.Source, "/")[1]] = true
		if st.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(b.Source)
			links = append(links, b.Source+" -> "+target)
		}
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)

	script := `id -u; id -g; echo pid $$; hostname; ls -A / | tr '\n' ' '; echo
for l in /bin /lib /lib64 /lib32; do [ -L $l ] && echo "$l -> $(readlink $l)"; done
ls -A /dev | tr '\n' ' '; echo
stat -c '%a %F %t:%T' /dev/null /dev/zero /dev/full /dev/random /dev/urandom
[ -e /etc/shadow ] || echo no shadow
touch /x 2>/dev/null || echo root read-only
touch /usr/x 2>/dev/null || echo usr read-only
touch /dev/x 2>/dev/null || echo dev read-only
touch /tmp/y && echo tmp writable
touch /box/z && echo box writable
echo hi >/dev/null && echo null works
grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status
ulimit -n; ls /proc/self/fd | tr '\n' ' '; echo`
	cmd := sl.Command("/bin/sh", "-c", script)
	cmd.Limits = sandbox.Limits{Processes: 20}
	res := run(t, cmd)
	if res.Status != sandbox.OK {
		t.Fatalf("status %s (%s): %s\nstderr: %s", res.Status, res.Source, res.Error, res.Stderr)
	}
	var wantOut strings.Builder
	// pid 2: under the helper's init.
	fmt.Fprintf(&wantOut, "%d\n%d\npid 2\ndocket\n%s \n", sl.UID, sl.GID, strings.Join(names, " "))
	for _, l := range links {
		wantOut.WriteString(l + "\n")
	}
	wantOut.WriteString("fd full null random stderr stdin stdout urandom zero \n")
	for _, d := range []string{"1:3", "1:5", "1:7", "1:8", "1:9"} {
		wantOut.WriteString("666 character special file " + d + "\n")
	}
	wantOut.WriteString("no shadow\nroot read-only\nusr read-only\ndev read-only\ntmp writable\nbox writable\nnull works\n" +
		"NoNewPrivs:\t1\nSeccomp:\t2\n64\n0 1 2 3 \n")
	if got := string(res.Stdout); got != wantOut.String() {
		t.Errorf("inside the sandbox:\n%s\nwant:\n%s\nstderr: %s", got, wantOut.String(), res.Stderr)
	}
}

// TestSignalDefaults: a signal docket inherited as ignored (nohup's
// SIGHUP; signal 32, which the C library reserves and will not reset
// through sigaction(3), seen ignored in CI) has its default disposition
// in the target, and the target starts with no signal blocked, whichever
// way its helper was started. The helper and the zygote reset the
// dispositions once, as they start; the test's Sandboxes are made after
// the signals are ignored, so both inherit them.
func TestSignalDefaults(t *testing.T) {
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	defer ignoreRaw(t, 32)()
	for _, exec := range []bool{false, true} {
		sb, err := sandbox.New(sandbox.Config{StateDir: t.TempDir(), UIDBase: 63300, ExecHelpers: exec})
		if err != nil {
			t.Skip("the full sandbox: ", err)
		}
		sl := slotOf(t, sb)
		sandbox.Warm(sb)
		for i := 0; i < 3; i++ { // the first helper exec'd, the next ones the zygote's spares
			res := run(t, sl.Command("/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"))
			want := "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
			if res.Status != sandbox.OK || string(res.Stdout) != want {
				t.Errorf("ExecHelpers=%v, run %d: got %s %q (stderr %q), want %q", exec, i, res.Status, res.Stdout, res.Stderr, want)
			}
		}
		sl.Release()
		sb.Close()
	}
}

// ignoreRaw sets sig's disposition to SIG_IGN with the system call (the
// Go runtime will not for the C library's signals) and returns what
// restores it.
func ignoreRaw(t *testing.T, sig int) func() {
	t.Helper()
	var ign, old [4]uint64
	ign[0] = 1 // SIG_IGN
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&ign)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		t.Fatalf("rt_sigaction %d: %v", sig, e)
	}
	return func() {
		syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	}
}

func TestBindKinds(t *testing.T) { eachHelperPath(t, bindKinds) }

func bindKinds(t *testing.T, sl *sandbox.Slot) {
	ro, rw, links := openDir(t), openDir(t), openDir(t)
	os.WriteFile(ro+"/in.txt", []byte("input\n"), 0o644)
	os.Chmod(rw, 0o777)
	os.Symlink("some/where", links+"/link")
	cmd := sl.Command("/bin/sh", "-c", `cat /data/in.txt /ro/in.txt
echo x >/data/in.txt 2>/dev/null || echo file read-only
touch /ro/new 2>/dev/null || echo dir read-only
touch /rw/new && echo dir writable
readlink /opt/link
[ -e /nothing ] || echo optional skipped`)
	cmd.Limits = sandbox.Limits{Processes: 20}
	cmd.Binds = []mount.Bind{
		{Source: ro + "/in.txt", Target: "/data/in.txt"},
		{Source: ro, Target: "/ro"},
		{Source: rw, Target: "/rw", Writable: true},
		{Source: links + "/link", Target: "/opt/link"},
		{Source: "/nonexistent-docket-bind", Target: "/nothing", Optional: true},
	}
	res := run(t, cmd)
	want := "input\ninput\nfile read-only\ndir read-only\ndir writable\nsome/where\noptional skipped\n"
	if res.Status != sandbox.OK || string(res.Stdout) != want {
		t.Errorf("got %s %q (stderr %q), want OK %q", res.Status, res.Stdout, res.Stderr, want)
	}
	if _, err := os.Stat(rw + "/new"); err != nil {
		t.Errorf("the writable bind did not reach the host: %v", err)
	}
}

func TestSetupErrors(t *testing.T) { eachHelperPath(t, setupErrors) }

func setupErrors(t *testing.T, sl *sandbox.Slot) {
	root := filepath.Join(sl.Sandbox().Config().StateDir, "root")
	for _, tc := range []struct {
		name string
		cmd  func(*sandbox.Cmd)
		want string
	}{
		{"absolute", func(c *sandbox.Cmd) { c.Args = []string{"/nonexistent"} },
			"find program: /nonexistent: no such file or directory"},
		{"path", func(c *sandbox.Cmd) { c.Args = []string{"docket-no-such-program"} },
			"find program: docket-no-such-program: not found in the box or on PATH /usr/local/bin:/usr/bin:/bin"},
		{"env path", func(c *sandbox.Cmd) { c.Args, c.Env = []string{"true"}, []string{"PATH=/box:/nowhere"} },
			"find program: true: not found in the box or on PATH /box:/nowhere"},
		{"directory", func(c *sandbox.Cmd) { c.Args = []string{"/box"} },
			"find program: /box: is a directory"},
		{"not executable", func(c *sandbox.Cmd) { c.Args = []string{"/etc/ld.so.cache"} },
			"find program: /etc/ld.so.cache: not executable: permission denied"},
		{"chdir", func(c *sandbox.Cmd) { c.Dir = "/nonexistent" },
			"chdir /nonexistent: no such file or directory"},
		{"missing bind", func(c *sandbox.Cmd) { c.Binds = []mount.Bind{{Source: "/nonexistent-docket-bind"}} },
			"mount: rootfs bind /nonexistent-docket-bind: lstat /nonexistent-docket-bind: no such file or directory"},
		{"relative target", func(c *sandbox.Cmd) { c.Binds = []mount.Bind{{Source: "/usr", Target: "usr"}} },
			"mount: rootfs bind usr: target must be an absolute path without .."},
		{"dotdot target", func(c *sandbox.Cmd) { c.Binds = []mount.Bind{{Source: "/usr", Target: "/a/../usr"}} },
			"mount: rootfs bind /a/../usr: target must be an absolute path without .."},
		{"file in the way", func(c *sandbox.Cmd) {
			c.Binds = []mount.Bind{{Source: "/etc/hostname", Target: "/etc/ld.so.cache/x"}}
		}, "mount: rootfs mkdir /etc/ld.so.cache/x: mkdir " + root + "/etc/ld.so.cache: not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []string{"/etc/ld.so.cache", "/etc/hostname"} {
				if _, err := os.Stat(f); err != nil {
					t.Skipf("the host has no %s", f)
				}
			}
			cmd := sl.Command("/bin/true")
			tc.cmd(cmd)
			_, err := cmd.Run()
			if want := "sandbox: helper: " + tc.want; err == nil || err.Error() != want {
				t.Errorf("got %v\nwant %s", err, want)
			}
		})
	}
}

func TestExecError(t *testing.T) { eachHelperPath(t, execError) }

func execError(t *testing.T, sl *sandbox.Slot) {
	box := openDir(t)
	os.WriteFile(box+"/notelf", []byte("\x00\x01 not a program\n"), 0o755)
	cmd := sl.Command("./notelf")
	cmd.Box = box
	res := run(t, cmd)
	if want := "execve ./notelf: exec format error"; res.Status != sandbox.SE || res.Error != want {
		t.Errorf("got %s %q, want SE %q", res.Status, res.Error, want)
	}
}
