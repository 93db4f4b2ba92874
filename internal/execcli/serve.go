package execcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/docketjudge/docket/sandbox"
)

// SocketPath is where the server listens and the client connects:
// DOCKET_EXEC_SOCKET, else exec.sock in the state directory.
func (e SandboxEnv) SocketPath() string {
	if e.ExecSocket != "" {
		return e.ExecSocket
	}
	dir := e.SandboxDir
	if dir == "" {
		dir = sandbox.DefaultStateDir()
	}
	return filepath.Join(dir, "exec.sock")
}

// serveFlags is --serve: the flags say nothing else, the sandbox comes
// from the environment, and the server runs until SIGINT or SIGTERM.
func (c Command) serveFlags(f *Flags, argv []string) int {
	var others []string
	f.fs.Visit(func(fl *flag.Flag) {
		if fl.Name != "serve" {
			others = append(others, "--"+fl.Name)
		}
	})
	switch {
	case c.Slot != nil:
		c.failf("--serve: a command run by a server cannot serve")
		return ExitUsage
	case len(argv) > 0 || len(others) > 0:
		c.failf("--serve takes no command and no other flag (%v): each client's command line gives its own", append(others, argv...))
		return ExitUsage
	}
	e, err := LoadSandboxEnv()
	if err != nil {
		c.failf("%v", err)
		return ExitUsage
	}
	sb, err := OpenSandbox()
	if err != nil {
		c.failf("%v", err)
		return ExitSystem
	}
	defer sb.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Serve(ctx, sb, e.SocketPath(), c.stderr()); err != nil {
		c.failf("--serve: %v", err)
		return ExitSystem
	}
	return ExitOK
}

// server runs clients' commands in the slots of one Sandbox, kept warm
// between commands: the zygote, the slots' cgroups and network
// namespaces, the probes, the Go runtime, all made once.
type server struct {
	sb  *sandbox.Sandbox
	log io.Writer
	// env is the server's value of each sandbox variable, in
	// SandboxEnv's order, which a client's must match (sameEnv).
	env []envVar
	// idle are slots between commands, at most one per CPU; a command
	// that finds none takes a new slot.
	idle chan *sandbox.Slot
	// uid is the only user whose clients are served: the server's own.
	uid      int
	handlers sync.WaitGroup
	// runs is the context of every command's run; stopping cancels it
	// when the commands under way outlast the drain.
	runs       context.Context
	cancelRuns context.CancelFunc
	// mu guards stopped: once the server stops, a slot given back is
	// released rather than kept.
	mu      sync.Mutex
	stopped bool
}

// How the server stops: the commands under way get drainGrace to end on
// their own, then their runs are killed (their clients get SE,
// cancelled) and their answers get answerGrace to be written; a handler
// still stuck then (writing to a client's pipe nobody reads) is left to
// the process's exit.
const (
	drainGrace  = 10 * time.Second
	answerGrace = 2 * time.Second
)

// Serve listens on the unix socket at path and runs each client's command
// in sb until ctx ends; then it stops listening, waits for the commands
// under way and releases its slots. log receives one line per failed
// request and the server's start and end.
func Serve(ctx context.Context, sb *sandbox.Sandbox, path string, log io.Writer) error {
	ln, err := listen(path)
	if err != nil {
		return err
	}
	s := &server{sb: sb, log: log, env: sandboxEnvNow(), idle: make(chan *sandbox.Slot, runtime.NumCPU()), uid: os.Geteuid()}
	s.runs, s.cancelRuns = context.WithCancel(context.Background())
	defer s.cancelRuns()
	fmt.Fprintf(log, "docket-exec: serving on %s (level %s); SIGTERM or SIGINT ends it\n", path, sb.Capabilities().Level)
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		conn, err := ln.accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			fmt.Fprintf(log, "docket-exec: accept: %v\n", err)
			time.Sleep(10 * time.Millisecond) // out of descriptors, say: not a busy loop
			continue
		}
		s.handlers.Add(1)
		go func() {
			defer s.handlers.Done()
			s.handle(conn)
		}()
	}
	s.stop()
	return nil
}

// stop waits for the commands under way (drainGrace, answerGrace) and
// releases the idle slots.
func (s *server) stop() {
	done := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(drainGrace):
		fmt.Fprintf(s.log, "docket-exec: commands still running after %v: killing their runs\n", drainGrace)
		s.cancelRuns()
		select {
		case <-done:
		case <-time.After(answerGrace):
			fmt.Fprintf(s.log, "docket-exec: answers still unwritten after %v more: stopping without them\n", answerGrace)
		}
	}
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	for {
		select {
		case sl := <-s.idle:
			sl.Release()
		default:
			fmt.Fprintln(s.log, "docket-exec: stopped serving")
			return
		}
	}
}

// lend lends a command an idle slot, or a new one.
func (s *server) lend() (*sandbox.Slot, func(), error) {
	var sl *sandbox.Slot
	select {
	case sl = <-s.idle:
	default:
		var err error
		if sl, err = s.sb.AcquireSlot(); err != nil {
			return nil, nil, err
		}
	}
	return sl, func() { s.giveBack(sl) }, nil
}

// giveBack keeps a slot for the next command, or releases it when enough
// are kept.
func (s *server) giveBack(sl *sandbox.Slot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		sl.Release()
		return
	}
	select {
	case s.idle <- sl:
	default:
		sl.Release()
	}
}

// sandboxVars are the names of the variables that configure the sandbox
// (SandboxEnv), which a client must share with its server; the socket
// is only how the client found it.
func sandboxVars() []string {
	var names []string
	t := reflect.TypeOf(SandboxEnv{})
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Name != "ExecSocket" {
			names = append(names, "DOCKET_"+t.Field(i).Tag.Get("envconfig"))
		}
	}
	return names
}

// envVar is one variable's name and value.
type envVar struct{ name, value string }

// sandboxEnvNow is this process's value of each sandbox variable, read
// once when the server starts.
func sandboxEnvNow() []envVar {
	var env []envVar
	for _, name := range sandboxVars() {
		env = append(env, envVar{name, os.Getenv(name)})
	}
	return env
}

// errEnvDiffers means a client's sandbox variables are not its server's:
// its command would run in another sandbox than it asked for.
var errEnvDiffers = errors.New("the server's sandbox is not the one this command's variables ask for")

// sameEnv checks a client's variables against the server's.
func (s *server) sameEnv(client map[string]string) error {
	for _, v := range s.env {
		if client[v.name] != v.value {
			return fmt.Errorf("%w: %s is %q here and %q for the server (start a server with the same variables)", errEnvDiffers, v.name, client[v.name], v.value)
		}
	}
	return nil
}
