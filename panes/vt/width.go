package vt

import "github.com/clipperhouse/displaywidth"

var widthOpts = displaywidth.Options{}

// runeWidth is the number of columns r takes: 0 (combining, format,
// control), 1 or 2. The rules are displaywidth's (Unicode East Asian Width
// and emoji presentation), the same x/vt uses.
func runeWidth(r rune) int {
	if r < 0x300 {
		if r >= 0x20 && r < 0x7f || r >= 0xa0 {
			return 1
		}
		return 0
	}
	return widthOpts.Rune(r)
}
