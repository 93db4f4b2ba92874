package mount

import (
	"strconv"
	"strings"
)

// Mountinfo is one line of /proc/<pid>/mountinfo, the fields the new
// root's checks use.
type Mountinfo struct {
	ID, Parent int
	Point      string   // the mount point, unescaped
	Options    []string // the mount's own options: "ro" or "rw", "nosuid", "relatime"...
}

// ParseMountinfo parses the text of a mountinfo file. Lines without the
// six leading fields, or with ids that are not numbers, are skipped.
func ParseMountinfo(text string) []Mountinfo {
	var out []Mountinfo
	for _, line := range strings.Split(text, "\n") {
		// "id parent major:minor root point options ..."
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		id, err1 := strconv.Atoi(f[0])
		parent, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, Mountinfo{ID: id, Parent: parent, Point: unescape(f[4]), Options: strings.Split(f[5], ",")})
	}
	return out
}

// unescape undoes the kernel's octal escapes ("\040" for a space).
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' &&
			s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7' {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
