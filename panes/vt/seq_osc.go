package vt

import (
	"bytes"
	"strconv"

	"github.com/okstra/cockpit/panes/term"
)

// OSC strings (ESC ] Ps ; Pt, ended by ST or BEL): the title, hyperlinks,
// notifications and colour queries. Others are ignored.

// oscDispatch handles the OSC string collected in p.osc.
func (e *Emulator) oscDispatch() {
	p := &e.p
	if p.oscBig {
		return
	}
	num, rest, found := bytes.Cut(p.osc, []byte{';'})
	cmd, err := strconv.Atoi(string(num))
	if err != nil {
		return
	}
	switch cmd {
	case 0, 2:
		if found {
			e.setTitle(rest)
		}
	case 8:
		e.setHyperlink(rest)
	case 9:
		e.notify9(rest)
	case 777:
		e.notify777(rest)
	case 10, 11, 12:
		if string(rest) == "?" {
			e.colorQuery(cmd)
		}
	}
}

// setTitle is OSC 0 and 2: an event when the title changes.
func (e *Emulator) setTitle(title []byte) {
	if string(title) != e.title {
		e.title = string(title)
		e.emit(term.Event{Kind: term.EventTitle, Title: e.title})
	}
}

// setHyperlink is OSC 8 (params;url): the pen's link for the cells printed
// next; an empty URL ends it.
func (e *Emulator) setHyperlink(arg []byte) {
	params, url, ok := bytes.Cut(arg, []byte{';'})
	if !ok {
		return
	}
	id := uint16(0)
	if len(url) > 0 {
		id = e.t.link(link{params: string(params), url: string(url)})
	}
	if id != e.pen.link {
		e.pen.link = id
		e.pen.ext = e.t.extra(extra{ul: e.pen.ul, link: id})
	}
}

// notify9 is OSC 9;body, except ConEmu's 9;4 progress reports.
func (e *Emulator) notify9(body []byte) {
	if bytes.HasPrefix(body, []byte("4;")) {
		return
	}
	e.emit(term.Event{Kind: term.EventNotify, Body: string(body)})
}

// notify777 is OSC 777;notify;title;body.
func (e *Emulator) notify777(arg []byte) {
	kind, tail, _ := bytes.Cut(arg, []byte{';'})
	if string(kind) != "notify" {
		return
	}
	title, body, _ := bytes.Cut(tail, []byte{';'})
	e.emit(term.Event{Kind: term.EventNotify, Title: string(title), Body: string(body)})
}

// colorQuery answers OSC 10, 11 and 12 ? (foreground, background, cursor
// colour) with white, black and white.
func (e *Emulator) colorQuery(cmd int) {
	c := "rgb:ffff/ffff/ffff"
	if cmd == 11 {
		c = "rgb:0000/0000/0000"
	}
	r := append(e.replyBuf[:0], "\x1b]"...)
	r = strconv.AppendInt(r, int64(cmd), 10)
	r = append(r, ';')
	r = append(r, c...)
	r = append(r, "\x1b\\"...)
	e.replyBuf = r
	e.sendReply(r)
}
