package verdict

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/sandbox/mount"
	"github.com/docketjudge/docket/verdict/problem"
)

// compileLogCap bounds the compiler log kept in a result.
const compileLogCap = 64 << 10

// built is a program ready to run: its files (read-only, owned by root)
// and its command.
type built struct {
	lang  *langs.Language
	dir   string            // host directory with the program's files
	vars  map[string]string // template values
	files []string
}

// command returns the run argv for a memory limit.
func (b *built) command(memMB int, extra ...string) []string {
	vars := map[string]string{}
	for k, v := range b.vars {
		vars[k] = v
	}
	vars["memory_mb"] = fmt.Sprint(memMB)
	return append(langs.Expand(b.lang.Run, vars, b.files), extra...)
}

// binds are the language's extra read-only directories.
func binds(l *langs.Language) []mount.Bind {
	var out []mount.Bind
	for _, b := range l.Binds {
		out = append(out, mount.Bind{Source: b, Optional: true})
	}
	return out
}

// buildSubmission writes the files into a box, compiles them there, and
// returns the program. A compiler failure is a CompileResult with OK
// false (CE); err is for docket's own failures (SE). The submission's
// entry point, when it names one, chooses the main source or class.
func (r *judging) buildSubmission(files map[string][]byte, name string) (b *built, cr CompileResult, err error) {
	ent, msg := submissionEntry(r.lang, files, r.entry)
	if msg != "" {
		return nil, CompileResult{Log: msg}, nil
	}
	r.timed(func() { b, cr, err = buildMain(r.ctx, r.slot, r.lang, files, ent, filepath.Join(r.ws, name), false) })
	return
}

// buildWithIncludes is buildSubmission with the problem's include files
// for the language added (withIncludes); an include's main source is the
// entry point, whatever the submission named.
func (r *judging) buildWithIncludes(files map[string][]byte, name string) (*built, CompileResult, error) {
	files, main, notes, err := withIncludes(r.j.Langs, r.lang, r.p, files)
	if err != nil {
		return nil, CompileResult{}, err
	}
	entry := r.entry
	if main != "" {
		r.entry = main
		defer func() { r.entry = entry }()
	}
	b, cr, err := r.buildSubmission(files, name)
	if len(notes) > 0 {
		cr.Log = strings.TrimSpace("[docket] " + strings.Join(notes, "\n[docket] ") + "\n" + cr.Log)
	}
	return b, cr, err
}

func build(slot *sandbox.Slot, lang *langs.Language, files map[string][]byte, dir string, trusted bool) (*built, CompileResult, error) {
	return buildMain(context.Background(), slot, lang, files, entryPoint{}, dir, trusted)
}

// buildMain is build with the entry point named (empty parts: found by
// the language's rules): a problem's program names its main source.
func buildMain(ctx context.Context, slot *sandbox.Slot, lang *langs.Language, files map[string][]byte, ent entryPoint, dir string, trusted bool) (*built, CompileResult, error) {
	var cr CompileResult
	uid := slot.UID
	if trusted {
		uid = slot.TrustedUID
	}
	if err := mkBox(dir, uid); err != nil {
		return nil, cr, err
	}
	src, msg := arrange(lang, files, ent.file)
	if src == nil {
		cr.Log = msg
		return nil, cr, nil
	}
	for n, body := range src.files {
		if err := os.WriteFile(filepath.Join(dir, n), body, 0o644); err != nil {
			return nil, cr, err
		}
		chownIf(filepath.Join(dir, n), uid)
	}
	b := &built{lang: lang, dir: dir, vars: src.vars, files: src.sources}
	if !lang.Compiled() {
		cr.OK = true
		return b, cr, lockDown(dir)
	}
	b, cr, err := compile(ctx, slot, b, trusted)
	if err != nil || !cr.OK || !lang.FindMainClass {
		return b, cr, err
	}
	return withMainClass(b, cr, ent.class, files)
}

// sourceSet is a program's files as the box gets them.
type sourceSet struct {
	files   map[string][]byte // every file, written into the box
	sources []string          // the language's sources, sorted: {files}
	vars    map[string]string // {exe}, {main}; {class} after compiling
}

// arrange picks the sources and the main file. Only the files with one
// of the language's extensions are sources, given to the compiler; the
// rest (headers, data) stay in the box for the program to read, as in
// DOMjudge and Kattis: a file that is not a source never reaches the
// command line. The main source is prefer when it is one (a problem's
// program names its own, or the submission's entry point), else the
// first, sorted; sources are renamed as the language requires (Java's
// after their public class). A nil set comes with the reason (a CE log).
func arrange(lang *langs.Language, files map[string][]byte, prefer string) (*sourceSet, string) {
	s := &sourceSet{files: files, vars: map[string]string{"exe": "main"}}
	var names []string
	for n := range files {
		names = append(names, n)
		if hasExt(n, lang.Extensions) {
			s.sources = append(s.sources, n)
		}
	}
	sort.Strings(names)
	sort.Strings(s.sources)
	if len(s.sources) == 0 {
		return nil, fmt.Sprintf("no %s source file (%s) in the submission: %s", lang.Name, strings.Join(lang.Extensions, ", "), strings.Join(names, ", "))
	}
	main := s.sources[0]
	if _, ok := files[prefer]; ok && hasExt(prefer, lang.Extensions) {
		main = prefer
	}
	s.vars["main"] = nameSources(lang, s, main)
	return s, ""
}

