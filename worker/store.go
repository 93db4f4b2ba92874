package worker

import (
	"archive/tar"
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
	"syscall"
	"time"

	"github.com/docketjudge/docket/internal/safedir"
	"github.com/docketjudge/docket/protocol"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/nats-io/nats.go/jetstream"
)

// Package archives: a tar of the problem directory, submissions/ left
// out (a worker does not need them), regular files and directories only:
// a symbolic link inside the package is stored as the file it resolves
// to (problem.ResolveLink), and a link that does not resolve inside the
// package is refused, except in a statement or an attachment, which is
// left out (problem.Unread).
const maxPackage = 1 << 30

// PackTar archives a problem directory.
func PackTar(dir string) ([]byte, error) { return PackTarWith(dir, nil) }

// PackTarWith archives a problem directory with further files: extra
// maps a path in the package to the host file to store there (a
// package's built tests, verdict.BuiltFiles).
func PackTarWith(dir string, extra map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	// The trailing separator: dir itself may be a link (the operator's
	// layout, as problem.Load allows); the walk starts at its target.
	err := filepath.Walk(dir+string(filepath.Separator), func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if info.IsDir() && (rel == "submissions" || strings.HasPrefix(info.Name(), ".git")) {
			return filepath.SkipDir
		}
		src := p
		if info.Mode()&fs.ModeSymlink != 0 {
			// A link inside the package travels as the file it names:
			// the unpacked package has regular files only.
			full, err := problem.ResolveLink(dir, rel)
			if err != nil && problem.Unread(rel) {
				return nil // a statement linked out of the package: left out, as Load warns
			}
			if err != nil {
				return err
			}
			if info, err = os.Lstat(full); err != nil {
				return err
			}
			src = full
		}
		if !info.IsDir() && !info.Mode().IsRegular() {
			return fmt.Errorf("%s: only regular files and directories can be pushed", rel)
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: info.Size(), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if info.IsDir() {
			hdr.Name += "/"
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		f, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := packExtra(tw, extra); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// packExtra adds the extra files, sorted, to an archive of regular
// files whose directories are already in it (a built test goes where
// the package's tests are) or are added here.
func packExtra(tw *tar.Writer, extra map[string]string) error {
	names := make([]string, 0, len(extra))
	for n := range extra {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(extra[n])
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(n), Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// ErrBadArchive is what Unpack's refusals of an archive wrap: it is
// refused before anything is written.
var ErrBadArchive = errors.New("package archive")

// Unpack extracts a package archive into dir, refusing, before anything is
// written, absolute paths, "..", links, devices and other special files
// (ErrBadArchive).
func Unpack(data []byte, dir string) error {
	var entries []*tar.Header
	tr := tar.NewReader(bytes.NewReader(data))
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadArchive, err)
		}
		if err := checkEntry(h); err != nil {
			return err
		}
		total += h.Size
		if total > maxPackage {
			return fmt.Errorf("%w: over %d bytes unpacked", ErrBadArchive, maxPackage)
		}
		entries = append(entries, h)
	}
	tr = tar.NewReader(bytes.NewReader(data))
	for range entries {
		h, _ := tr.Next()
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func checkEntry(h *tar.Header) error {
	name := h.Name
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\x00") || strings.Contains(name, "\\") {
		return fmt.Errorf("%w: unsafe path %q", ErrBadArchive, name)
	}
	for _, part := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if part == ".." || part == "." || part == "" {
			return fmt.Errorf("%w: unsafe path %q", ErrBadArchive, name)
		}
	}
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeDir:
		return nil
	case tar.TypeSymlink, tar.TypeLink:
		return fmt.Errorf("%w: %s is a link (%s), links are not allowed", ErrBadArchive, name, h.Linkname)
	default:
		return fmt.Errorf("%w: %s is a special file (type %q), not allowed", ErrBadArchive, name, h.Typeflag)
	}
}

// Push validates a problem directory and uploads it as the object named
// by the problem id (the directory's name).
func Push(ctx context.Context, js jetstream.JetStream, dir string) (*problem.Problem, *jetstream.ObjectInfo, error) {
	return PushBuilt(ctx, js, dir, nil)
}

// ErrTestsNotBuilt refuses a package whose tests must be built (a
// Polygon package's generated tests) pushed without them; a worker never
// builds tests.
var ErrTestsNotBuilt = errors.New("the package's tests are not built")

// PushBuilt is Push with the package's built tests (verdict.BuiltFiles)
// added to what is uploaded: workers receive a package whose tests are
// all files. Its problem_digest is the digest of that package, the one
// a worker loads.
func PushBuilt(ctx context.Context, js jetstream.JetStream, dir string, built map[string]string) (*problem.Problem, *jetstream.ObjectInfo, error) {
	p, err := problem.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	if !protocol.ValidID(p.ID) {
		return nil, nil, fmt.Errorf("problem id %q (the directory name) must be 1-128 characters of [A-Za-z0-9_-]", p.ID)
	}
	if p.Generation != nil && len(built) == 0 {
		return nil, nil, fmt.Errorf("%w: docket problem push builds them", ErrTestsNotBuilt)
	}
	data, err := PackTarWith(dir, built)
	if err != nil {
		return nil, nil, err
	}
	if len(built) > 0 {
		if p, err = loadPacked(data, p.ID); err != nil {
			return nil, nil, err
		}
	}
	obs, err := js.ObjectStore(ctx, protocol.ProblemBucket)
	if err != nil {
		return nil, nil, fmt.Errorf("problem store: %w", err)
	}
	info, err := obs.Put(ctx, jetstream.ObjectMeta{
		Name: p.ID, Description: p.Name,
		Metadata: map[string]string{"problem_digest": p.Digest, "name": p.Name},
		Opts:     &jetstream.ObjectMetaOptions{ChunkSize: 256 << 10},
	}, bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("problem store: put %s: %w", p.ID, err)
	}
	return p, info, nil
}

// loadPacked loads an archive as a worker will: its problem, digest
// and all.
func loadPacked(data []byte, id string) (*problem.Problem, error) {
	tmp, err := os.MkdirTemp("", "docket-push-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, id)
	if err := Unpack(data, dir); err != nil {
		return nil, err
	}
	p, err := problem.Load(dir)
	if err != nil {
		return nil, err
	}
	if p.Generation != nil {
		return nil, fmt.Errorf("%w: the package with them still has tests to build", ErrTestsNotBuilt)
	}
	return p, nil
}

const storeLookupTimeout = 5 * time.Second

// ErrNoProblem means the store has no such problem.
var ErrNoProblem = errors.New("problem not found in the store")

// StoreUnavailableError means the problem store did not answer (its
// stream has no leader or quorum, the connection is down, a request timed
// out). The job is fine and the store will be back: the worker holds the
// job and retries rather than spending one of its deliveries.
type StoreUnavailableError struct{ Err error }

// Error says the store was unavailable, and why.
func (e *StoreUnavailableError) Error() string { return "problem store unavailable: " + e.Err.Error() }

// Unwrap returns the failure that made the store unavailable.
func (e *StoreUnavailableError) Unwrap() error { return e.Err }

func unavailable(format string, args ...any) error {
	return &StoreUnavailableError{Err: fmt.Errorf(format, args...)}
}

// Cache holds unpacked packages on disk keyed by the object's digest,
// bounded in size (least recently used out), safe for several worker
// processes sharing it: a lock file per entry and an atomic rename.
type Cache struct {
	Dir      string
	MaxBytes int64
	mu       sync.Mutex
	// loaded keeps packages this process has loaded, by object digest, so
	// a job does not re-read and re-hash an unchanged package.
	loadedMu sync.Mutex
	loaded   map[string]*problem.Problem
}

// Get returns the loaded problem for id, fetching it from the store if
// the cached copy is missing or stale. wantDigest, when set, pins the
// problem digest (problem_digest in the job).
func (c *Cache) Get(ctx context.Context, js jetstream.JetStream, id, wantDigest string) (*problem.Problem, error) {
	// The lookup is small: a store that has not answered in a few seconds
	// is unavailable (a direct get to a stream without quorum can wait
	// for as long as the context lets it).
	ictx, cancel := context.WithTimeout(ctx, storeLookupTimeout)
	defer cancel()
	obs, err := js.ObjectStore(ictx, protocol.ProblemBucket)
	if err != nil {
		return nil, unavailable("bucket %s: %w", protocol.ProblemBucket, err)
	}
	info, err := obs.GetInfo(ictx, id)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNoProblem, id)
	}
	if err != nil {
		return nil, unavailable("info %s: %w", id, err)
	}
	if wantDigest != "" && info.Metadata["problem_digest"] != wantDigest {
		return nil, fmt.Errorf("%w: %s with digest %s (the store has %s)", ErrNoProblem, id, wantDigest, info.Metadata["problem_digest"])
	}
	key := digestKey(info.Digest)
	dir := filepath.Join(c.Dir, key, id)
	if err := c.vet(key); err != nil {
		return nil, err
	}
	if p := c.remembered(key); p != nil {
		if problem.IsPackage(dir) {
			touch(filepath.Join(c.Dir, key))
			return p, nil
		}
	}
	if p, err := problem.Load(dir); err == nil {
		touch(filepath.Join(c.Dir, key))
		return c.remember(key, p), nil
	}
	unlock, err := c.lock(key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if p, err := problem.Load(dir); err == nil { // another process fetched it meanwhile
		return c.remember(key, p), nil
	}
	res, err := obs.Get(ctx, id)
	if err != nil {
		return nil, unavailable("get %s: %w", id, err)
	}
	data, err := io.ReadAll(io.LimitReader(res, maxPackage+1))
	res.Close()
	if errors.Is(err, jetstream.ErrDigestMismatch) {
		// Not an outage: a retry on this worker would read the same bytes.
		return nil, fmt.Errorf("problem store: get %s: %w", id, err)
	}
	if err != nil {
		return nil, unavailable("get %s: %w", id, err)
	}
	tmp, err := os.MkdirTemp(c.Dir, ".fetch-")
	if err != nil {
		return nil, fmt.Errorf("problem cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := Unpack(data, filepath.Join(tmp, id)); err != nil {
		// A full or read-only cache disk shows here (ENOSPC, EROFS).
		return nil, fmt.Errorf("problem cache: unpack %s into %s: %w", id, c.Dir, err)
	}
	os.RemoveAll(filepath.Join(c.Dir, key))
	if err := os.Rename(tmp, filepath.Join(c.Dir, key)); err != nil {
		return nil, fmt.Errorf("problem cache: %w", err)
	}
	c.evict(key)
	p, err := problem.Load(dir)
	if err != nil {
		return nil, err
	}
	return c.remember(key, p), nil
}

// vet checks the cache directory and the entry for key, every level and
// file of it, by safedir's rule: what is there becomes tests and
// checkers, whether this process has it loaded or not (a walk of
// lstats, small beside a judging). The cache directory failing is an
// error (local to this worker: nothing in it can be trusted). An entry
// failing (another user's, or writable by others) is removed and
// forgotten, so that it is fetched again.
func (c *Cache) vet(key string) error {
	if err := safedir.Ensure(c.Dir, 0o700); err != nil {
		return fmt.Errorf("problem cache: %w", err)
	}
	entry := filepath.Join(c.Dir, key)
	if _, err := os.Lstat(entry); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	err := safedir.Path(c.Dir, entry)
	if err == nil {
		err = safedir.Tree(entry)
	}
	if errors.Is(err, safedir.ErrUnsafe) {
		c.forget(key)
		if rerr := os.RemoveAll(entry); rerr != nil {
			return fmt.Errorf("problem cache: removing %s: %w", entry, rerr)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("problem cache: %w", err)
	}
	return nil
}

func (c *Cache) forget(key string) {
	c.loadedMu.Lock()
	defer c.loadedMu.Unlock()
	delete(c.loaded, key)
}

func (c *Cache) remembered(key string) *problem.Problem {
	c.loadedMu.Lock()
	defer c.loadedMu.Unlock()
	return c.loaded[key]
}

func (c *Cache) remember(key string, p *problem.Problem) *problem.Problem {
	c.loadedMu.Lock()
	defer c.loadedMu.Unlock()
	if c.loaded == nil {
		c.loaded = map[string]*problem.Problem{}
	}
	c.loaded[key] = p
	return p
}

func digestKey(d string) string {
	r := strings.NewReplacer("=", "", "/", "_", "+", "-", ":", "")
	return r.Replace(strings.TrimPrefix(d, "SHA-256="))
}

func touch(p string) { now := time.Now(); os.Chtimes(p, now, now) }

func (c *Cache) lock(key string) (func(), error) {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("problem cache: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(c.Dir, "."+key+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("problem cache: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// evict removes the least recently used entries over MaxBytes, never keep.
func (c *Cache) evict(keep string) {
	if c.MaxBytes <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	entries, _ := os.ReadDir(c.Dir)
	type ent struct {
		name string
		size int64
		used time.Time
	}
	var all []ent
	var total int64
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		var size int64
		filepath.Walk(filepath.Join(c.Dir, e.Name()), func(_ string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				size += info.Size()
			}
			return nil
		})
		info, _ := e.Info()
		all = append(all, ent{e.Name(), size, info.ModTime()})
		total += size
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	for _, e := range all {
		if total <= c.MaxBytes {
			break
		}
		if e.name == keep {
			continue
		}
		if unlock, err := c.lock(e.name); err == nil {
			os.RemoveAll(filepath.Join(c.Dir, e.name))
			c.loadedMu.Lock()
			delete(c.loaded, e.name)
			c.loadedMu.Unlock()
			unlock()
			total -= e.size
		}
	}
}

// WriteInline turns an inline problem into a package directory.
func WriteInline(dir string, ip *protocol.InlineProblem) (*problem.Problem, error) {
	var y strings.Builder
	y.WriteString("name: inline\n")
	if ip.ValidatorFlags != "" {
		fmt.Fprintf(&y, "validator_flags: %q\n", ip.ValidatorFlags)
	}
	y.WriteString("limits:\n")
	if ip.TimeMs > 0 {
		fmt.Fprintf(&y, "  time_limit: %g\n", float64(ip.TimeMs)/1000)
	}
	if ip.MemoryMB > 0 {
		fmt.Fprintf(&y, "  memory: %d\n", ip.MemoryMB)
	}
	for _, g := range []string{"sample", "secret"} {
		if err := os.MkdirAll(filepath.Join(dir, "data", g), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte(y.String()), 0o644); err != nil {
		return nil, err
	}
	for i, t := range ip.Tests {
		name := fmt.Sprintf("%03d", i+1)
		if t.Name != "" && protocol.ValidID(t.Name) {
			name = fmt.Sprintf("%03d-%s", i+1, t.Name)
		}
		group := "secret"
		if t.Sample {
			group = "sample"
		}
		base := filepath.Join(dir, "data", group, name)
		if err := os.WriteFile(base+".in", []byte(t.Input), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(base+".ans", []byte(t.Answer), 0o644); err != nil {
			return nil, err
		}
	}
	return problem.Load(dir)
}
