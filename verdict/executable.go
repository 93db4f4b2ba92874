package verdict

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/docketjudge/docket/langs"
	"github.com/docketjudge/docket/verdict/problem"
)

// executableLang runs a package's compiled program as it is, ./<name>:
// no environment and no binds beyond the sandbox's own, which hold the
// host's /lib, /lib64 and /usr, so a dynamically linked program finds
// the worker's libraries there (and fails to start without them).
func executableLang(name string) *langs.Language {
	return &langs.Language{ID: "executable", Name: "executable", Run: []string{langs.FileArg(name)}}
}

// installTrusted is buildTrusted for a package's compiled program (a
// CMS comparator or manager given without its source): the file is
// checked again, for this worker's architecture, and copied into the
// cache by the package's digest, root's and mode 0755, as a compiled
// program's would be.
func (r *judging) installTrusted(prog *problem.Program, kind string) (*built, error) {
	name := prog.Sources[0]
	if err := langs.ValidFileName(name); err != nil {
		return nil, fmt.Errorf("the problem's %s: %w", kind, err)
	}
	src := filepath.Join(prog.Dir, name)
	if err := problem.CheckExecutable(src); err != nil {
		return nil, fmt.Errorf("the problem's %s %s: %w", kind, name, err)
	}
	cache, dir, unlock, err := r.trustedCacheDir(kind)
	if err != nil {
		return nil, err
	}
	defer unlock()
	b := &built{lang: executableLang(name), dir: dir, files: []string{name}}
	if cachedProgram(cache, dir) {
		return b, nil
	}
	if err := installIntoCache(src, name, dir); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return b, nil
}

// installIntoCache copies the executable src as name into a directory
// beside dir and renames it into place, as buildIntoCache does, so that
// a half-copied program is never found there.
func installIntoCache(src, name, dir string) error {
	tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
	os.RemoveAll(tmp)
	err := os.Mkdir(tmp, 0o700)
	if err == nil {
		err = copyFile(src, filepath.Join(tmp, name), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, builtMarker), nil, 0o644)
	}
	if err == nil {
		// Root's and read-only, 0755 for the program (lockDown keeps the
		// execute bits copyFile set), whatever the package's file was.
		err = lockDown(tmp)
	}
	if err == nil {
		os.RemoveAll(dir)
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
	}
	return err
}
