package sandbox

import (
	"os"
	"path/filepath"
)

// cgroupTrials keeps the cgroup package's trial creations (cgroup.Trials)
// in the state directory beside the namespace probe, under the same key:
// Open otherwise makes and removes a group in each controller's parent on
// every start, about 0.7-1 ms of a one-off command such as `docket exec`
// (the memory controller's alone near 0.3). A stale or forged entry can
// only make the runs' own group creation fail, loudly, as a setup error,
// and that failure drops the file (forgetCgroupTrials), as a clone's
// drops the namespace probe.
type cgroupTrials struct {
	path, key string
	worked    map[string]bool
	recorded  bool // a directory was tried in this process: save
}

const cgroupTrialsName = "probe-cgroups.json"

// cgroupTrialsEntry is one key's entry of the cache file.
type cgroupTrialsEntry struct {
	Key  string   `json:"key"`
	Dirs []string `json:"dirs"`
}

// loadCgroupTrials reads this boot's entry; nil without a state directory
// (every directory is tried).
func loadCgroupTrials(stateDir string, user bool) *cgroupTrials {
	if stateDir == "" {
		return nil
	}
	t := &cgroupTrials{path: filepath.Join(stateDir, cgroupTrialsName), key: probeKey(user), worked: map[string]bool{}}
	var e cgroupTrialsEntry
	if readCached(t.path, t.key, &e) {
		for _, d := range e.Dirs {
			t.worked[d] = true
		}
	}
	return t
}

func (t *cgroupTrials) Worked(dir string) bool { return t.worked[dir] }

func (t *cgroupTrials) Record(dir string) {
	t.worked[dir] = true
	t.recorded = true
}

// forgetCgroupTrials drops the kept trials (a run's group could not be
// made: the host may have changed since).
func forgetCgroupTrials(stateDir string) {
	if stateDir != "" {
		os.Remove(filepath.Join(stateDir, cgroupTrialsName))
	}
}

// save writes the entry when a directory was tried in this process.
func (t *cgroupTrials) save() {
	if t == nil || !t.recorded {
		return
	}
	e := cgroupTrialsEntry{Key: t.key}
	for d := range t.worked {
		e.Dirs = append(e.Dirs, d)
	}
	writeCached(t.path, t.key, e)
}
