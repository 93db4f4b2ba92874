// Package langs is the language catalog: how to compile and run each
// language, and what each needs from the sandbox. It knows nothing of
// verdicts or NATS.
//
// It must not import any of docket's packages but internal/yamlkeys and
// langs/classfile; in particular not the sandbox, verdict, protocol or the
// worker, which build on it.
//
// The built-in catalog covers c, cpp (C++17) and their versioned ids
// (c11, cpp11, cpp14, cpp20, cpp23), python3, pypy3, java, kotlin, go,
// rust and javascript (builtin.go), and the rest of DOMjudge's default
// languages (domjudge.go), with Debian's toolchains. An interpreted
// language's compile step only checks the source (python's compile(),
// node --check, ruby -c ...), so that a syntax error is CE. Operators
// add or override languages in a YAML file (DOCKET_LANGS_FILE) without
// recompiling: an entry with a known id replaces the built-in one field
// by field, a new id adds a language.
package langs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docketjudge/docket/internal/yamlkeys"
	"go.yaml.in/yaml/v3"
)

// Language says how to build and run programs of one language. Command
// templates are argv lists; placeholders:
//
//	{main}      the main source file name (in the box)
//	{files}     every source file name (expands to several arguments)
//	{exe}       the compiled program's file name ("main")
//	{class}     the main class (find_main_class): found among the compiled
//	            classes, or the entry point (jvm.go)
//	{memory_mb} the run's memory limit in MiB (for -Xmx)
type Language struct {
	ID         string   `yaml:"id" json:"id"`
	Name       string   `yaml:"name" json:"name"`
	Aliases    []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Extensions []string `yaml:"extensions" json:"extensions"` // ".cpp"; used by docket run to infer the language
	// Source is the main source file name the box gets when the submission
	// names none that fits ("main.cpp").
	Source string `yaml:"source" json:"source"`
	// SourceNaming is a rule for the names of the language's source files
	// in the box (SourceName): "" keeps the submitted names;
	// NamePublicClass names each after its public top-level type, as
	// javac requires (the built-in java sets it).
	SourceNaming string `yaml:"source_naming,omitempty" json:"source_naming,omitempty"`
	// Compile builds {exe} from the sources; for an interpreted language
	// it is a syntax check that writes nothing (python3 compile(), node
	// --check). Empty: no compile step, the source runs as submitted.
	Compile []string `yaml:"compile,omitempty" json:"compile,omitempty"`
	Run     []string `yaml:"run" json:"run"`
	// Binds are host directories, beyond the sandbox's defaults (/usr,
	// /bin, /lib*), that compile and run need read-only.
	Binds []string `yaml:"binds,omitempty" json:"binds,omitempty"`
	Env   []string `yaml:"env,omitempty" json:"env,omitempty"`
	// Processes and threads the run needs: Processes > 1 allows fork;
	// Threads bounds a single-process run's threads (the JVM, Go and Node
	// runtimes use threads).
	Processes int `yaml:"processes,omitempty" json:"processes,omitempty"`
	Threads   int `yaml:"threads,omitempty" json:"threads,omitempty"`
	// OpenFiles is the run's file descriptor limit; 0 keeps the
	// sandbox's default (64). R refuses to start below about 170.
	OpenFiles int `yaml:"open_files,omitempty" json:"open_files,omitempty"`
	// AddressSpaceLimit applies RLIMIT_AS = the memory limit to runs. Off
	// for the JVM and Go, which reserve large virtual ranges.
	AddressSpaceLimit bool `yaml:"address_space_limit,omitempty" json:"address_space_limit,omitempty"`
	// TimeMultiplier scales the problem's time limit (interpreters, JVM start).
	TimeMultiplier float64 `yaml:"time_multiplier,omitempty" json:"time_multiplier,omitempty"`
	// CompileTime, CompileMemoryMB bound the compiler; defaults 30 s, 1024 MiB.
	CompileTime     Duration `yaml:"compile_time,omitempty" json:"compile_time,omitempty"`
	CompileMemoryMB int      `yaml:"compile_memory_mb,omitempty" json:"compile_memory_mb,omitempty"`
	// DiskMB and CompileDiskMB bound the writable space (/box and /tmp
	// together) of the language's runs and of its compiler, in MiB:
	// defaults 64 (or the problem's docket.disk_mb) and 512.
	DiskMB        int `yaml:"disk_mb,omitempty" json:"disk_mb,omitempty"`
	CompileDiskMB int `yaml:"compile_disk_mb,omitempty" json:"compile_disk_mb,omitempty"`
	// FindMainClass: after compiling, {class} is the class with public
	// static void main(String[]) among the compiled .class files (JVM
	// languages), and an entry point names a class, not a file.
	FindMainClass bool `yaml:"find_main_class,omitempty" json:"find_main_class,omitempty"`
	// OOMExitCode, when not 0, is the exit code by which the runtime
	// says the program exhausted its own heap limit (the JVM's -Xmx with
	// -XX:+ExitOnOutOfMemoryError exits 3): MLE, verdict_source
	// memory_heap, rather than RE.
	OOMExitCode int `yaml:"oom_exit_code,omitempty" json:"oom_exit_code,omitempty"`
	// MemoryReserveMB is memory a run gets beyond the problem's limit for
	// the runtime itself, when the limit applies to the program's heap
	// ({memory_mb} in -Xmx), as DOMjudge reserves for the JVM: HotSpot's
	// own memory is not the program's, and unwinding a StackOverflowError
	// from a 64 MiB stack takes 250-450 MiB of it.
	MemoryReserveMB int `yaml:"memory_reserve_mb,omitempty" json:"memory_reserve_mb,omitempty"`
	// Version is a host command printing the toolchain's version; its first
	// line is reported.
	Version []string `yaml:"version,omitempty" json:"version,omitempty"`
}

