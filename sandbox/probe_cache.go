package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// nsProbe is what the namespace probe found: which namespaces the host
// lets docket create. Finding out costs clones of the docket binary into
// new namespaces (and the kernel's teardown of a network namespace), a
// large share of a one-off command such as `docket exec`; the answer does
// not change within a boot unless the host's policy does, so it is kept in
// the state directory (a file of its owner, mode 0600) under a key of the boot, the
// kernel, the uid, the binary and docket's own capabilities and seccomp state. A stale or forged entry can only make
// docket weaker in a way it reports (a namespace claimed missing lowers
// the level, which MinLevel refuses) or fail loudly (a namespace claimed
// present makes the run's clone fail, and that failure drops the entry).
type nsProbe struct {
	Key     string            `json:"key"`
	UserErr string            `json:"user_error,omitempty"` // not root: why a user namespace was refused
	Refused map[string]string `json:"refused"`              // namespace name: why it was refused ("" = allowed)
}

const probeCacheName = "probe-namespaces.json"

// probeKey names the conditions under which a probe result holds. It is
// worked out once per process (both probe caches ask; each costs four
// reads of /proc and /sys, about 0.1 ms): none of it changes while the
// process runs.
func probeKey(user bool) string {
	probeKeysMu.Lock()
	defer probeKeysMu.Unlock()
	if k, ok := probeKeys[user]; ok {
		return k
	}
	k := probeKeyNow(user)
	probeKeys[user] = k
	return k
}

var (
	probeKeysMu sync.Mutex
	probeKeys   = map[bool]string{}
)

func probeKeyNow(user bool) string {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	var uts unix.Utsname
	unix.Uname(&uts)
	exe := ""
	if fi, err := os.Stat("/proc/self/exe"); err == nil {
		exe = fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
	}
	return fmt.Sprintf("%s|%s|uid=%d|user=%v|exe=%s|%s", strings.TrimSpace(string(boot)),
		unix.ByteSliceToString(uts.Release[:]), os.Geteuid(), user, exe, confinement())
}

// confinement: docket's own capabilities and seccomp state. A container
// shares the host's boot and kernel but may allow less; these tell some
// of that apart (not two different filters of the same count).
func confinement() string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "CapEff:") || strings.HasPrefix(line, "Seccomp") {
			out = append(out, strings.Join(strings.Fields(line), ""))
		}
	}
	return strings.Join(out, ",")
}

// probeNamespacesCached returns the cached probe for this boot, or probes
// and stores the answer. Without a state directory it always probes.
func probeNamespacesCached(stateDir string, user bool) nsProbe {
	key := probeKey(user)
	path := filepath.Join(stateDir, probeCacheName)
	if stateDir != "" {
		var p nsProbe
		if readCached(path, key, &p) && p.Refused != nil {
			return p
		}
	}
	p := probeNamespaces(user)
	p.Key = key
	if stateDir != "" {
		writeCached(path, key, p)
	}
	return p
}

// probeCacheEntries is how many keys a probe cache file keeps, newest
// first: one per binary, so that docket and docket-exec (or two builds)
// used by turns on one host do not each probe again on every start.
const probeCacheEntries = 4

// readCached decodes into v the entry of the cache file at path whose
// "key" is key; false when there is none.
func readCached(path, key string, v any) bool {
	for _, e := range cacheEntries(path) {
		var k struct{ Key string }
		if json.Unmarshal(e, &k) == nil && k.Key == key {
			return json.Unmarshal(e, v) == nil
		}
	}
	return false
}

// writeCached stores v (whose "key" field is key) as the newest entry of
// the cache file at path, replacing the entry of the same key and the
// oldest beyond probeCacheEntries. Two writers at once lose one entry at
// worst, which is probed again.
func writeCached(path, key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	entries := []json.RawMessage{b}
	for _, e := range cacheEntries(path) {
		var k struct{ Key string }
		if json.Unmarshal(e, &k) == nil && k.Key != key && len(entries) < probeCacheEntries {
			entries = append(entries, e)
		}
	}
	if b, err = json.Marshal(entries); err != nil {
		return
	}
	tmp := path + ".tmp" + fmt.Sprint(os.Getpid())
	if os.WriteFile(tmp, b, 0o600) == nil {
		os.Rename(tmp, path)
	}
}

// cacheEntries are the entries of a cache file: a JSON array (none when
// the file is missing or malformed).
func cacheEntries(path string) []json.RawMessage {
	var entries []json.RawMessage
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &entries)
	}
	return entries
}

// forgetProbe drops the cached probe (a run's clone failed: the host's
// policy may have changed since).
func forgetProbe(stateDir string) {
	if stateDir != "" {
		os.Remove(filepath.Join(stateDir, probeCacheName))
		os.Remove(filepath.Join(stateDir, boxProbeCacheName))
	}
}

// probeNamespaces tries the namespaces for real. One clone with every
// namespace usually settles it; only when the host refuses it is each
// namespace tried on its own.
func probeNamespaces(user bool) nsProbe {
	p := nsProbe{Refused: map[string]string{}}
	if user {
		if err := tryClone(0, true); err != nil {
			p.UserErr = err.Error()
			return p
		}
	}
	var all uintptr
	for _, ns := range namespaceFlags {
		all |= ns.flag
	}
	allOK := tryClone(all, user) == nil
	for _, ns := range namespaceFlags {
		p.Refused[ns.name] = ""
		if !allOK {
			if err := tryClone(ns.flag, user); err != nil {
				p.Refused[ns.name] = err.Error()
			}
		}
	}
	return p
}
