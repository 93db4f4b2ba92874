package langs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// VersionCache remembers version commands' answers in a JSON file. An
// entry is used while the command's program has the same size and
// modification time (an upgraded toolchain is asked again) and for at most
// versionTTL (a program that reports another one's version, kotlinc the
// JRE's, is asked again within a day).
type VersionCache struct {
	path    string
	mu      sync.Mutex
	entries map[string]versionEntry
	dirty   bool
}

type versionEntry struct {
	Stamp   string    `json:"stamp"`
	Version string    `json:"version"`
	At      time.Time `json:"at"`
}

const versionTTL = 24 * time.Hour

// OpenVersionCache reads the cache at path; a missing or unreadable file
// is an empty cache.
func OpenVersionCache(path string) *VersionCache {
	vc := &VersionCache{path: path, entries: map[string]versionEntry{}}
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &vc.entries)
	}
	return vc
}

// SetPath makes Save write to path: a refreshed cache starts empty and
// replaces the old file.
func (vc *VersionCache) SetPath(path string) { vc.path = path }

// stamp identifies the program a version command runs.
func stamp(argv0 string) string {
	st, err := os.Stat(argv0)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
}

func (vc *VersionCache) get(argv []string) (string, bool) {
	if vc == nil {
		return "", false
	}
	s := stamp(argv[0])
	vc.mu.Lock()
	defer vc.mu.Unlock()
	e, ok := vc.entries[strings.Join(argv, "\x00")]
	if !ok || s == "" || e.Stamp != s || time.Since(e.At) > versionTTL || strings.HasPrefix(e.Version, "unknown (") {
		return "", false
	}
	return e.Version, true
}

func (vc *VersionCache) put(argv []string, version string) {
	if vc == nil {
		return
	}
	s := stamp(argv[0])
	vc.mu.Lock()
	defer vc.mu.Unlock()
	vc.entries[strings.Join(argv, "\x00")] = versionEntry{Stamp: s, Version: version, At: time.Now()}
	vc.dirty = true
}

// Save writes the cache if it changed, through a temporary file renamed
// into place, so that a concurrent reader never sees half of it.
func (vc *VersionCache) Save() error {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if !vc.dirty {
		return nil
	}
	b, err := json.Marshal(vc.entries)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(vc.path), ".versions-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), vc.path)
}
