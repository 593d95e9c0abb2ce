package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is what `cockpit --version` prints after the name: the module
// version the binary was built at (go install …@v1.2.3), else the VCS
// revision it was built from (12 hex digits, "-dirty" when the work tree
// had changes), else "(devel)".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(bi)
}

// versionOf is version for a given build: see version.
func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// NewCmdVersion is `cockpit version`: what --version prints, as a command
// too (gh, kubectl, docker have both); --json prints {"version": …}.
func NewCmdVersion(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "version [--json]",
		Short:       "Print the cockpit's version",
		Args:        noArgs,
		Annotations: noWait(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return writeJSON(f.IO.Out, map[string]string{"name": cmd.Root().Name(), "version": version()})
			}
			_, err := fmt.Fprintf(f.IO.Out, "%s %s\n", cmd.Root().Name(), version())
			return err
		},
	}
	addJSONFlag(cmd, &asJSON)
	return cmd
}
