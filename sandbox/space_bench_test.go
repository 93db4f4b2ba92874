package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSpace measures what a run's writable space costs docket on the
// run's path, apart from the run: making the tmpfs and its two clones,
// copying a box in (empty, holding a 1 MiB program, and one of 2.1 MiB,
// which is copied in a huge page), the final
// statfs; and, off the path, releasing it. It reports the tmpfs's bytes
// and inodes before the run.
func BenchmarkSpace(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("a tmpfs of the run's own needs root (fsmount)")
	}
	full, static := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(full, "main"), make([]byte, 1<<20), 0o755); err != nil {
		b.Fatal(err)
	}
	// A statically linked C++ a+b's size (g++ 12 -static): copied in a
	// huge page (space_huge.go).
	if err := os.WriteFile(filepath.Join(static, "main"), make([]byte, 2215536), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, box string }{{"empty", ""}, {"1MiB-program", full}, {"2.1MiB-program", static}} {
		b.Run(tc.name, func(b *testing.B) {
			lim := Limits{}.withDefaults()
			var release time.Duration
			var base usage
			for i := 0; i < b.N; i++ {
				sp, err := newSpace(spaceKey{host: tc.box, disk: lim.Disk, inodes: lim.DiskInodes, uid: 65000, gid: 65000})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sp.passed(); err != nil {
					b.Fatal(err)
				}
				base = sp.base
				b.StopTimer()
				t0 := time.Now()
				sp.mnt.Close() // synchronously here, to measure it
				release += time.Since(t0)
				b.StartTimer()
			}
			b.ReportMetric(float64(base.bytes), "base-bytes")
			b.ReportMetric(float64(base.inodes), "base-inodes")
			b.ReportMetric(float64(release.Microseconds())/float64(b.N), "release-us")
		})
	}
}
