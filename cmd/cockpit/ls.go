package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
		fmt.Fprintln(o.IO.Out, "no cockpit engine is running")
		return nil
	}
	printEngines(o.IO.Out, infos)
	return nil
}

// describeEngines asks each engine its status (at most 2 s each).
func describeEngines(parent context.Context, entries []registry.Entry) []engineInfo {
	var out []engineInfo
	for _, e := range entries {
		info := engineInfo{StatusResult: control.StatusResult{
			PID: e.PID, ProjectRoot: e.ProjectRoot, RunManifest: e.RunManifest, TaskKey: e.TaskKey,
			Started: e.Started, Socket: e.Socket, Gates: []string{},
		}, Log: e.Log}
		ctx, cancel := context.WithTimeout(parent, 2*time.Second)
		c, err := control.Dial(ctx, e.Socket, "ls")
		if err == nil {
			var st control.StatusResult
			if err = c.Call(ctx, control.MethodStatus, struct{}{}, &st); err == nil {
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

// printEngines prints engines as a table.
func printEngines(w io.Writer, infos []engineInfo) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tSTARTED\tTASK\tRUN MANIFEST\tPROJECT ROOT\tPANES\tPENDING/DONE\tGATES\tCOST\tSCREENS")
	home, _ := os.UserHomeDir()
	for _, e := range infos {
		root := e.ProjectRoot
		if home != "" && strings.HasPrefix(root, home+"/") {
			root = "~" + root[len(home):]
		}
		gates := strings.Join(e.Gates, ",")
		if gates == "" {
			gates = "-"
		}
		task := e.TaskKey
		if task == "" {
			task = "-"
		}
		panes, counts, screens := strconv.Itoa(e.Panes), fmt.Sprintf("%d/%d", e.Pending, e.Done), strconv.Itoa(e.Screens)
		cost := "-"
		if e.CostKnown {
			cost = fmt.Sprintf("$%.2f", e.CostUSD)
			if e.Unpriced > 0 {
				cost += "?"
			}
		}
		if e.Error != "" {
			panes, counts, gates, cost, screens = "?", "?", "?", "?", "?"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.PID, e.Started.Local().Format("2006-01-02 15:04"), task,
			e.RunManifest, root, panes, counts, gates, cost, screens)
	}
	tw.Flush()
}
