package main

import (
	"errors"
	"os"
	"testing"

	"github.com/docketjudge/docket/verdict/overshoot"
	"github.com/kelseyhightower/envconfig"
)

// DOCKET_WALL_OVERSHOOT: DOMjudge's default when unset, the value when
// set, and a refusal naming the variable (envconfig.ParseError, whose Err
// wraps overshoot.ErrSyntax) when it does not parse.
func TestWallOvershootEnv(t *testing.T) {
	t.Setenv("DOCKET_LANGS_FILE", "")
	t.Setenv("DOCKET_WALL_OVERSHOOT", "")
	os.Unsetenv("DOCKET_WALL_OVERSHOOT") // restored by Setenv's cleanup
	for _, tc := range []struct {
		env  *string
		want string
	}{{nil, overshoot.DefaultText}, {ptr(""), overshoot.DefaultText}, {ptr("3s+20%"), "3s+20%"}} {
		if tc.env != nil {
			t.Setenv("DOCKET_WALL_OVERSHOOT", *tc.env)
		}
		_, le, err := loadCatalog()
		if got := le.WallOvershoot.Or(overshoot.Default).String(); err != nil || got != tc.want {
			t.Errorf("DOCKET_WALL_OVERSHOOT=%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	for _, bad := range []string{"soon", "10", "-1s", "1s|10%|2s"} {
		t.Setenv("DOCKET_WALL_OVERSHOOT", bad)
		_, _, err := loadCatalog()
		var pe *envconfig.ParseError
		if !errors.As(err, &pe) || pe.KeyName != "DOCKET_WALL_OVERSHOOT" || !errors.Is(pe.Err, overshoot.ErrSyntax) {
			t.Errorf("DOCKET_WALL_OVERSHOOT=%q: %v; want a ParseError for the variable wrapping overshoot.ErrSyntax", bad, err)
		}
	}
}

func ptr(s string) *string { return &s }
