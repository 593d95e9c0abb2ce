// Command cockpit is the terminal cockpit for okstra runs: the screen, the
// headless commands a lead agent calls, the worker wrapper and the wizard.
// This package only wires flags to the engine and prints results.
package main

import "os"

func main() {
	os.Exit(int(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
