package workers

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// TestSimBarFitsItsPane (issue 17 item 13): the sim's redrawn status line
// fits the terminal it runs on, so \r\x1b[2K redraws it in place; wider, it
// wrapped and every redraw stacked a row (the demo at 80×24). At each width
// every redraw is narrower than the terminal; on a wide one the bar keeps
// its 24 cells, its label and its percentage.
func TestSimBarFitsItsPane(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{12, 20, 26, 38, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			t.Parallel() // each waits out a 300 ms sim
			master, tty, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: 10}); err != nil {
				t.Fatal(err)
			}
			var raw bytes.Buffer
			read := make(chan struct{})
			go func() { io.Copy(&raw, master); close(read) }()
			result := filepath.Join(t.TempDir(), "result.md")
			var errb bytes.Buffer
			if code := RunSim([]string{"--model", "sim-ok-300ms"}, strings.NewReader(simPrompt(result)), tty, &errb); code != 0 {
				t.Fatalf("%d columns: exit %d, %s", cols, code, errb.String())
			}
			tty.Close()
			<-read
			master.Close()
			draws := 0
			for _, seg := range strings.Split(raw.String(), "\r\x1b[2K")[1:] {
				line, _, _ := strings.Cut(seg, "\r\n") // a draw ends at the next redraw or line
				if !strings.Contains(line, "░") && !strings.Contains(line, "█") {
					continue // a tool line or the end line
				}
				draws++
				if w := ansi.StringWidth(line); w >= cols {
					t.Errorf("%d columns: a redraw is %d wide: %q", cols, w, ansi.Strip(line))
				}
				if cols == 120 && (!strings.Contains(line, "thinking") || strings.Count(ansi.Strip(line), "░")+strings.Count(ansi.Strip(line), "█") != 24 || !strings.Contains(ansi.Strip(line), "%")) {
					t.Errorf("120 columns: the bar lost its label, cells or percentage: %q", ansi.Strip(line))
				}
			}
			if draws == 0 {
				t.Errorf("%d columns: no bar was drawn:\n%q", cols, raw.String())
			}
		})
	}
}
