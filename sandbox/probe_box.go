package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docketjudge/docket/sandbox/mount"
	"golang.org/x/sys/unix"
)

// The namespace probe only shows that namespaces can be created. A run
// does much more in them: mounts, pivot_root into the new root, the uid
// switch, its cgroup, the seccomp filter. A host can allow the first and
// refuse the rest (Docker's default seccomp profile lets a container with
// CAP_SYS_ADMIN unshare and mount but not pivot_root), and then every run
// fails while the level said full. So New makes one real box, as a run
// does, and a layer that fails when used is reported missing.

// boxProbeTarget is what the probe box runs: a file of the state
// directory, executable but neither ELF nor script, bound into the box.
// The helper finds it as the target's uid, and the target's execve fails
// (ENOEXEC) only after every step of a run's setup, seccomp included; that
// failure is the run's result, not a SetupError. Nothing of the host runs.
const boxProbeTarget = "/.docket-box-probe"

const boxProbeCacheName = "probe-box.json"

// probeBox makes one box unless this boot already did with the same
// binary, uid and binds (cached in the state directory beside the
// namespace probe, in the same form, dropped with it when a run's clone
// fails).
func (s *Sandbox) probeBox() error {
	key := probeKey(!s.caps.Root) + "|binds=" + fmt.Sprint(s.cfg.Binds)
	path := filepath.Join(s.cfg.StateDir, boxProbeCacheName)
	var cached struct {
		Key string `json:"key"`
	}
	if readCached(path, key, &cached) {
		return nil
	}
	if err := s.runBoxProbe(); err != nil {
		return err
	}
	// Only a box that worked is remembered: a failure is probed again.
	cached.Key = key
	writeCached(path, key, cached)
	return nil
}

func (s *Sandbox) runBoxProbe() error {
	slot, err := s.AcquireSlot()
	if err != nil {
		return err
	}
	defer slot.Release()
	// A file of this process's own: two workers sharing the state
	// directory probe at once, and a file one of them is running (its
	// execve holds the file against writes) cannot be written by the
	// other (ETXTBSY, seen in TestClusterTopology).
	target := filepath.Join(s.cfg.StateDir, fmt.Sprintf("box-probe-%d", os.Getpid()))
	if err := os.WriteFile(target, []byte("docket box probe: not a program\n"), 0o755); err != nil {
		return err
	}
	defer os.Remove(target)
	cmd := slot.Command(boxProbeTarget)
	cmd.Binds = []mount.Bind{{Source: target, Target: boxProbeTarget}}
	cmd.boxProbe = true
	cmd.Limits = Limits{CPUTime: time.Second, WallTime: 5 * time.Second, Memory: 64 << 20}
	_, err = cmd.Run()
	return err
}

// withoutBox lowers the capabilities after a failed box: the filesystem
// layer is missing (with the reason), and runs stop using the mount and
// pid namespaces, which only serve the new root, so that the level
// reported is the one runs get.
func (c *Capabilities) withoutBox(err error) {
	for i := range c.Layers {
		if c.Layers[i].Name == "filesystem" {
			c.Layers[i].Active = false
			c.Layers[i].Detail = "a box could not be made: " + err.Error()
		}
	}
	var kept []string
	for _, n := range c.Namespaces {
		if n != "mnt" && n != "pid" {
			kept = append(kept, n)
		}
	}
	c.Namespaces = kept
	c.cloneflags &^= unix.CLONE_NEWNS | unix.CLONE_NEWPID
	c.setLevel()
}
