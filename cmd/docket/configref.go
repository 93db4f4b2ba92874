package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kelseyhightower/envconfig"
)

func init() {
	register("config", "the configuration reference: docket config reference prints every DOCKET_* variable as Markdown", runConfig)
}

// envGroup is one configuration struct as the reference presents it.
type envGroup struct {
	title string
	intro string
	spec  any
	// commands read the whole struct (envconfig parses every field, so a
	// malformed value fails each of them).
	commands []string
	// usedBy names, for a variable that only some of those commands act
	// on, the ones that do. Kept by hand: update it when a command starts
	// or stops using a field (TestConfigGroups checks it stays consistent).
	usedBy map[string][]string
}

// natsClients are the commands that dial DOCKET_NATS_URL; docket serve
// talks to its embedded server in-process instead.
var natsClients = []string{"worker", "bridge", "submit", "problem push", "problem list"}

// envGroups is every configuration struct, in the order of the reference.
// A struct with envconfig tags that is missing here fails TestConfigGroups.
var envGroups = []envGroup{
	{
		title:    "Sandbox",
		intro:    "How runs are isolated on this host (docs/sandbox.md). Every command that runs programs opens the sandbox with these.",
		spec:     &sandboxEnv{},
		commands: []string{"exec", "selftest", "run", "problem check", "worker", "serve"},
		usedBy: map[string][]string{
			"DOCKET_EXEC_SOCKET": {"exec"},
		},
	},
	{
		title:    "Languages and judging",
		intro:    "The language catalog and the directories judging works in (docs/languages.md).",
		spec:     &langsEnv{},
		commands: []string{"langs", "run", "problem check", "worker", "serve"},
		usedBy: map[string][]string{
			"DOCKET_CACHE_DIR":      {"langs", "run", "problem check", "worker", "serve"},
			"DOCKET_WORK_DIR":       {"run", "problem check", "worker", "serve"},
			"DOCKET_WALL_OVERSHOOT": {"run", "problem check", "worker", "serve"},
		},
	},
	{
		title:    "Queue and NATS",
		intro:    "The JetStream side: connection, subjects, the jobs consumer, the worker's limits and its health server (docs/protocol.md).",
		spec:     &queueEnv{},
		commands: []string{"worker", "serve", "bridge", "submit", "problem push", "problem list"},
		usedBy: map[string][]string{
			"DOCKET_NATS_URL":            natsClients,
			"DOCKET_NATS_CREDS":          natsClients,
			"DOCKET_NATS_TOKEN":          natsClients,
			"DOCKET_NATS_TLS_CA":         natsClients,
			"DOCKET_NATS_TLS_CERT":       natsClients,
			"DOCKET_NATS_TLS_KEY":        natsClients,
			"DOCKET_SUBJECT_PREFIX":      {"worker", "serve", "bridge", "submit", "problem push"},
			"DOCKET_QUEUE":               {"worker", "serve", "submit"},
			"DOCKET_ACK_WAIT":            {"worker", "serve"},
			"DOCKET_MAX_DELIVER":         {"worker", "serve"},
			"DOCKET_BACKOFF":             {"worker", "serve"},
			"DOCKET_REPLICAS":            {"worker", "serve", "problem push"},
			"DOCKET_GRACE":               {"worker", "serve"},
			"DOCKET_METRICS_ADDR":        {"worker"},
			"DOCKET_MAX_SOURCE_BYTES":    {"worker", "serve", "submit"},
			"DOCKET_SUBMIT_RETRY":        {"submit"},
			"DOCKET_UNSERVED_AFTER":      {"worker", "serve"},
			"DOCKET_PROBLEM_CACHE_BYTES": {"worker", "serve"},
			"DOCKET_LOG_LEVEL":           {"worker", "serve", "bridge"},
		},
	},
	{
		title:    "Bridge",
		intro:    "The SSE bridge (bridge/README.md). docket serve mounts it on its own listener; docket token mints per-submission tokens with its secret.",
		spec:     &bridgeEnv{},
		commands: []string{"bridge", "serve", "token"},
		usedBy: map[string][]string{
			"DOCKET_BRIDGE_ADDR":                 {"bridge", "serve"},
			"DOCKET_BRIDGE_TOKEN":                {"bridge", "serve"},
			"DOCKET_BRIDGE_CORS_ORIGINS":         {"bridge", "serve"},
			"DOCKET_BRIDGE_MAX_CONNS":            {"bridge", "serve"},
			"DOCKET_BRIDGE_MAX_CONNS_PER_CLIENT": {"bridge", "serve"},
			"DOCKET_BRIDGE_HEARTBEAT":            {"bridge", "serve"},
			"DOCKET_DATA_DIR":                    {"serve", "token"},
		},
	},
	{
		title: "docket worker",
		intro: "The worker's mode and its default feedback policy. The capacity-test mode judges nothing and answers every job with SE \"not judged\"; it exists to measure the queue alone and is refused unless asked for by its exact name. " +
			"The feedback policy decides which tests' details (checker and comparison messages) a contestant's per-submission token shows through the bridge; a job's `feedback_policy`, then the package's `docket.feedback`, come before it (docs/protocol.md). An unknown value stops the worker.",
		spec:     &workerEnv{},
		commands: []string{"worker", "serve"},
		usedBy: map[string][]string{
			"DOCKET_WORKER_MODE": {"worker"},
		},
	},
	{
		title:    "docket serve",
		intro:    "The single-machine default's own settings; `--data DIR` overrides DOCKET_DATA_DIR.",
		spec:     &serveEnv{},
		commands: []string{"serve"},
	},
}

