package main

import (
	"debug/elf"
	"testing"
)

// docket-exec is built static (static.go): no program interpreter, no
// shared library, whoever builds it with a plain `go build`.
func TestStaticBinary(t *testing.T) {
	bin := build(t, map[string]string{"docket-exec": "."})["docket-exec"]
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("docket-exec has a program interpreter: it is linked dynamically")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) != 0 {
		t.Errorf("docket-exec needs shared libraries %v (%v)", libs, err)
	}
}
