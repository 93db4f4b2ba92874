package execcli

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// The server's wire format, which cmd/docket-exec-client/client.c writes
// (docs/sandbox.md, "A warm sandbox for one command per process"):
//
//  1. The client sends a 4-byte little-endian length, n, in one sendmsg
//     that carries its stdout and stderr (SCM_RIGHTS, in that order).
//  2. Then n bytes: NUL-terminated strings. The first is requestMagic,
//     the second the client's working directory (absolute), then its
//     DOCKET_* variables as NAME=VALUE, then an empty string, then the
//     command line after the program's name (docket-exec's flags, CMD
//     and its arguments; any of them may be empty).
//  3. The server writes the command's output to the two descriptors and
//     answers with one byte, the exit code. It kills the run if the
//     client goes away (closes or sends anything) before that.
const (
	requestMagic = "docket-exec-client 1"
	// maxRequest bounds n: a command line is at most ARG_MAX (2 MiB on
	// Linux by default) and the variables little more.
	maxRequest = 4 << 20
	// requestFDs is how many descriptors come with the length.
	requestFDs = 2
)

// request is one client's command.
type request struct {
	Dir  string            // the client's working directory
	Env  map[string]string // the client's DOCKET_* variables
	Args []string          // its command line, after the program's name
}

// errRequest is wrapped by every error about a malformed request.
var errRequest = errors.New("malformed request")

// requestLength reads step 1's length.
func requestLength(b []byte) (int, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: a length of %d bytes, not 4", errRequest, len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 || n > maxRequest {
		return 0, fmt.Errorf("%w: %d bytes (at most %d)", errRequest, n, maxRequest)
	}
	return int(n), nil
}

// parseRequest reads step 2's strings.
func parseRequest(b []byte) (request, error) {
	if len(b) == 0 || b[len(b)-1] != 0 {
		return request{}, fmt.Errorf("%w: does not end in NUL", errRequest)
	}
	fields := strings.Split(string(b[:len(b)-1]), "\x00")
	if fields[0] != requestMagic {
		return request{}, fmt.Errorf("%w: starts with %.40q, not %q (a client of another version?)", errRequest, fields[0], requestMagic)
	}
	if len(fields) < 3 || !filepath.IsAbs(fields[1]) {
		return request{}, fmt.Errorf("%w: no absolute working directory", errRequest)
	}
	req := request{Dir: fields[1], Env: map[string]string{}}
	rest := fields[2:]
	for i, f := range rest {
		if f == "" {
			req.Args = rest[i+1:]
			return req, nil
		}
		name, value, ok := strings.Cut(f, "=")
		if !ok || !strings.HasPrefix(name, "DOCKET_") {
			return request{}, fmt.Errorf("%w: %.60q is not a DOCKET_* variable", errRequest, f)
		}
		req.Env[name] = value
	}
	return request{}, fmt.Errorf("%w: no end to the variables", errRequest)
}

// encode is the request's step 1 length and step 2 bytes, as the client
// writes them (for the tests).
func (r request) encode() (length, body []byte) {
	var buf bytes.Buffer
	for _, s := range []string{requestMagic, r.Dir} {
		buf.WriteString(s)
		buf.WriteByte(0)
	}
	for name, value := range r.Env {
		buf.WriteString(name + "=" + value)
		buf.WriteByte(0)
	}
	buf.WriteByte(0)
	for _, a := range r.Args {
		buf.WriteString(a)
		buf.WriteByte(0)
	}
	length = binary.LittleEndian.AppendUint32(nil, uint32(buf.Len()))
	return length, buf.Bytes()
}
