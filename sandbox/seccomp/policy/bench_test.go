package policy

import (
	"testing"

	"github.com/docketjudge/docket/sandbox/seccomp"
)

// BenchmarkAssemble is the one-time cost of a kind of run's filters.
func BenchmarkAssemble(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, p := range Policies(seccomp.Options{SingleProcess: true, NoNetwork: true}) {
			if _, err := p.Assemble(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
