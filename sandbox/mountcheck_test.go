package sandbox_test

import (
	"reflect"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// The rules of the run's mount table, on a table with one mount of each
// kind, and one too loose of each.
func TestMountViolations(t *testing.T) {
	table := `20 19 0:40 / / ro,nosuid,nodev,relatime - tmpfs tmpfs ro
21 20 254:0 /usr /usr ro,nosuid,nodev,relatime - ext4 /dev/vda rw
22 21 0:41 / /usr/local ro,nosuid,nodev,noexec - tmpfs tmpfs rw
23 20 0:42 / /box rw,nosuid,nodev - tmpfs tmpfs rw
24 23 0:43 / /box/sub rw,nosuid,nodev - tmpfs tmpfs rw
25 20 0:44 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw
26 20 0:45 / /proc rw,nosuid,nodev,noexec - proc proc rw
27 20 0:46 / /dev ro,nosuid,noexec - tmpfs tmpfs rw
28 27 0:6 /null /dev/null ro,nosuid,noexec - devtmpfs udev rw
29 20 0:47 / /srv/a\040b ro,nosuid,nodev - tmpfs tmpfs rw
not a mount line
30 21 0:48 / /usr/share/vol rw,relatime - tmpfs tmpfs rw
31 23 0:49 / /box/dev rw,nosuid - tmpfs tmpfs rw
32 27 0:6 /zero /dev/zero rw,relatime - devtmpfs udev rw
33 20 0:50 / /etc\040x ro,nodev - tmpfs tmpfs rw
`
	want := []string{
		"/usr/share/vol (rw,relatime) lacks ro,nosuid,nodev",
		"/box/dev (rw,nosuid) lacks nodev",
		"/dev/zero (rw,relatime) lacks ro,nosuid",
		"/etc x (ro,nodev) lacks nosuid",
	}
	if got := sandbox.MountViolations(table); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
