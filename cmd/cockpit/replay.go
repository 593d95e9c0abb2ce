package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/okstra/cockpit/panes/vt"
)

type replayOptions struct {
	size       string
	ansi       bool
	scrollback bool
	stats      bool
}

func newReplayCmd(io *streams) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay <file> [--size 200x50] [--ansi] [--scrollback] [--stats]",
		Short: "Print the screen a pane would show after a byte stream (e.g. a worker's <prompt>.log)",
		Long: `replay feeds a file of raw terminal output — a worker's <prompt>.log is one — to
the cockpit's terminal emulator and prints the screen a pane of that size would
show. --ansi keeps colours and styles, --scrollback prints the lines that
scrolled off first, --stats adds bytes, seconds and MB/s of the emulator alone.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &usageError{fmt.Errorf("replay takes exactly one file, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cols, rows, err := parseSize(opts.size)
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err // *PathError names the file and the reason
			}
			defer f.Close()
			st, err := vt.Replay(io.Out, f, vt.ReplayOptions{Cols: cols, Rows: rows, ANSI: opts.ansi, Scrollback: opts.scrollback})
			if err != nil {
				return err
			}
			if opts.stats {
				fmt.Fprintf(io.Err, "%d bytes in %.3f s: %.1f MB/s (emulator only)\n", st.Bytes, st.Seconds, st.MBps)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.size, "size", "200x50", "screen size as COLSxROWS")
	cmd.Flags().BoolVar(&opts.ansi, "ansi", false, "keep colours and styles")
	cmd.Flags().BoolVar(&opts.scrollback, "scrollback", false, "print the scrollback before the screen")
	cmd.Flags().BoolVar(&opts.stats, "stats", false, "print bytes, seconds and MB/s of the emulator on stderr")
	return cmd
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