// compile runs the language's compiler on b's box. A compiler failure is
// a CompileResult with OK false; err is for docket's own failures.
func compile(ctx context.Context, slot *sandbox.Slot, b *built, trusted bool) (*built, CompileResult, error) {
	var cr CompileResult
	lang := b.lang
	ct := time.Duration(lang.CompileTime)
	if ct <= 0 {
		ct = 30 * time.Second
	}
	mem := lang.CompileMemoryMB
	if mem <= 0 {
		mem = 1024
	}
	disk := lang.CompileDiskMB
	if disk <= 0 {
		disk = 512 // a compiler's temporaries and caches (go build's, in /tmp)
	}
	var log bytes.Buffer
	cmd := slot.CommandContext(ctx, "")
	cmd.Args = langs.Expand(lang.Compile, b.vars, b.files)
	cmd.Box, cmd.Env, cmd.Binds, cmd.Trusted = b.dir, lang.Env, binds(lang), trusted
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Limits = sandbox.Limits{CPUTime: ct, WallTime: 2*ct + 5*time.Second, Memory: int64(mem) << 20,
		Processes: 64, Stdout: compileLogCap, Stderr: compileLogCap, FileSize: int64(disk) << 20, OpenFiles: 256, Disk: int64(disk) << 20, DiskInodes: 16384}
	res, err := cmd.Run()
	if err != nil {
		return nil, cr, fmt.Errorf("compile %s: %w", lang.ID, err)
	}
	cr.Log = log.String()
	switch res.Status {
	case sandbox.OK:
		cr.OK = true
	case sandbox.SE:
		return nil, cr, fmt.Errorf("compile %s: sandbox: %s", lang.ID, res.Error)
	case sandbox.TLE:
		cr.Log += fmt.Sprintf("\n[docket] the compiler exceeded its time limit (%v)", ct)
	case sandbox.MLE:
		cr.Log += fmt.Sprintf("\n[docket] the compiler exceeded its memory limit (%d MiB)", mem)
	case sandbox.OLE:
		cr.Log += "\n[docket] the compiler's output exceeded its limit"
	}
	if !cr.OK {
		return nil, cr, nil
	}
	return b, cr, lockDown(b.dir)
}

func hasExt(n string, exts []string) bool {
	e := strings.ToLower(filepath.Ext(n))
	for _, x := range exts {
		if e == x {
			return true
		}
	}
	return false
}

func cloneFiles(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func replace(xs []string, old, new string) []string {
	for i, x := range xs {
		if x == old {
			xs[i] = new
		}
	}
	sort.Strings(xs)
	return xs
}

// lockDown makes a built program root's and read-only, so that runs,
// which get hard links to its files, cannot change it for the next test.
func lockDown(dir string) error {
	return filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return os.Remove(p) // a compiler's symlink could point anywhere
		}
		os.Lchown(p, 0, 0)
		mode := os.FileMode(0o644)
		if info.IsDir() || info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		return os.Chmod(p, mode)
	})
}

func mkBox(dir string, uid int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	chownIf(dir, uid)
	return nil
}

func chownIf(p string, uid int) {
	if os.Geteuid() == 0 {
		os.Lchown(p, uid, uid)
	}
}

