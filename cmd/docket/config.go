package main

import (
	"github.com/docketjudge/docket/sandbox"
	"github.com/kelseyhightower/envconfig"
)

// sandboxEnv is the sandbox's part of the configuration (DOCKET_*).
type sandboxEnv struct {
	SandboxDir      string `envconfig:"SANDBOX_DIR" desc:"state directory: slot locks, new-root mount point, temporary boxes (default /run/docket as root, $TMPDIR/docket-<uid> otherwise)"`
	SandboxUIDBase  int    `envconfig:"SANDBOX_UID_BASE" default:"61000" desc:"first sandbox uid; slot N uses BASE+2N (targets) and BASE+2N+1 (checkers, interactors)"`
	CgroupParent    string `envconfig:"CGROUP_PARENT" desc:"create run cgroups beneath this cgroup path (default: beneath docket's own cgroup)"`
	CgroupVersion   int    `envconfig:"CGROUP_VERSION" default:"0" desc:"force cgroup v1 or v2 (0: auto)"`
	SandboxMinLevel string `envconfig:"SANDBOX_MIN_LEVEL" default:"full" desc:"weakest isolation accepted: full, userns, rlimits, none"`
	SandboxDebug    string `envconfig:"SANDBOX_DEBUG" desc:"file that receives one JSON line per sandbox start"`
	ExecHelpers     bool   `envconfig:"SANDBOX_EXEC_HELPERS" default:"false" desc:"exec every run's helper and build its whole root, without the zygote (slower; for comparison and debugging)"`
}

func loadSandboxEnv() (sandboxEnv, error) {
	var e sandboxEnv
	err := envProcess(&e)
	return e, err
}

// envProcess reads DOCKET_* variables into a configuration struct.
func envProcess(v any) error { return envconfig.Process("docket", v) }

func (e sandboxEnv) config() (sandbox.Config, error) {
	lvl, err := sandbox.ParseLevel(e.SandboxMinLevel)
	if err != nil {
		return sandbox.Config{}, err
	}
	return sandbox.Config{
		StateDir: e.SandboxDir, UIDBase: e.SandboxUIDBase, CgroupParent: e.CgroupParent,
		CgroupVersion: e.CgroupVersion, MinLevel: lvl, DebugLog: e.SandboxDebug,
		ExecHelpers: e.ExecHelpers,
	}, nil
}

// openSandbox builds the sandbox from the environment, reporting a level
// below the minimum as an error.
func openSandbox() (*sandbox.Sandbox, error) {
	e, err := loadSandboxEnv()
	if err != nil {
		return nil, err
	}
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	return sandbox.New(cfg)
}
