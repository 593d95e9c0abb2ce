package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/panes/vt"
)

// ReplayOptions are the flags of `replay`.
type ReplayOptions struct {
	IO         *IOStreams
	File       string
	Size       string
	Cols, Rows int // --size, parsed
	ANSI       bool
	Scrollback bool
	Stats      bool
}

// NewCmdReplay parses and checks `replay`; runF (replayRun when nil) does
// it.
func NewCmdReplay(f *Factory, runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "replay <file> [--size 200x50] [--ansi] [--scrollback] [--stats]",
		Short: "Print the screen a pane would show after a byte stream (e.g. a worker's <prompt>.log)",
		Long: `replay feeds a file of raw terminal output — a worker's <prompt>.log is one — to
the cockpit's terminal emulator and prints the screen a pane of that size would
show. --ansi keeps colours and styles, --scrollback prints the lines that
scrolled off first, --stats adds bytes, seconds and MB/s of the emulator alone.`,
		Annotations: noWait(),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{fmt.Errorf("replay takes exactly one file, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Cols, opts.Rows, err = parseSize(opts.Size); err != nil {
				return err
			}
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return replayRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Size, "size", "200x50", "screen size as COLSxROWS")
	cmd.Flags().BoolVar(&opts.ANSI, "ansi", false, "keep colours and styles")
	cmd.Flags().BoolVar(&opts.Scrollback, "scrollback", false, "print the scrollback before the screen")
	cmd.Flags().BoolVar(&opts.Stats, "stats", false, "print bytes, seconds and MB/s of the emulator on stderr")
	return cmd
}

func replayRun(o *ReplayOptions) error {
	f, err := os.Open(o.File)
	if err != nil {
		return err // *PathError names the file and the reason
	}
	defer f.Close()
	st, err := vt.Replay(o.IO.Out, f, vt.ReplayOptions{Cols: o.Cols, Rows: o.Rows, ANSI: o.ANSI, Scrollback: o.Scrollback})
	if err != nil {
		return err
	}
	if o.Stats {
		fmt.Fprintf(o.IO.Err, "%d bytes in %.3f s: %.1f MB/s (emulator only)\n", st.Bytes, st.Seconds, st.MBps)
	}
	return nil
}

// parseSize reads COLSxROWS.
func parseSize(s string) (int, int, error) {
	c, r, ok := strings.Cut(strings.ToLower(s), "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols < 2 || rows < 1 || cols > 2000 || rows > 1000 {
		return 0, 0, &usageError{fmt.Errorf("--size %q must be COLSxROWS, e.g. 200x50", s)}
	}
	return cols, rows, nil
}
