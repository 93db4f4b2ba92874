package main

import (
	"github.com/docketjudge/docket/internal/execcli"
	"github.com/docketjudge/docket/sandbox"
	"github.com/kelseyhightower/envconfig"
)

// sandboxEnv is the sandbox's part of the configuration (DOCKET_*),
// shared with docket-exec.
type sandboxEnv = execcli.SandboxEnv

var loadSandboxEnv = execcli.LoadSandboxEnv

// envProcess reads DOCKET_* variables into a configuration struct.
func envProcess(v any) error { return envconfig.Process("docket", v) }

// openSandbox builds the sandbox from the environment, reporting a level
// below the minimum as an error.
func openSandbox() (*sandbox.Sandbox, error) { return execcli.OpenSandbox() }
