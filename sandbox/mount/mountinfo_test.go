package mount

import (
	"reflect"
	"testing"
)

func TestParseMountinfo(t *testing.T) {
	text := "36 35 98:0 /mnt1 /mnt/a\\040b\\134c rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n" +
		"x 1 0:1 / / rw - tmpfs t rw\n" + // not a number
		"37 36 0:2 / /short\n" + // too few fields
		"\n" +
		"38 36 0:3 / /tail\\04 ro,nosuid - tmpfs t ro\n" // a cut escape stays as it is
	want := []Mountinfo{
		{ID: 36, Parent: 35, Point: "/mnt/a b\\c", Options: []string{"rw", "noatime"}},
		{ID: 38, Parent: 36, Point: "/tail\\04", Options: []string{"ro", "nosuid"}},
	}
	if got := ParseMountinfo(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
