package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/docketjudge/docket/sandbox"
)

// `docket selftest --once` keeps its report in the sandbox's state
// directory and, while it holds, answers from it instead of running the
// checks again. The container's entrypoint runs the checks once at start;
// the health check's first step is the same command, which then costs a
// file read instead of a sandbox run (and no slot taken from the worker)
// every few seconds. The report holds as long as the docket binary and
// the boot are the ones it was made with; the state directory is a tmpfs
// (/run/docket) in every deployment docket ships, so a new container
// starts without one.

const selftestReportName = "selftest.json"

func selftestReportPath(cfg sandbox.Config) string {
	dir := cfg.StateDir
	if dir == "" {
		dir = sandbox.DefaultStateDir()
	}
	return filepath.Join(dir, selftestReportName)
}

// selftestKey names what a kept report is valid for: this binary (its
// version, path, size and modification time) on this boot.
func selftestKey() string {
	exe, _ := os.Executable()
	var size, mtime int64
	if st, err := os.Stat(exe); err == nil {
		size, mtime = st.Size(), st.ModTime().UnixNano()
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return fmt.Sprintf("%s|%s|%d|%d|%s", version, exe, size, mtime, strings.TrimSpace(string(boot)))
}

// loadSelftestReport is the kept report at path, if it was made for key.
func loadSelftestReport(path, key string) (selftestReport, bool) {
	var rep selftestReport
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &rep) != nil || rep.Key != key {
		return selftestReport{}, false
	}
	return rep, true
}

// saveSelftestReport writes rep to path whole (a temporary file renamed),
// so a health check never reads half a report.
func saveSelftestReport(path string, rep selftestReport) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
