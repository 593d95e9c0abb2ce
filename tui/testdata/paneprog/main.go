// Command paneprog is the deterministic program the tui tests run in panes.
//
//	paneprog static MARKER [color]  draw a screen for the current size, again on every resize
//	paneprog history N [MS]         after the first resize (and MS more ms), print N numbered lines
//	paneprog keys FILE [mouse]      raw mode; append every input byte to FILE and show them
//	paneprog gen RATE FILE          coloured log lines at RATE bytes/s; bytes written go to FILE
//	paneprog notify TEXT            ring the bell and send an OSC 9 notification
//	paneprog exit CODE              print a line and exit with CODE
//
// Every mode but exit waits for SIGHUP/SIGTERM, as a worker CLI does.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/internal/loadgen"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: paneprog MODE ...")
		os.Exit(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGHUP, syscall.SIGTERM)
	winch := make(chan os.Signal, 8)
	signal.Notify(winch, syscall.SIGWINCH)
	args := os.Args[2:]
	switch os.Args[1] {
	case "static":
		color := len(args) > 1 && args[1] == "color"
		draw(args[0], color)
		for {
			select {
			case <-winch:
				draw(args[0], color)
			case <-stop:
				return
			}
		}
	case "history":
		n, _ := strconv.Atoi(args[0])
		// The tests open panes at 10x5 and the screen resizes them; a
		// resize that came before signal.Notify shows in the size.
		if c, r := size(); c == 10 && r == 5 {
			select {
			case <-winch:
			case <-time.After(3 * time.Second):
			case <-stop:
				return
			}
		}
		if len(args) > 1 {
			ms, _ := strconv.Atoi(args[1])
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "history line %03d\r\n", i)
		}
		os.Stdout.WriteString(b.String())
		<-stop
	case "keys":
		keys(args[0], len(args) > 1 && args[1] == "mouse", stop)
	case "gen":
		rate, _ := strconv.Atoi(args[0])
		loadgen.Run(rate, args[1], stop)
	case "notify":
		fmt.Printf("%s\a\x1b]9;%s\x07", args[0], args[0])
		<-stop
	case "exit":
		code, _ := strconv.Atoi(args[0])
		fmt.Printf("exiting with %d\r\n", code)
		os.Exit(code)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}

// size returns the terminal size.
func size() (cols, rows int) {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		return 80, 24
	}
	return int(ws.Col), int(ws.Row)
}

// draw clears the screen and draws a frame that depends only on the size,
// as a full-screen program redraws on SIGWINCH.
func draw(marker string, color bool) {
	cols, rows := size()
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	head := fmt.Sprintf("%s size=%dx%d", marker, cols, rows)
	b.WriteString(cut(head, cols))
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	for r := 1; r < rows-1; r++ {
		line := fmt.Sprintf("%02d %s %s", r, words[r%len(words)], strings.Repeat("·", r%7))
		b.WriteString("\r\n")
		if color {
			// Colour and bold, so goldens show the pane's own styles.
			fmt.Fprintf(&b, "\x1b[%dm%s\x1b[0m", 31+r%6, cut(line, cols))
		} else {
			b.WriteString(cut(line, cols))
		}
	}
	b.WriteString("\r\n$ ")
	os.Stdout.WriteString(b.String())
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// keys puts the terminal in raw mode and records every byte it receives.
func keys(path string, mouse bool, stop chan os.Signal) {
	t, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	raw := *t
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, &raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if mouse {
		os.Stdout.WriteString("\x1b[?1000h\x1b[?1006h")
	}
	os.Stdout.WriteString("keys ready\r\n")
	go func() {
		buf := make([]byte, 256)
		var all []byte
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				_, _ = f.Write(buf[:n])
				all = append(all, buf[:n]...)
				q := strconv.Quote(string(all))
				if len(q) > 60 {
					q = q[len(q)-60:]
				}
				fmt.Printf("\x1b[2;1H\x1b[Krecv %s", q)
			}
			if err != nil {
				return
			}
		}
	}()
	<-stop
}
