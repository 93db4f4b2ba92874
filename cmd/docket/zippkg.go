package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/docketjudge/docket/internal/ziparchive"
	"github.com/docketjudge/docket/verdict/problem"
	"github.com/docketjudge/docket/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// openPackage returns the package directory that path names: path itself
// when it is a directory (or missing: problem.Load says so), else a zip
// archive's content unpacked into a fresh directory of the temporary
// directory's, private to this user (0700), which done removes. The
// unpacked package's directory is named as the archive without .zip,
// since a package's id is its directory's name.
func openPackage(path string) (dir string, done func(), err error) {
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return path, func() {}, nil
	}
	id, err := zipPackageID(path)
	if err != nil {
		return "", nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "docket-zip-")
	if err != nil {
		return "", nil, err
	}
	dir = filepath.Join(tmp, id)
	if err := ziparchive.Extract(f, st.Size(), dir, ziparchive.DefaultLimits); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("zip archive %s: %w", path, err)
	}
	return dir, func() { os.RemoveAll(tmp) }, nil
}

// zipPackageID is the id a zip archive's package gets: its file name
// without .zip.
func zipPackageID(path string) (string, error) {
	base := filepath.Base(path)
	id := base
	if strings.HasSuffix(strings.ToLower(base), ".zip") {
		id = base[:len(base)-len(".zip")]
	}
	if id == "" || id == "." || id == ".." || strings.ContainsFunc(id, unicode.IsControl) {
		return "", fmt.Errorf("zip archive %s: its file name gives the package no id (the name without .zip)", path)
	}
	return id, nil
}

// isZipFile: name, in a directory of packages, is a zip archive's.
func isZipFile(dir, name string) bool {
	st, err := os.Stat(filepath.Join(dir, name))
	return err == nil && st.Mode().IsRegular() && strings.HasSuffix(strings.ToLower(name), ".zip")
}

// loadPackage loads the package path names, a directory or a zip
// archive; done removes what was unpacked, once the package is no longer
// read.
func loadPackage(path string) (*problem.Problem, func(), error) {
	dir, done, err := openPackage(path)
	if err != nil {
		return nil, nil, err
	}
	p, err := problem.Load(dir)
	if err != nil {
		done()
		return nil, nil, err
	}
	return p, done, nil
}

// pushPackage pushes the package path names, a directory or a zip
// archive (unpacked for the push, then removed), its generated tests
// built first (their progress to w).
func pushPackage(ctx context.Context, js jetstream.JetStream, path string, w io.Writer) (*problem.Problem, *jetstream.ObjectInfo, error) {
	dir, done, err := openPackage(path)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	built, err := buildForPush(dir, w)
	if err != nil {
		return nil, nil, err
	}
	return worker.PushBuilt(ctx, js, dir, built)
}
