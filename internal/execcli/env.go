package execcli

import (
	"fmt"
	"io"
	"reflect"
	"text/tabwriter"

	"github.com/docketjudge/docket/sandbox"
	"github.com/kelseyhightower/envconfig"
)

// SandboxEnv is the sandbox's part of the configuration (DOCKET_*): every
// command that runs programs reads it, docket-exec included, so it lives
// here rather than in cmd/docket.
type SandboxEnv struct {
	SandboxDir      string `envconfig:"SANDBOX_DIR" desc:"state directory: slot locks, new-root mount point, temporary boxes (default /run/docket as root, $TMPDIR/docket-<uid> otherwise)"`
	SandboxUIDBase  int    `envconfig:"SANDBOX_UID_BASE" default:"61000" desc:"first sandbox uid; slot N uses BASE+2N (targets) and BASE+2N+1 (checkers, interactors)"`
	CgroupParent    string `envconfig:"CGROUP_PARENT" desc:"create run cgroups beneath this cgroup path (default: beneath docket's own cgroup)"`
	CgroupVersion   int    `envconfig:"CGROUP_VERSION" default:"0" desc:"force cgroup v1 or v2 (0: auto)"`
	SandboxMinLevel string `envconfig:"SANDBOX_MIN_LEVEL" default:"full" desc:"weakest isolation accepted: full, userns, rlimits, none"`
	SandboxDebug    string `envconfig:"SANDBOX_DEBUG" desc:"file that receives one JSON line per sandbox start"`
	ExecHelpers     bool   `envconfig:"SANDBOX_EXEC_HELPERS" default:"false" desc:"exec every run's helper and build its whole root, without the zygote (slower; for comparison and debugging)"`
	ExecSocket      string `envconfig:"EXEC_SOCKET" desc:"unix socket of docket-exec --serve, where docket-exec-client sends its command lines (default exec.sock in the state directory)"`
	NetNSPerRun     bool   `envconfig:"SANDBOX_NETNS_PER_RUN" default:"false" desc:"give every run a network namespace of its own instead of its slot's, which docket checks to hold no socket before each run (about 0.8 ms more CPU a run; docs/sandbox.md, \"The slot's network namespace\")"`
}

// LoadSandboxEnv reads the DOCKET_* sandbox variables.
func LoadSandboxEnv() (SandboxEnv, error) {
	var e SandboxEnv
	err := envconfig.Process("docket", &e)
	return e, err
}

// Config is the sandbox configuration the variables describe.
func (e SandboxEnv) Config() (sandbox.Config, error) {
	lvl, err := sandbox.ParseLevel(e.SandboxMinLevel)
	if err != nil {
		return sandbox.Config{}, err
	}
	return sandbox.Config{
		StateDir: e.SandboxDir, UIDBase: e.SandboxUIDBase, CgroupParent: e.CgroupParent,
		CgroupVersion: e.CgroupVersion, MinLevel: lvl, DebugLog: e.SandboxDebug,
		ExecHelpers: e.ExecHelpers, NetNSPerRun: e.NetNSPerRun,
	}, nil
}

// OpenSandbox builds the sandbox from the environment, reporting a level
// below the minimum as an error.
func OpenSandbox() (*sandbox.Sandbox, error) { return openSandbox(false) }

// OpenOneRun is OpenSandbox for a command that runs one program, which
// makes nothing ahead for a next run (sandbox.Config.OneRun).
func OpenOneRun() (*sandbox.Sandbox, error) { return openSandbox(true) }

func openSandbox(oneRun bool) (*sandbox.Sandbox, error) {
	e, err := LoadSandboxEnv()
	if err != nil {
		return nil, err
	}
	cfg, err := e.Config()
	if err != nil {
		return nil, err
	}
	cfg.OneRun = oneRun
	return sandbox.New(cfg)
}

// writeEnv lists SandboxEnv's variables for docket-exec's --help, read
// from the struct tags as docket's own help does (through envconfig's
// template there; reflect here, which keeps text/template out of the
// small binary).
func writeEnv(w io.Writer) {
	fmt.Fprintln(w, "\nenvironment:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	t := reflect.TypeOf(SandboxEnv{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		def := f.Tag.Get("default")
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "  DOCKET_%s\t%s\tdefault %s\t%s\n", f.Tag.Get("envconfig"), typeName(f.Type.Kind()), def, f.Tag.Get("desc"))
	}
	tw.Flush()
}

// typeName names a variable's type as docket's help does.
func typeName(k reflect.Kind) string {
	switch k {
	case reflect.Int:
		return "integer"
	case reflect.Bool:
		return "bool"
	}
	return k.String()
}
