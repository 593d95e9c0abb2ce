package tui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

func TestParsePrefix(t *testing.T) {
	good := map[string]string{
		"ctrl+b":     "ctrl+b",
		"C-b":        "ctrl+b",
		"C-a":        "ctrl+a",
		"C-A":        "ctrl+a",
		"^a":         "ctrl+a",
		"M-x":        "alt+x",
		"alt+x":      "alt+x",
		"C-M-a":      "ctrl+alt+a",
		"ctrl+alt+a": "ctrl+alt+a",
		"C-Space":    "ctrl+space",
		"ctrl+space": "ctrl+space",
		"C-@":        "ctrl+space",
		"ctrl+]":     "ctrl+]",
		"C-\\":       "ctrl+\\",
		"`":          "`",
		"F12":        "f12",
		"f1":         "f1",
		"C-F5":       "ctrl+f5",
		"M-S-x":      "alt+shift+x",
	}
	for in, want := range good {
		got, err := ParsePrefix(in)
		if err != nil || got != want {
			t.Errorf("ParsePrefix(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "ctrl+zz", "ctrl+1", "C-i", "C-m", "C-[", "enter", "tab", "esc", "hyper+a", "C-", "f13", "ctrl+shift+a", "zz"}
	for _, in := range bad {
		got, err := ParsePrefix(in)
		if err == nil {
			t.Errorf("ParsePrefix(%q) = %q, want an error", in, got)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "ctrl+b") {
			t.Errorf("ParsePrefix(%q): %q should be one line saying how to write a key", in, msg)
		}
	}
}

// TestPrefixIsWhatTheScreenMatches: the name ParsePrefix returns is the
// key bubbletea reports for the bytes a terminal sends, so the prefix
// leaves the pane.
func TestPrefixIsWhatTheScreenMatches(t *testing.T) {
	for in, bytes := range map[string]string{"C-a": "\x01", "M-x": "\x1bx", "C-Space": "\x00", "C-]": "\x1d", "F12": "\x1b[24~"} {
		name, err := ParsePrefix(in)
		if err != nil {
			t.Fatal(err)
		}
		var dec uv.EventDecoder
		_, ev := dec.Decode([]byte(bytes))
		km := NewKeyMap(in)
		msg := tea.KeyPressMsg(ev.(uv.KeyPressEvent))
		if msg.String() != name || !key.Matches(msg, km.Prefix) {
			t.Errorf("%q: the terminal's %q arrives as %q; the prefix is %q", in, bytes, msg.String(), name)
		}
	}
}