// Duration reads "30s" style values from YAML.
type Duration time.Duration

// UnmarshalYAML reads a time.ParseDuration string; an error names the
// node's line.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as time.Duration prints it ("1m30s").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Compiled reports whether the language has a compile step.
func (l *Language) Compiled() bool { return len(l.Compile) > 0 }

// Tool is the program whose presence decides whether the language is
// available: the compiler, or the interpreter.
func (l *Language) Tool() string {
	if l.Compiled() {
		return l.Compile[0]
	}
	return l.Run[0]
}

// Catalog is a set of languages by id.
type Catalog struct {
	byID  map[string]*Language
	alias map[string]string
	order []string // built-in order, then added languages: extension ties go to the earlier
}

// ErrUnknown means no language has that name.
var ErrUnknown = errors.New("unknown language")

// Builtin returns the built-in catalog.
func Builtin() *Catalog {
	c := &Catalog{byID: map[string]*Language{}, alias: map[string]string{}}
	for _, l := range builtin() {
		c.add(l)
	}
	return c
}

func (c *Catalog) add(l *Language) {
	if _, ok := c.byID[l.ID]; !ok {
		c.order = append(c.order, l.ID)
	}
	c.byID[l.ID] = l
	for _, a := range l.Aliases {
		c.alias[a] = l.ID
	}
}

