package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/runtime/control"
	"github.com/okstra/cockpit/runtime/registry"
)

// LsOptions are the flags of `ls`.
type LsOptions struct {
	IO   *IOStreams
	Ctx  context.Context
	JSON bool
}

// NewCmdLs parses `ls`; runF (lsRun when nil) does it.
func NewCmdLs(f *Factory, runF func(*LsOptions) error) *cobra.Command {
	opts := &LsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List your live cockpit engines: run, pid, panes, counts, gates, screens",
		Long: `ls lists the cockpit engines running for you (cockpit open starts one per run;
it runs on when its screen detaches): project root, run manifest, task key, pid,
start time, open panes, the current batch's pending/done counts, waiting gates
and attached screens. cockpit attach brings a screen back, cockpit stop ends one.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return lsRun(opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// engineInfo is one line of ls: the registry's entry and what the engine
// says of itself (Error when it did not answer).
type engineInfo struct {
	Name string `json:"name"`
	control.StatusResult
	Log   string `json:"log,omitempty"`
	Error string `json:"error,omitempty"`
}

func lsRun(o *LsOptions) error {
	entries, err := registry.List()
	if err != nil {
		return err
	}
	infos := describeEngines(o.Ctx, entries)
	if o.JSON {
		return writeJSON(o.IO.Out, nonNil(infos))
	}
	if len(infos) == 0 {
		fmt.Fprintln(o.IO.Out, "no cockpit engine is running; `cockpit demo` starts one to try, `cockpit open` one for a run")
		return nil
	}
	printEngines(o.IO.Out, infos)
	return nil
}

// describeEngines asks each engine its status (at most 2 s each).
func describeEngines(parent context.Context, entries []registry.Entry) []engineInfo {
	var out []engineInfo
	for _, e := range entries {
		info := engineInfo{Name: e.Name, StatusResult: control.StatusResult{
			PID: e.PID, ProjectRoot: e.ProjectRoot, RunManifest: e.RunManifest, TaskKey: e.TaskKey,
			Started: e.Started, Socket: e.Socket, Gates: []string{},
		}, Log: e.Log}
		ctx, cancel := context.WithTimeout(parent, 2*time.Second)
		c, err := control.Dial(ctx, e.Socket, "ls")
		if err == nil {
			var st control.StatusResult
			if st, err = control.Status.Call(ctx, c, control.Empty{}); err == nil {
				if st.Gates == nil {
					st.Gates = []string{}
				}
				info.StatusResult = st
			}
			c.Close()
		}
		cancel()
		if err != nil {
			info.Error = err.Error()
		}
		out = append(out, info)
	}
	return out
}

// lsWidth is the width ls fits its table in, as ps and tmux ls do without
// asking the terminal: the name and the project are cut (with …) when a
// line would be wider.
const lsWidth = 80

// printEngines prints engines as a table that fits lsWidth columns: name,
// pid, open panes, the batch's done/total, waiting gates, cost, attached
// screens and the project (its root, ~ for the home directory, cut at the
// left). `cockpit ls --json` has every field uncut, the start time and the
// run manifest too.
func printEngines(w io.Writer, infos []engineInfo) {
	home, _ := os.UserHomeDir()
	head := []string{"NAME", "PID", "PANES", "DONE", "GATES", "COST", "SCREENS", "PROJECT"}
	rows := [][]string{head}
	for _, e := range infos {
		root := e.ProjectRoot
		if home != "" && strings.HasPrefix(root, home+"/") {
			root = "~" + root[len(home):]
		}
		name := e.Name
		if name == "" {
			name = "-"
		}
		panes, done, gates, screens := strconv.Itoa(e.Panes), fmt.Sprintf("%d/%d", e.Done, e.Pending+e.Done), strconv.Itoa(len(e.Gates)), strconv.Itoa(e.Screens)
		if len(e.Gates) == 0 {
			gates = "-"
		}
		cost := "-"
		if e.CostKnown {
			cost = fmt.Sprintf("$%.2f", e.CostUSD)
			if e.Unpriced > 0 {
				cost += "?"
			}
		}
		if e.Error != "" {
			panes, done, gates, cost, screens = "?", "?", "?", "?", "?"
		}
		rows = append(rows, []string{name, strconv.Itoa(e.PID), panes, done, gates, cost, screens, root})
	}
	// Column widths; the name is cut to leave the project 20 columns, the
	// project to what is left.
	const gap = 2
	widths := make([]int, len(head))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	fixed := 0
	for i := 1; i < len(head)-1; i++ {
		fixed += widths[i] + gap
	}
	widths[0] = min(widths[0], max(len("NAME"), lsWidth-fixed-gap-20))
	rest := lsWidth - fixed - widths[0] - gap
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(cutLeft(c, rest))
				break
			}
			c = ansi.Truncate(c, widths[i], "…")
			b.WriteString(c + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+gap))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// cutLeft keeps the end of s in width columns, with … first when cut (a
// path's last parts say the most).
func cutLeft(s string, width int) string {
	n := ansi.StringWidth(s)
	if n <= width {
		return s
	}
	if width < 1 {
		return ""
	}
	return ansi.TruncateLeft(s, n-width+1, "…")
}
