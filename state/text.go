package state

import (
	"fmt"
	"strings"
	"unicode"
)

// Text from run files and workers — labels, reasons, answers — reaches
// terminals (the headless commands' text output) and okstra's Markdown. A
// NUL, an ESC starting a terminal sequence (OSC 52 writes the clipboard)
// or a C1 control would act instead of print. Printable makes every
// control character visible as its Go escape; OneLine also folds line
// breaks and tabs into single spaces first.

// Printable returns s with every control character (C0, DEL, C1) written
// as an escape: "\x1b", "\x00", "\u009b"; "\n" and "\t" as "\n" and "\t".
func Printable(s string) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// OneLine folds every run of whitespace (line breaks and tabs included)
// into one space and makes the rest Printable.
func OneLine(s string) string {
	if !hasControl(s) {
		return s
	}
	return Printable(strings.Join(strings.Fields(s), " "))
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}