// internalEnv are DOCKET_* variables that the code reads but that are no
// configuration: docket sets them itself. TestGetenvDocumented fails on a
// DOCKET_* read that is neither here nor in a struct above.
var internalEnv = []struct{ name, why string }{
	{"DOCKET_ESCAPE", "set by docket selftest, only in the environment of its hostile probe inside the sandbox: it turns the docket binary into that probe"},
	{"DOCKET_SELFTEST_SECRET", "set by docket selftest in its own environment, to check that nothing of it reaches the sandboxed probe"},
	{"DOCKET_TEST_GUARDED", "tests only: set by internal/testguard when the test binary re-executes itself inside its guard"},
	{"DOCKET_MOUNTTEST_CASE", "tests only: set by sandbox/mount/mounttest when a bind test re-executes itself in a user namespace, naming the case to run there"},
}

func runConfig(args []string) int {
	fs := newFlags("config", helpText{
		synopsis: "reference",
		about:    "Prints the configuration reference (every DOCKET_* variable: type, default,\nthe commands that use it, what it does) as Markdown; docs/config.md is its output.",
		example:  "docket config reference > docs/config.md",
	})
	if code, ok := parseArgs(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || fs.Arg(0) != "reference" {
		fmt.Fprintln(stderr, "docket config: want the subcommand reference (docket config --help)")
		return exitUsage
	}
	if err := writeConfigReference(stdout); err != nil {
		fmt.Fprintln(stderr, "docket config reference:", err)
		return exitSystem
	}
	return exitOK
}

// envVar is one variable of a configuration struct, as envconfig sees it.
type envVar struct{ key, typ, def, desc string }

// structVars lists spec's variables through envconfig itself, so the
// reference names exactly the keys, types and defaults it parses.
func structVars(spec any) ([]envVar, error) {
	var buf bytes.Buffer
	if err := envconfig.Usagef("docket", spec, &buf, "{{range .}}{{usage_key .}}\t{{usage_type .}}\t{{usage_default .}}\t{{usage_description .}}\n{{end}}"); err != nil {
		return nil, err
	}
	var out []envVar
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected envconfig usage line %q", line)
		}
		out = append(out, envVar{f[0], f[1], f[2], f[3]})
	}
	return out, nil
}

func writeConfigReference(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# Configuration reference

<!-- Generated by ` + "`docket config reference`" + ` from the configuration structs in
cmd/docket. Do not edit: change the struct tags and run ` + "`make docs`" + `. -->

docket reads its configuration from ` + "`DOCKET_*`" + ` environment variables
(parsed by envconfig when a command starts) and from each command's flags
(` + "`docket <command> --help`" + `). A value that does not parse (a duration
without a unit, a word where a number belongs) stops the command with exit
code 2 and names the variable. Durations are Go durations (` + "`30s`" + `,
` + "`2m`" + `, ` + "`1h30m`" + `); booleans ` + "`true`/`false`/`1`/`0`" + `; lists comma-separated.

"Commands" names the commands that act on a variable. Every command a
section's "Read by" line names parses the whole section, so a malformed
value there fails it even where the variable is unused. The deployment
artifacts are in [deploy.md](deploy.md), how to run docket in
[operations.md](operations.md).

`)
	for _, g := range envGroups {
		vars, err := structVars(g.spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "## %s\n\n%s\n\nRead by: %s.\n\n", g.title, g.intro, commandList(g.commands))
		b.WriteString("| variable | type | default | commands | description |\n|---|---|---|---|---|\n")
		for _, v := range vars {
			cmds := g.commands
			if u, ok := g.usedBy[v.key]; ok {
				cmds = u
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", v.key, typeName(v.typ), defaultText(v), strings.Join(cmds, ", "), mdCell(v.desc))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Not configuration\n\nThese `DOCKET_*` variables are read by the code but set by docket itself; do not set them.\n\n| variable | why it exists |\n|---|---|\n")
	for _, v := range internalEnv {
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.name, mdCell(v.why))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func commandList(cmds []string) string {
	q := make([]string, len(cmds))
	for i, c := range cmds {
		q[i] = "`docket " + c + "`"
	}
	return strings.Join(q, ", ")
}

// typeName shortens envconfig's type descriptions.
func typeName(t string) string {
	switch t {
	case "String":
		return "string"
	case "Integer":
		return "integer"
	case "True or False":
		return "bool"
	case "Duration":
		return "duration"
	case "Comma-separated list of String":
		return "list of strings"
	case "Overshoot":
		return "overshoot" // verdict/overshoot: Ns, N% or two joined by + | &
	}
	return t
}

func defaultText(v envVar) string {
	if v.def == "" {
		return "—"
	}
	d := "`" + mdCell(v.def) + "`" // a | inside a code span still ends a table cell
	if n, err := strconv.ParseInt(v.def, 10, 64); err == nil && strings.HasSuffix(v.key, "_BYTES") && n >= 1<<10 {
		d += " (" + humanBytes(n) + ")"
	}
	return d
}

func humanBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " " + units[i]
}

// mdCell keeps a description inside its table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
