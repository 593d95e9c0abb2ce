package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// ParsePrefix reads a prefix key as a user writes it, in bubbletea's
// spelling ("ctrl+b", "alt+x", "ctrl+space", "f12", "`") or tmux's ("C-b",
// "M-x", "C-M-a", "^a", "C-Space", "F12"), and returns the name the screen
// matches keys with (bubbletea's). A key is accepted only when a terminal
// can send it: the key is encoded as a terminal without extended key
// reporting would send it and decoded back as the screen decodes its
// input, so "ctrl+zz", "ctrl+1" (no such control character) and "C-i"
// (the terminal sends tab) are refused, as are enter, tab, esc and
// backspace, which every program needs. The error is one line naming the
// value and how to write one.
func ParsePrefix(s string) (string, error) {
	spec := strings.TrimSpace(s)
	if spec == "" {
		return "", fmt.Errorf("the prefix is empty; write a key such as ctrl+b, C-a or M-x")
	}
	var ctrl, alt, shift bool
	base := spec
	switch {
	case strings.HasPrefix(spec, "^") && utf8.RuneCountInString(spec) == 2:
		ctrl, base = true, spec[1:]
	case isTmuxNotation(spec):
		for len(base) > 2 && base[1] == '-' {
			switch base[0] {
			case 'C':
				ctrl = true
			case 'M':
				alt = true
			case 'S':
				shift = true
			}
			base = base[2:]
		}
	case strings.Contains(spec, "+") && spec != "+":
		parts := strings.Split(spec, "+")
		base = parts[len(parts)-1]
		if base == "" && len(parts) >= 2 && parts[len(parts)-2] == "" {
			base = "+" // ctrl++
			parts = parts[:len(parts)-1]
		}
		for _, m := range parts[:len(parts)-1] {
			switch strings.ToLower(m) {
			case "ctrl":
				ctrl = true
			case "alt", "meta":
				alt = true
			case "shift":
				shift = true
			default:
				return "", fmt.Errorf("%q is not a key: %q is not a modifier (ctrl, alt, shift); write a key such as ctrl+b, C-a or M-x", s, m)
			}
		}
	}
	seq, err := encodeKey(base, ctrl, alt, shift)
	if err != nil {
		return "", fmt.Errorf("%q is not a key a terminal can send: %v; write a key such as ctrl+b, C-a or M-x", s, err)
	}
	var dec uv.EventDecoder
	n, ev := dec.Decode(seq)
	k, ok := ev.(uv.KeyPressEvent)
	if !ok || n != len(seq) {
		return "", fmt.Errorf("%q is not a key a terminal can send; write a key such as ctrl+b, C-a or M-x", s)
	}
	name := k.String()
	switch name {
	case "enter", "tab", "esc", "backspace":
		how := ""
		if ctrl {
			how = " (a terminal sends it as " + name + ")"
		}
		return "", fmt.Errorf("%q cannot be the prefix%s: every program needs %s; write another key such as ctrl+b, C-a or M-x", s, how, name)
	}
	return name, nil
}

// isTmuxNotation reports whether s is written as tmux writes keys: one or
// more of C-, M-, S- before the key.
func isTmuxNotation(s string) bool {
	if len(s) < 3 || s[1] != '-' {
		return false
	}
	return s[0] == 'C' || s[0] == 'M' || s[0] == 'S'
}

// keyNames are the named keys a prefix may be, with the bytes a terminal
// sends for them.
var keyNames = map[string]string{
	"space": " ", "tab": "\t", "enter": "\r", "esc": "\x1b", "escape": "\x1b",
	"backspace": "\x7f", "bspace": "\x7f",
}

// encodeKey is what a terminal without extended key reporting sends for
// the key: a control character for ctrl (letters, space and @ [ \ ] ^ _ ?),
// ESC before it for alt, the xterm sequence of a function key.
func encodeKey(base string, ctrl, alt, shift bool) ([]byte, error) {
	lower := strings.ToLower(base)
	if n, ok := strings.CutPrefix(lower, "f"); ok && n != "" {
		if f, err := strconv.Atoi(n); err == nil {
			return encodeFunctionKey(f, ctrl, alt, shift)
		}
	}
	var r rune
	if seq, ok := keyNames[lower]; ok && len(base) > 1 {
		r = rune(seq[0])
	} else if utf8.RuneCountInString(base) == 1 {
		r, _ = utf8.DecodeRuneInString(base)
	} else {
		return nil, fmt.Errorf("%q is neither one character nor a key name (space, f1-f12)", base)
	}
	if shift {
		if !unicode.IsLetter(r) || ctrl {
			return nil, fmt.Errorf("shift only makes a capital letter")
		}
		r = unicode.ToUpper(r)
	}
	if ctrl {
		switch {
		case r >= 'a' && r <= 'z':
			r -= 'a' - 1
		case r >= 'A' && r <= 'Z':
			r -= 'A' - 1 // tmux's C-A is C-a
		case r == ' ' || r == '@':
			r = 0
		case r >= '[' && r <= '_':
			r -= '@'
		case r == '?':
			r = 0x7f
		default:
			return nil, fmt.Errorf("there is no control character for ctrl+%c", r)
		}
	} else if r < ' ' && !strings.Contains("\t\r\x1b", string(r)) {
		return nil, fmt.Errorf("%q is not a key", base)
	}
	seq := []byte(string(r))
	if r == 0 {
		seq = []byte{0}
	}
	if alt {
		seq = append([]byte{0x1b}, seq...)
	}
	return seq, nil
}

// encodeFunctionKey is xterm's sequence for F1-F12 with modifiers.
func encodeFunctionKey(f int, ctrl, alt, shift bool) ([]byte, error) {
	if f < 1 || f > 12 {
		return nil, fmt.Errorf("f%d is not a function key (f1-f12)", f)
	}
	mod := 1
	if shift {
		mod++
	}
	if alt {
		mod += 2
	}
	if ctrl {
		mod += 4
	}
	if f <= 4 {
		final := string(rune('P' + f - 1))
		if mod == 1 {
			return []byte("\x1bO" + final), nil
		}
		return []byte("\x1b[1;" + strconv.Itoa(mod) + final), nil
	}
	code := [...]int{5: 15, 6: 17, 7: 18, 8: 19, 9: 20, 10: 21, 11: 23, 12: 24}[f]
	if mod == 1 {
		return []byte("\x1b[" + strconv.Itoa(code) + "~"), nil
	}
	return []byte("\x1b[" + strconv.Itoa(code) + ";" + strconv.Itoa(mod) + "~"), nil
}
