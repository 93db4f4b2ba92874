package sandbox

import (
	"encoding/json"
	"os"
	"sync"
	"time"
)

// debugRecord is one line of DOCKET_SANDBOX_DEBUG.
type debugRecord struct {
	Time    time.Time `json:"time"`
	Level   string    `json:"level"`
	Slot    int       `json:"slot"`
	Trusted bool      `json:"trusted,omitempty"`
	Helper  string    `json:"helper,omitempty"`      // "zygote" (forked on a template root) or "exec"
	Space   string    `json:"space,omitempty"`       // "split" (the box and /tmp cloned by docket: mount.Rootfs.Split) or "whole"
	Ahead   bool      `json:"space_ahead,omitempty"` // the space was made ahead, in the teardown of the slot's previous run
	Filter  string    `json:"seccomp,omitempty"`     // "delta": the target loaded the delta over its spare's pre-filter (seccomp.Delta)
	Pipes   bool      `json:"pipes_ahead,omitempty"` // the run's pipes were made ahead (pipes_ahead.go)
	Argv    []string  `json:"argv"`
	Status  string    `json:"status,omitempty"`
	Source  string    `json:"verdict_source,omitempty"`
	Error   string    `json:"error,omitempty"` // the failing stage and why
}

type debugLog struct {
	mu   sync.Mutex
	path string
}

func (d *debugLog) write(r debugRecord) {
	if d == nil {
		return
	}
	r.Time = time.Now()
	b, _ := json.Marshal(r)
	d.mu.Lock()
	defer d.mu.Unlock()
	f, err := os.OpenFile(d.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}
