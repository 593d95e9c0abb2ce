package vt

import (
	"sync/atomic"

	"github.com/clipperhouse/displaywidth"
)

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
	// A small direct-mapped cache: TUIs repeat the same few box-drawing and
	// CJK characters, and the lookup below walks a trie. Entries are packed
	// (rune<<2 | width+1) so a zero entry means empty; racing writers can
	// only lose an entry, never corrupt one (one word each).
	slot := &widthCache[uint32(r)&(uint32(len(widthCache))-1)]
	if c := slot.Load(); c != 0 && rune(c>>2) == r {
		return int(c&3) - 1
	}
	w := widthOpts.Rune(r)
	slot.Store(uint32(r)<<2 | uint32(w+1))
	return w
}

var widthCache [1024]atomic.Uint32
