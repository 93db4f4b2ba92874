package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
)

// inlineCache keeps the last inline problems written as packages, keyed
// by their content, so that a burst of jobs with the same small problem
// writes and loads it once.
type inlineCache struct {
	mu    sync.Mutex
	dirs  map[string]*problem.Problem
	order []string
}

const inlineCacheSize = 32

func (c *inlineCache) get(parent string, ip *protocol.InlineProblem) (*problem.Problem, error) {
	b, _ := json.Marshal(ip)
	h := sha256.Sum256(b)
	key := hex.EncodeToString(h[:12])
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.dirs[key]; ok {
		return p, nil
	}
	if c.dirs == nil {
		c.dirs = map[string]*problem.Problem{}
	}
	dir, err := os.MkdirTemp(parent, "inline-"+key+"-")
	if err != nil {
		return nil, err
	}
	p, err := WriteInline(filepath.Join(dir, "inline"), ip)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.dirs[key] = p
	c.order = append(c.order, key)
	if len(c.order) > inlineCacheSize {
		old := c.order[0]
		c.order = c.order[1:]
		os.RemoveAll(filepath.Dir(c.dirs[old].Dir))
		delete(c.dirs, old)
	}
	return p, nil
}