// populate gives a fresh box the program's files: hard links (the files
// are read-only and root's), or copies across file systems.
func populate(box string, b *built) error {
	return filepath.Walk(b.dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(b.dir, p)
		if rel == "." {
			return nil
		}
		dst := filepath.Join(box, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if err := os.Link(p, dst); err == nil {
			return nil
		}
		return copyFile(p, dst, info.Mode())
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// trusted programs (checkers, interactors) are compiled once per package
// digest and kept in the cache directory.
var trustedMu sync.Mutex

// builtMarker, in a cached program's directory, says its build finished.
const builtMarker = ".built"

func (r *judging) buildTrusted(prog *problem.Program, kind string) (*built, error) {
	if prog.Executable {
		return r.installTrusted(prog, kind)
	}
	lang, err := programLanguage(r.j.Langs, prog)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, prog.Sources[0], err)
	}
	if _, err := lang.ToolPath(); err != nil {
		return nil, fmt.Errorf("%s needs %s: %w", kind, lang.ID, err)
	}
	files, err := readProgram(prog, kind)
	if err != nil {
		return nil, err
	}
	src, msg := arrange(lang, files, prog.Sources[0])
	if src == nil {
		return nil, fmt.Errorf("the problem's %s: %s", kind, msg)
	}
	cache, dir, unlock, err := r.trustedCacheDir(kind)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if cachedProgram(cache, dir) {
		return cachedBuilt(lang, src, files, dir, kind)
	}
	return buildIntoCache(r.ctx, r.slot, lang, files, prog.Sources[0], dir, kind)
}

// trustedCacheDir is the cache directory of the package's program of
// kind, its parents checked, locked until unlock: one judging at a time
// builds or installs it.
func (r *judging) trustedCacheDir(kind string) (cache, dir string, unlock func(), err error) {
	cache = r.j.cacheDir()
	dir = programDir(cache, r.p.Digest, kind)
	trustedMu.Lock()
	if err := trustedLevels(cache, filepath.Dir(dir)); err != nil {
		trustedMu.Unlock()
		return "", "", nil, fmt.Errorf("%s: cache directory: %w", kind, err)
	}
	return cache, dir, trustedMu.Unlock, nil
}

// programLanguage is a problem's program's language: the one the
// package names, else its main source's extension's.
func programLanguage(cat *langs.Catalog, prog *problem.Program) (*langs.Language, error) {
	if prog.Language != "" {
		return cat.Lookup(prog.Language)
	}
	return cat.ByExtension(prog.Sources[0])
}

// cachedBuilt is a program found in the cache: its main class, if the
// language has one, found again from its classes.
func cachedBuilt(lang *langs.Language, src *sourceSet, files map[string][]byte, dir, kind string) (*built, error) {
	b := &built{lang: lang, dir: dir, vars: src.vars, files: src.sources}
	if !lang.FindMainClass {
		return b, nil
	}
	if _, err := findMainClass(b, "", files); err != nil {
		return nil, fmt.Errorf("the problem's %s: %w", kind, err)
	}
	return b, nil
}

// readProgram reads a problem's program. The package's author is
// trusted, but the names reach the same command lines as a contestant's:
// the same rule, and a refused name is the package's fault (SE).
func readProgram(prog *problem.Program, kind string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, s := range prog.Sources {
		if err := langs.ValidFileName(s); err != nil {
			return nil, fmt.Errorf("the problem's %s: %w", kind, err)
		}
		b, err := os.ReadFile(filepath.Join(prog.Dir, s))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		files[s] = b
	}
	for _, x := range prog.Extra {
		if err := langs.ValidFileName(x.Name); err != nil {
			return nil, fmt.Errorf("the problem's %s: %w", kind, err)
		}
		if _, dup := files[x.Name]; dup {
			continue // the program's own file of that name wins
		}
		b, err := os.ReadFile(x.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		files[x.Name] = b
	}
	return files, nil
}

// programDir is where a package's compiled program of a kind is cached.
func programDir(cache, digest, kind string) string {
	key := strings.TrimPrefix(digest, "sha256:")
	if len(key) > 24 {
		key = key[:24]
	}
	return filepath.Join(cache, "programs", key+"-"+kind)
}

// trustedLevels creates the cache directory and its programs/ level if
// missing and checks every level down to it (safedir): a level that
// another user owns or can write is an error, not something to build in.
func trustedLevels(cache, programs string) error {
	if err := safedir.Ensure(cache, 0o711); err != nil {
		return err
	}
	if err := os.Mkdir(programs, 0o711); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return safedir.Path(cache, programs)
}

// cachedProgram reports whether dir holds a program docket built: its
// marker, and the directory and every file in it docket's own and
// writable by no one else. Anything else there (a planted checker that
// accepts every answer, a file another user could rewrite) is removed,
// to be built again: its parent level is docket's, so removing is safe.
func cachedProgram(cache, dir string) bool {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false
	}
	err := safedir.Path(cache, dir)
	if err == nil {
		err = safedir.Tree(dir)
	}
	if err == nil {
		if st, serr := os.Lstat(filepath.Join(dir, builtMarker)); serr == nil && st.Mode().IsRegular() {
			return true
		}
	}
	os.RemoveAll(dir)
	return false
}

// buildIntoCache compiles a trusted program beside dir and renames it
// into place, so that a half-built program is never found there.
func buildIntoCache(ctx context.Context, slot *sandbox.Slot, lang *langs.Language, files map[string][]byte, main, dir, kind string) (*built, error) {
	tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
	os.RemoveAll(tmp)
	b, cr, err := buildMain(ctx, slot, lang, files, entryPoint{file: main}, tmp, true)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if !cr.OK {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("the problem's %s does not compile: %s", kind, truncate(cr.Log, 2000))
	}
	if err := os.WriteFile(filepath.Join(tmp, builtMarker), nil, 0o644); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	b.dir = dir
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
