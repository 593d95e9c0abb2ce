// Command cockpit is the terminal cockpit for okstra runs: the screen, the
// headless commands a lead agent calls, the worker wrapper and the wizard.
// This package only wires flags to the engine and prints results.
//
// Started under the name okstra (the shim on the lead's PATH), it answers
// the okstra commands the cockpit owns and hands the rest to the real
// okstra: okstra.go, docs/OKSTRA.md.
package main

import (
	"os"

	// First of all: the heap's first 2 MB as one huge page before the
	// package inits fault it in page by page, and the main goroutine's
	// stack grown once (a headless command's start is its page faults on
	// the VMs agents run in; internal/startmem).
	_ "github.com/okstra/cockpit/internal/startmem"

	// The worker wrapper reads the served model through workers/usage's
	// readers, which register themselves (workers cannot import usage).
	// Named here so the wrapper never loses them to an import elsewhere
	// going away; test/realcli's attestation checks fail if it does.
	_ "github.com/okstra/cockpit/workers/usage"
)

func main() {
	if isOkstraName(os.Args[0]) {
		os.Exit(int(okstraMain(os.Args, os.Environ(), os.Stdin, os.Stdout, os.Stderr)))
	}
	os.Exit(int(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
