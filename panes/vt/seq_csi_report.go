package vt

import "strconv"

// Device reports and queries: DA1, DA2, XTVERSION, DSR (status and CPR),
// DECXCPR and XTWINOPS 18. Replies go to the program's input through the
// reply callback, built in a reused buffer.

// primaryDA answers DA1: a VT220 with ANSI colour.
func (e *Emulator) primaryDA() {
	e.replyString("\x1b[?62;22c")
}

// secondaryDA answers DA2.
func (e *Emulator) secondaryDA() {
	e.replyString("\x1b[>1;10;0c")
}

// xtversion answers XTVERSION with the terminal's name.
func (e *Emulator) xtversion() {
	e.replyString("\x1bP>|cockpit\x1b\\")
}

// deviceStatus answers DSR 5 (status: fine) and 6 (CPR, the cursor
// position).
func (e *Emulator) deviceStatus(mode int) {
	switch mode {
	case 5:
		e.replyString("\x1b[0n")
	case 6:
		e.replyf3("\x1b[", e.cprRow(), ';', e.x+1, "R")
	}
}

// extendedCPR answers DECXCPR (CSI ? 6 n): the cursor position and page 1.
func (e *Emulator) extendedCPR() {
	e.replyf3("\x1b[?", e.cprRow(), ';', e.x+1, ";1R")
}

// windowOp answers XTWINOPS 18 (the text area's size in characters); other
// window operations are ignored.
func (e *Emulator) windowOp(op int) {
	if op == 18 {
		e.replyf3("\x1b[8;", e.rows, ';', e.cols, "t")
	}
}

// cprRow is the cursor's 1-based row as reported, relative to the region in
// origin mode.
func (e *Emulator) cprRow() int {
	if e.origin {
		return e.y - e.top + 1
	}
	return e.y + 1
}

// replyString sends s.
func (e *Emulator) replyString(s string) {
	e.replyBuf = append(e.replyBuf[:0], s...)
	e.sendReply(e.replyBuf)
}

// replyf3 sends pre + a + sep + b + post.
func (e *Emulator) replyf3(pre string, a int, sep byte, b int, post string) {
	r := append(e.replyBuf[:0], pre...)
	r = strconv.AppendInt(r, int64(a), 10)
	r = append(r, sep)
	r = strconv.AppendInt(r, int64(b), 10)
	r = append(r, post...)
	e.replyBuf = r
	e.sendReply(r)
}
