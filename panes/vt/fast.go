package vt

import "unsafe"

// The two hottest loops (printing ASCII runs into cells, encoding lines into
// the scrollback) handle a Cell as two little-endian 64-bit words:
//
//	word 0: Ch (bits 0–31) | Fg (32–63)
//	word 1: Bg (bits 0–31) | Attr (32–47) | Ext (48–63)
//
// Two plain stores or loads per cell instead of five field accesses. On a
// big-endian machine the field-by-field loops are used instead.

// Cell's layout, checked by the compiler (an array length below zero or a
// constant overflow fails the build): the words above assume it.
type (
	_ [unsafe.Sizeof(Cell{}) - 16]struct{}
	_ [16 - unsafe.Sizeof(Cell{})]struct{}
	_ [unsafe.Offsetof(Cell{}.Fg) - 4]struct{}
	_ [4 - unsafe.Offsetof(Cell{}.Fg)]struct{}
	_ [unsafe.Offsetof(Cell{}.Bg) - 8]struct{}
	_ [8 - unsafe.Offsetof(Cell{}.Bg)]struct{}
	_ [unsafe.Offsetof(Cell{}.Attr) - 12]struct{}
	_ [12 - unsafe.Offsetof(Cell{}.Attr)]struct{}
	_ [unsafe.Offsetof(Cell{}.Ext) - 14]struct{}
	_ [14 - unsafe.Offsetof(Cell{}.Ext)]struct{}
)

// fillASCII writes src into dst (len(dst) == len(src)) with one style.
func fillASCII(dst []Cell, src []byte, fg, bg Color, attr Attr, ext uint16) {
	if len(dst) == 0 {
		return
	}
	if !littleEndian {
		for j := range dst {
			d := &dst[j]
			d.Ch, d.Fg, d.Bg, d.Attr, d.Ext = rune(src[j]), fg, bg, attr, ext
		}
		return
	}
	w0 := uint64(fg) << 32
	w1 := uint64(bg) | uint64(attr)<<32 | uint64(ext)<<48
	// One [2]uint64 per cell, indexed by the same j as src: the compiler
	// proves every index in bounds and drops the checks.
	pairs := unsafe.Slice((*[2]uint64)(unsafe.Pointer(&dst[0])), len(dst))
	src = src[:len(pairs)]
	for j, b := range src {
		pairs[j] = [2]uint64{w0 | uint64(b), w1}
	}
}

// cellWords returns the cells as 64-bit words (little-endian machines only).
func cellWords(cells []Cell) []uint64 {
	if len(cells) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&cells[0])), 2*len(cells))
}

// styleMask keeps the style part of word 1: Bg, the SGR bits of Attr, Ext.
const styleMask = 0xffffffff | uint64(attrStyle)<<32 | 0xffff<<48
