package sandbox_test

// Read-only really means read-only: a host mount below a bound directory
// (a separate /usr/local, a volume under /usr/share) is bound with it, and
// must be as read-only, nosuid and nodev inside a run as the bind itself.
// Otherwise a run could leave files there for the next run, or run a
// setuid program or open a device node placed there from outside. The box
// is a copy in the run's own tmpfs, writable, but nosuid and nodev too.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
	"golang.org/x/sys/unix"
)

func TestReadOnlySubmounts(t *testing.T) {
	if os.Geteuid() != 0 || !testguard.Guarded() {
		// The test mounts: only ever inside the guard's mount namespace.
		t.Skip("needs root, inside the test guard's mount namespace")
	}
	prog := hostile(t, "mountflags")
	for i, p := range []struct {
		name string
		exec bool
	}{{"zygote", false}, {"exec-helpers", true}} {
		t.Run(p.name, func(t *testing.T) { readOnlySubmounts(t, prog, p.exec, 63700+100*i) })
	}
}

func readOnlySubmounts(t *testing.T, prog string, execHelpers bool, uidBase int) {
	// The bound directories: one every run gets (Config.Binds, part of the
	// zygote's template roots) and one of this Cmd (a language's bind),
	// each with a writable tmpfs at sub. The box has one too, which is
	// copied into the run's space with the setuid program (a device node
	// would not be: the box takes regular files, directories and links).
	cfgDir, cmdDir := submountDir(t, prog, true), submountDir(t, prog, true)
	box := submountDir(t, prog, false)
	copyFile(t, prog, filepath.Join(box, "mountflags"), 0o755)

	log := filepath.Join(t.TempDir(), "debug.jsonl")
	sb, err := sandbox.New(sandbox.Config{
		StateDir: t.TempDir(), UIDBase: uidBase, DebugLog: log, ExecHelpers: execHelpers,
		Binds: append(append([]mount.Bind{}, sandbox.DefaultBinds...), mount.Bind{Source: cfgDir, Target: "/srv/cfg"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	sandbox.Warm(sb) // without ExecHelpers: every run below is the zygote's
	sl := slotOf(t, sb)
	os.Chown(box, sl.UID, sl.GID)
	runIn := func(args ...string) string {
		t.Helper()
		cmd := sl.Command(args[0], args[1:]...)
		cmd.Box = box
		cmd.Binds = []mount.Bind{{Source: cmdDir, Target: "/srv/cmd"}}
		res := run(t, cmd)
		if res.Status != sandbox.OK {
			t.Fatalf("%q: %s (%s) %s\nstdout: %s\nstderr: %s", args, res.Status, res.Source, res.Error, res.Stdout, res.Stderr)
		}
		return string(res.Stdout)
	}

	got := runIn("./mountflags", "/srv/cfg/sub", "/srv/cmd/sub", "/box/sub")
	want := ""
	for _, d := range []string{"/srv/cfg/sub", "/srv/cmd/sub"} {
		want += d + ": ro nosuid nodev\nwrite " + d + ": Read-only file system\ndevice " + d + ": Permission denied\n"
	}
	want += "/box/sub: rw nosuid nodev\nWROTE /box/sub\ndevice /box/sub: No such file or directory\n"
	if got != want {
		t.Errorf("on the mounts below the binds and the box:\n%s\nwant:\n%s", got, want)
	}
	for _, d := range []string{cfgDir, cmdDir} {
		if _, err := os.Lstat(filepath.Join(d, "sub", "new")); err == nil {
			t.Errorf("the run created a file in %s/sub, below a read-only bind", d)
		}
	}

	// The setuid-root copies run as the run's uid. (no_new_privs would
	// stop the bit as well; nosuid, checked above, is the mount's own
	// guarantee.)
	for _, d := range []string{"/srv/cfg/sub", "/srv/cmd/sub", "/box/sub"} {
		if got, want := runIn(d+"/suid", "ids"), fmt.Sprintf("uid %d euid %d\n", sl.UID, sl.UID); got != want {
			t.Errorf("%s/suid printed %q, want %q", d, got, want)
		}
	}

	table := runIn("/bin/cat", "/proc/self/mountinfo")
	for _, v := range sandbox.MountViolations(table) {
		t.Errorf("mount looser than the root allows: %s", v)
	}
	for _, p := range []string{" /srv/cfg/sub ", " /srv/cmd/sub "} {
		if !strings.Contains(table, p) {
			t.Errorf("the run's mount table has no%s:\n%s", p, table)
		}
	}
	assertHelper(t, log, execHelpers)
}

// submountDir makes a directory with a tmpfs mounted at sub with none of
// ro, nosuid, nodev, as a host volume would be, holding a setuid-root copy
// of prog (suid) and, with node, a device node (null, 1:3). The mount is
// made in the test guard's mount namespace and removed at the end of the
// test.
func submountDir(t *testing.T, prog string, node bool) string {
	t.Helper()
	dir := openDir(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", sub, "tmpfs", 0, "size=1m,mode=0777"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) }) // before the directory's removal
	copyFile(t, prog, filepath.Join(sub, "suid"), 0o755|os.ModeSetuid)
	if !node {
		return dir
	}
	if err := unix.Mknod(filepath.Join(sub, "null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(sub, "null"), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyFile copies src to dst, owned by root, with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o700); err != nil {
		t.Fatal(err)
	}
	// Chmod after the write: the umask does not apply, and the setuid bit
	// is set on the finished file.
	if err := os.Chmod(dst, mode); err != nil {
		t.Fatal(err)
	}
}

// assertHelper checks from the debug log that every run's helper was the
// zygote's (unless ExecHelpers) or exec'd: the path under test.
func assertHelper(t *testing.T, log string, execHelpers bool) {
	t.Helper()
	want := "exec"
	if !execHelpers {
		want = "zygote"
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct{ Helper string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Helper != want {
			t.Errorf("run %d: helper %q, want %s: %s", i, rec.Helper, want, line)
		}
	}
}
