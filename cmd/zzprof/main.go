package main

import (
	"fmt"
	"os"
	"time"

	"github.com/docketjudge/docket/internal/execcli"
)

func main() {
	t0 := time.Now()
	sb, err := execcli.OpenSandbox()
	if err != nil {
		panic(err)
	}
	t1 := time.Now()
	slot, err := sb.AcquireSlot()
	if err != nil {
		panic(err)
	}
	t2 := time.Now()
	cmd := slot.Command("/bin/true")
	res, err := cmd.Run()
	if err != nil {
		panic(err)
	}
	t3 := time.Now()
	slot.Release()
	t4 := time.Now()
	fmt.Fprintf(os.Stderr, "%v new %v acquire %v run %v release %v\n", res.Status, t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3))
}
