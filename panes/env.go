package panes

import (
	"os"
	"strings"
)

// A pane is a terminal of its own: its program sees the cockpit's emulator,
// not the terminal the cockpit was started from (docs/PANES.md,
// "Environment"; DECISIONS 41).
const (
	// DefaultTerm is every pane's TERM: the emulator (panes/vt) models
	// xterm, and xterm-256color is the terminfo entry every system has.
	DefaultTerm = "xterm-256color"
	// ColorTerm is every pane's COLORTERM: the emulator keeps 24-bit colour.
	ColorTerm = "truecolor"
	// TermProgram is every pane's TERM_PROGRAM, as tmux sets "tmux".
	TermProgram = "cockpit"
)

// outerTermNames are variables that describe or address the terminal, or
// the multiplexer, the cockpit itself runs in. A pane's program that saw
// them would draw for that terminal (TERM, COLORFGBG), talk to it through
// its own channels (kitty's remote control, tmux commands on the user's
// server), or believe it runs inside it.
var outerTermNames = map[string]bool{
	"TERM": true, "COLORTERM": true, "TERM_PROGRAM": true, "TERM_PROGRAM_VERSION": true,
	"TERM_SESSION_ID": true, "TERMINFO": true, "TERMCAP": true, "COLORFGBG": true,
	"COLUMNS": true, "LINES": true, // the size is the PTY's
	"TMUX": true, "TMUX_PANE": true, // tmux
	"STY": true, "WINDOW": true, // GNU screen
	"ZELLIJ": true, "WINDOWID": true, "VTE_VERSION": true, "TILIX_ID": true,
	"WT_SESSION": true, "WT_PROFILE_ID": true, // Windows Terminal
	"LC_TERMINAL": true, "LC_TERMINAL_VERSION": true, // iTerm2
	"COCKPIT_PANE": true, // an outer cockpit's; the pane's own is set
}

// outerTermPrefixes are families of such variables, one per terminal.
var outerTermPrefixes = []string{
	"ZELLIJ_", "KITTY_", "WEZTERM_", "ITERM_", "ALACRITTY_", "GHOSTTY_",
	"KONSOLE_", "GNOME_TERMINAL_", "TERMINATOR_", "XTERM_",
}

// OuterTermVar reports whether the variable name belongs to the outer
// terminal, so a pane's environment leaves it out.
func OuterTermVar(name string) bool {
	if outerTermNames[name] {
		return true
	}
	for _, p := range outerTermPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// paneEnv builds the program's environment: env (nil: the cockpit's own)
// without the outer terminal's variables, then the pane's TERM, COLORTERM,
// TERM_PROGRAM and COCKPIT_PANE.
func paneEnv(env []string, id string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if OuterTermVar(name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"TERM="+DefaultTerm,
		"COLORTERM="+ColorTerm,
		"TERM_PROGRAM="+TermProgram,
		"COCKPIT_PANE="+id,
	)
}
