package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/state"
)

// Environment variables the cockpit sets in the lead pane, so commands the
// lead runs find their run without flags.
const (
	envProjectRoot = "COCKPIT_PROJECT_ROOT"
	envRunManifest = "COCKPIT_RUN_MANIFEST"
	envSocket      = "COCKPIT_SOCKET"
)

// runFlags are the flags every run command takes.
type runFlags struct {
	ProjectRoot string
	RunManifest string
}

func (f *runFlags) add(cmd *cobra.Command) {
	root := os.Getenv(envProjectRoot)
	if root == "" {
		root = "."
	}
	cmd.Flags().StringVar(&f.ProjectRoot, "project-root", root, "the project root; paths in run files are relative to it (default $"+envProjectRoot+" or .)")
	cmd.Flags().StringVar(&f.RunManifest, "run-manifest", os.Getenv(envRunManifest), "the run manifest, relative to the project root (default $"+envRunManifest+")")
}

func (f *runFlags) load() (*state.Run, error) {
	if f.RunManifest == "" {
		return nil, &usageError{fmt.Errorf("--run-manifest is required (or set $%s)", envRunManifest)}
	}
	return state.LoadRun(f.ProjectRoot, f.RunManifest)
}

// jsonFlag is the shared --json switch: machine output, stable and tested
// field by field. Every headless command takes it (TestEveryHeadlessCommandTakesJSON);
// the ones that always print JSON accept it and print the same.
type jsonFlag struct{ on bool }

func (j *jsonFlag) add(cmd *cobra.Command) { addJSONFlag(cmd, &j.on) }

// addJSONFlag declares --json on cmd, storing it in p: the one definition
// of the flag, for commands whose options live in another package's struct.
func addJSONFlag(cmd *cobra.Command, p *bool) {
	cmd.Flags().BoolVar(p, "json", false, "print machine-readable JSON")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// noArgs refuses positional arguments with a usage error naming them.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageError{fmt.Errorf("unexpected argument %q; %s takes flags only", args[0], cmd.CommandPath())}
	}
	return nil
}

// selfPath is the cockpit binary, which dispatch runs as the worker wrapper.
func selfPath() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the cockpit binary: %w", err)
	}
	return p, nil
}

// writeJSONCompact prints v as one JSON line.
func writeJSONCompact(io *streams, v any) error {
	enc := json.NewEncoder(io.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// required is a flag a command cannot run without, its value and what to
// pass.
type required struct{ flag, value, hint string }

// requireFlags refuses the first flag left empty with a usage error (exit
// 2): "--<flag>: is required; <hint>", the wording the engine uses too.
func requireFlags(rs ...required) error {
	for _, r := range rs {
		if strings.TrimSpace(r.value) == "" {
			return &usageError{&state.Error{Field: r.flag, Msg: "is required; " + r.hint}}
		}
	}
	return nil
}
