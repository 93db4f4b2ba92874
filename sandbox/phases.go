package sandbox

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// phases, when not nil, records how long each step of every run takes
// (the tests' phase breakdown turns it on; nothing else does).
var phases *phaseLog

type phaseLog struct {
	mu    sync.Mutex
	order []string
	d     map[string][]time.Duration
}

func (p *phaseLog) add(step string, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.d[step]; !ok {
		p.order = append(p.order, step)
	}
	p.d[step] = append(p.d[step], d)
}

// mark ends the step that began at the previous mark of this Cmd.
func (c *Cmd) mark(step string) {
	if phases == nil {
		return
	}
	now := time.Now()
	if step != "" && !c.lastMark.IsZero() {
		phases.add(step, now.Sub(c.lastMark))
	}
	c.lastMark = now
}

// report is one line per step, in the order of the steps: mean and median.
func (p *phaseLog) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	var total float64
	for _, step := range p.order {
		d := append([]time.Duration{}, p.d[step]...)
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		mean := float64(sum) / float64(len(d)) / 1e6
		total += mean
		fmt.Fprintf(&b, "%-40s mean %.3f ms  median %.3f ms  (%d runs)\n", step, mean, float64(d[len(d)/2])/1e6, len(d))
	}
	fmt.Fprintf(&b, "%-40s mean %.3f ms\n", "total", total)
	return b.String()
}
