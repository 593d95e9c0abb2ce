package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/okstra/cockpit/state"
)

// Environment variables the cockpit sets in the lead pane, so commands the
// lead runs find their run without flags.
const (
	envProjectRoot = "COCKPIT_PROJECT_ROOT"
	envRunManifest = "COCKPIT_RUN_MANIFEST"
	envSocket      = "COCKPIT_SOCKET"
)

// addProjectRootFlag declares --project-root on cmd, storing it in p: the
// one definition of the flag and of its default ($COCKPIT_PROJECT_ROOT, else
// "."), so every path a command takes — --ledger and --report included — is
// resolved, and confined, inside a project root.
func addProjectRootFlag(f *Factory, cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "project-root", f.envOr(envProjectRoot, "."), usage+" (default $"+envProjectRoot+" or .)")
	defaultSaid(cmd, "project-root")
}

// defaultSaid is for a flag whose usage already says its default (an
// environment variable, else a value): help must not print pflag's
// "(default ...)" after it a second time.
func defaultSaid(cmd *cobra.Command, name string) {
	cmd.Flags().Lookup(name).DefValue = ""
}

// runFlags are the flags every run command takes.
type runFlags struct {
	ProjectRoot string
	RunManifest string
}

func (r *runFlags) add(f *Factory, cmd *cobra.Command) {
	addProjectRootFlag(f, cmd, &r.ProjectRoot, "the project root; paths in run files are relative to it")
	cmd.Flags().StringVar(&r.RunManifest, "run-manifest", f.Getenv(envRunManifest), "the run manifest, relative to the project root (default $"+envRunManifest+")")
	defaultSaid(cmd, "run-manifest")
}

// require refuses a missing --run-manifest (exit 2).
func (r *runFlags) require() error {
	if r.RunManifest == "" {
		return &usageError{fmt.Errorf("--run-manifest is required (or set $%s)", envRunManifest)}
	}
	return nil
}

func (r *runFlags) load() (*state.Run, error) {
	if err := r.require(); err != nil {
		return nil, err
	}
	return state.LoadRun(r.ProjectRoot, r.RunManifest)
}

// addJSONFlag declares the shared --json switch on cmd, storing it in p:
// machine output, stable and tested field by field. Every headless command
// takes it (TestEveryHeadlessCommandTakesJSON); the ones that always print
// JSON accept it and print the same.
func addJSONFlag(cmd *cobra.Command, p *bool) {
	cmd.Flags().BoolVar(p, "json", false, "print machine-readable JSON")
}

// writeJSON prints v as indented JSON: the one JSON writer of the commands.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONLine prints v as one JSON line.
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
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

// required is a flag a command cannot run without, its value and what to
// pass.
type required struct{ flag, value, hint string }

// requireFlags refuses the first flag left empty with a usage error (exit
// 2): "--<flag>: is required; <hint>", the wording the engine uses too.
func requireFlags(rs ...required) error {
	for _, r := range rs {
		if strings.TrimSpace(r.value) == "" {
			msg := "is required"
			if r.hint != "" {
				msg += "; " + r.hint
			}
			return &usageError{&state.Error{Field: r.flag, Msg: msg}}
		}
	}
	return nil
}

// checkEnum refuses a value of an enumerated flag that is not one of
// allowed, with one usage line listing them (exit 2). An empty value is
// left to requireFlags or the flag's default.
func checkEnum(flag, value string, allowed ...string) error {
	if value == "" {
		return nil
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return &usageError{fmt.Errorf("%s %q: choose %s", flag, value, orList(allowed))}
}

// enumValue is the value of an enumerated string flag (enumVar): it takes
// one of allowed, or a value accept says is one of them in another
// spelling (a locale for a language), and refuses anything else as it is
// parsed, so every enumerated flag is a usage error (exit 2) with one line:
// `--<flag> "<value>": choose a, b or c`. Its help shows the values as the
// flag's value name (`--lang ko|en`).
type enumValue struct {
	p       *string
	allowed []string
	accept  func(string) bool
}

func (e *enumValue) String() string { return *e.p }
func (e *enumValue) Type() string   { return strings.Join(e.allowed, "|") }

func (e *enumValue) Set(v string) error {
	if slices.Contains(e.allowed, v) || (e.accept != nil && e.accept(v)) {
		*e.p = v
		return nil
	}
	return fmt.Errorf("choose %s", orList(e.allowed))
}

// enumVar declares --name, an enumerated flag stored in p with default def
// (one of allowed, or ""): the shared helper of every flag that takes one
// of a fixed set of values, for the commands of every owner. accept (nil:
// none) takes other spellings of the allowed values.
func enumVar(cmd *cobra.Command, p *string, name, def, usage string, accept func(string) bool, allowed ...string) *pflag.Flag {
	*p = def
	cmd.Flags().Var(&enumValue{p: p, allowed: allowed, accept: accept}, name, usage)
	return cmd.Flags().Lookup(name)
}

// flagError is the root's flag error: one usage line (exit 2); a value a
// flag refused reads `--<flag> "<value>": <why>`, as checkEnum's do.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		return &usageError{fmt.Errorf("--%s %q: %w", iv.GetFlag().Name, iv.GetValue(), errors.Unwrap(iv))}
	}
	return &usageError{err}
}

// orList reads "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// nonNil is s, or an empty slice for JSON's [] instead of null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// printLines prints each line.
func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