// Load returns the built-in catalog with the operator's file applied.
func Load(path string) (*Catalog, error) {
	c := Builtin()
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("languages file: %w", err)
	}
	var file struct {
		Languages []yaml.Node `yaml:"languages"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("languages file %s: %w", path, err)
	}
	for i := range file.Languages {
		n := &file.Languages[i]
		var probe struct {
			ID string `yaml:"id"`
		}
		if err := n.Decode(&probe); err != nil || probe.ID == "" {
			return nil, fmt.Errorf("languages file %s: entry at line %d has no id", path, n.Line)
		}
		l := &Language{}
		if old, ok := c.byID[probe.ID]; ok {
			cp := *old
			l = &cp // override field by field
		}
		if err := decodeStrict(n, l); err != nil {
			return nil, fmt.Errorf("languages file %s: %s: %w", path, probe.ID, err)
		}
		if err := l.validate(); err != nil {
			return nil, fmt.Errorf("languages file %s: line %d: %w", path, n.Line, err)
		}
		c.add(l)
	}
	return c, nil
}

// decodeStrict decodes the mapping n into the struct *v, refusing a key
// that is no field of it. It decodes the node itself, so that an error
// names the line in the file: re-encoding the entry to decode it with
// KnownFields numbered the lines from the entry's first.
func decodeStrict(n *yaml.Node, v any) error {
	if unknown := yamlkeys.Unknown(n, v, nil); len(unknown) > 0 {
		return fmt.Errorf("line %d: unknown field %q", unknown[0].Line, unknown[0].Value)
	}
	return n.Decode(v)
}

func (l *Language) validate() error {
	if l.ID == "" || len(l.Run) == 0 || l.Source == "" {
		return fmt.Errorf("language %q needs id, source and run", l.ID)
	}
	if l.TimeMultiplier < 0 {
		return fmt.Errorf("language %s: negative time_multiplier", l.ID)
	}
	if l.SourceNaming != "" && l.SourceNaming != NamePublicClass {
		return fmt.Errorf("language %s: source_naming %q is not %s", l.ID, l.SourceNaming, NamePublicClass)
	}
	if !l.FindMainClass && usesClass(l.Run) {
		return fmt.Errorf("language %s: run uses {class} but find_main_class is off", l.ID)
	}
	if l.TimeMultiplier == 0 {
		l.TimeMultiplier = 1 // unset: the problem's limit as is
	}
	return nil
}

func usesClass(argv []string) bool {
	for _, a := range argv {
		if strings.Contains(a, "{class}") {
			return true
		}
	}
	return false
}

// Lookup finds a language by id or alias.
func (c *Catalog) Lookup(name string) (*Language, error) {
	if id, ok := c.alias[name]; ok {
		name = id
	}
	if l, ok := c.byID[name]; ok {
		return l, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(c.IDs(), ", "))
}

// IDs lists the language ids, sorted.
func (c *Catalog) IDs() []string {
	ids := make([]string, 0, len(c.byID))
	for id := range c.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// ByExtension infers the language of a file from its extension. When
// several languages share one (.cpp: cpp, cpp11 ... cpp23; .py: python3
// and pypy3; .pl: perl and prolog), the earlier in the catalog's order
// wins (cpp, python3, perl), unless the name before the extension ends in
// a language's id or alias that has the extension: sum.cpp20.cpp is
// cpp20, sum.pypy3.py pypy3, sum.prolog.pl prolog.
func (c *Catalog) ByExtension(file string) (*Language, error) {
	ext := strings.ToLower(filepath.Ext(file))
	if l := c.byTag(strings.TrimSuffix(file, filepath.Ext(file)), ext); l != nil {
		return l, nil
	}
	for _, id := range c.order {
		for _, e := range c.byID[id].Extensions {
			if e == ext {
				return c.byID[id], nil
			}
		}
	}
	return nil, fmt.Errorf("%w for %s: no language has extension %q", ErrUnknown, file, ext)
}

// byTag is the language named by the second extension of a file (stem
// is the name without its extension), if that language has ext.
func (c *Catalog) byTag(stem, ext string) *Language {
	tag := strings.TrimPrefix(filepath.Ext(stem), ".")
	if tag == "" {
		return nil
	}
	l, err := c.Lookup(tag)
	if err != nil {
		return nil
	}
	for _, e := range l.Extensions {
		if e == ext {
			return l
		}
	}
	return nil
}

// Availability is whether a language's toolchain is installed.
type Availability struct {
	Language  *Language
	Available bool
	Version   string // first line of the version command
	Reason    string // why not available
}

// Probe checks each language's tool on the host and asks its version.
func (c *Catalog) Probe(ctx context.Context) []Availability {
	return c.ProbeCached(ctx, nil)
}

// ProbeCached is Probe with the versions remembered in vc (nil: none).
// The probes run side by side, at most probeParallel at once: one by one,
// the 30 version commands took 5 s on a 2-core machine, kotlinc's JVM
// alone 2.9 s, hence the cache.
func (c *Catalog) ProbeCached(ctx context.Context, vc *VersionCache) []Availability {
	ids := c.IDs()
	out := make([]Availability, len(ids))
	sem := make(chan struct{}, probeParallel)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = c.byID[id].probe(ctx, vc)
		}()
	}
	wg.Wait()
	return out
}

const probeParallel = 16

// Probe checks one language.
func (l *Language) Probe(ctx context.Context) Availability { return l.probe(ctx, nil) }

func (l *Language) probe(ctx context.Context, vc *VersionCache) Availability {
	a := Availability{Language: l}
	if _, err := l.ToolPath(); err != nil {
		a.Reason = err.Error()
		return a
	}
	a.Available = true
	if len(l.Version) == 0 {
		return a
	}
	argv0 := l.Version[0]
	if !strings.Contains(argv0, "/") {
		// The toolchain the sandbox sees, not the first one on the host's PATH.
		for _, d := range SandboxPath {
			if st, err := os.Stat(filepath.Join(d, argv0)); err == nil && !st.IsDir() {
				argv0 = filepath.Join(d, argv0)
				break
			}
		}
	}
	argv := append([]string{argv0}, l.Version[1:]...)
	if v, ok := vc.get(argv); ok {
		a.Version = v
		return a
	}
	a.Version = runVersion(ctx, argv)
	vc.put(argv, a.Version)
	return a
}

// runVersion is the first line of a version command's output that is not
// a warning.
func runVersion(ctx context.Context, argv []string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil && len(out) == 0 {
		return "unknown (" + err.Error() + ")"
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.Contains(strings.ToLower(line), "warning") {
			return line
		}
	}
	return ""
}

// ErrNotInstalled means a language's compiler, interpreter or runtime
// is not on this host (docket langs says which; a job in it is SE).
var ErrNotInstalled = errors.New("toolchain missing")

// SandboxPath is the PATH inside the sandbox; tools must be found there.
var SandboxPath = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/go/bin"}

// ToolPath finds the language's tool on the sandbox's PATH (the same
// directories exist on the host, bound read-only), and checks that the
// run's interpreter or runtime is there too when it is another program
// (mono after mcs, java after scalac, lua5.4 after luac5.4): a language
// is available only when both are.
func (l *Language) ToolPath() (string, error) {
	p, err := findTool(l.Tool())
	if err != nil {
		return "", err
	}
	if rt := l.Run[0]; rt != l.Tool() && !strings.HasPrefix(rt, "./") && !strings.Contains(rt, "{") {
		if _, err := findTool(rt); err != nil {
			return "", err
		}
	}
	return p, nil
}

func findTool(t string) (string, error) {
	if strings.Contains(t, "/") {
		if _, err := os.Stat(t); err != nil {
			return "", fmt.Errorf("%w: %s is not installed: %v", ErrNotInstalled, t, err)
		}
		return t, nil
	}
	for _, d := range SandboxPath {
		p := filepath.Join(d, t)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s is not installed (not found in %s)", ErrNotInstalled, t, strings.Join(SandboxPath, ":"))
}

// ErrFileName means a file name breaks the rule of ValidFileName.
var ErrFileName = errors.New("invalid file name")

// MaxFileName bounds a file name's length: Linux's NAME_MAX.
const MaxFileName = 255

// ValidFileName applies the rule for the names of a program's files (a
// submission's, a checker's): 1 to MaxFileName characters of the POSIX
// portable filename set [A-Za-z0-9._-] plus '+' (the catalog's ".c++"),
// the first a letter, a digit or '_'. DOMjudge accepts the same set.
//
// The names reach compiler and interpreter command lines, so a name must
// be data, never an option: '-' (gcc -wrapper, go -toolexec) and '@'
// (an option file for gcc, javac, kotlinc, rustc) cannot start one, nor
// '.' (., .., hidden files) or '+'. No '/', backslash, space, quote or control
// byte can occur, so a name is one path element and one argument.
// Ordinary names pass: Main.java, sol_1.cpp, a-b.py, a+b.c++.
func ValidFileName(n string) error {
	if len(n) == 0 || len(n) > MaxFileName || !nameStart(n[0]) {
		return fileNameError(n)
	}
	for i := 1; i < len(n); i++ {
		if !nameStart(n[i]) && n[i] != '.' && n[i] != '-' && n[i] != '+' {
			return fileNameError(n)
		}
	}
	return nil
}

func nameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func fileNameError(n string) error {
	// The name is quoted cut short: it is hostile input, and the message
	// goes into a result that must fit in one queue message.
	q := n
	if len(q) > 64 {
		q = q[:64] + "..."
	}
	return fmt.Errorf("%w %q (%d bytes): file names are 1-%d characters of A-Z a-z 0-9 _ . + -, "+
		"starting with a letter, a digit or _", ErrFileName, q, len(n), MaxFileName)
}

// Expand fills a command template. The file names of {files} and {main}
// are given as ./name, so that no tool reads a name as an option or an
// option file (gcc, javac, kotlinc and rustc read @file anywhere on the
// command line; everything that starts with '-' is an option to all of
// them), even a name that escaped ValidFileName or a template an
// operator wrote. {class} is a Java class name, not a path.
func Expand(tmpl []string, vars map[string]string, files []string) []string {
	var out []string
	for _, a := range tmpl {
		if a == "{files}" {
			for _, f := range files {
				out = append(out, FileArg(f))
			}
			continue
		}
		for k, v := range vars {
			if k == "main" {
				v = FileArg(v)
			}
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out = append(out, a)
	}
	return out
}

// FileArg is the command-line argument naming the file n of the working
// directory: ./n.
func FileArg(n string) string { return "./" + n }
