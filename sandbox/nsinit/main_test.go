package nsinit

import (
	"testing"

	"github.com/docketjudge/docket/internal/testguard"
)

// The helper tests start real helpers; as root they run inside the guard
// like the sandbox package's.
func TestMain(m *testing.M) { testguard.Main(m) }
