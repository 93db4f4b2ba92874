package mount

import (
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
)

// The tests mount; as root they run inside the guard, in a mount
// namespace of their own.
func TestMain(m *testing.M) { testguard.Main(m) }
