package vt

import (
	"bytes"
	"strconv"

	"github.com/okstra/cockpit/panes/term"
)

// OSC strings (ESC ] Ps ; Pt, ended by ST or BEL): the title, hyperlinks,
// notifications and colour queries (OSC 4, 10, 11, 12). Others are ignored.

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
	case 4:
		e.paletteQueries(rest)
	case 10, 11, 12:
		e.colorQueries(cmd, rest)
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

// colorQueries is OSC 10, 11 and 12 (foreground, background, cursor
// colour): each "?" in the list answers the colour of its place, as xterm
// lets "OSC 10;?;?" ask for 10 and 11. Set requests are ignored: the
// cockpit draws with the outer terminal's colours.
func (e *Emulator) colorQueries(cmd int, rest []byte) {
	for len(rest) > 0 && cmd <= 12 {
		arg, tail, _ := bytes.Cut(rest, []byte{';'})
		if string(arg) == "?" {
			c := e.colors.Fg
			switch cmd {
			case 11:
				c = e.colors.Bg
			case 12:
				c = e.colors.Cursor
			}
			e.colorReply(cmd, -1, c)
		}
		rest = tail
		cmd++
	}
}

// paletteQueries is OSC 4;c;?[;c;?…]: each queried palette entry (0–255)
// is answered. Set requests are ignored.
func (e *Emulator) paletteQueries(rest []byte) {
	for len(rest) > 0 {
		idx, tail, _ := bytes.Cut(rest, []byte{';'})
		spec, tail2, _ := bytes.Cut(tail, []byte{';'})
		rest = tail2
		i, err := strconv.Atoi(string(idx))
		if err != nil || i < 0 || i > 255 || string(spec) != "?" {
			continue
		}
		e.colorReply(4, i, e.colors.PaletteColor(i))
	}
}

// colorReply answers a colour query as xterm does, ending it as the query
// was ended (BEL or ST): OSC cmd[;idx];rgb:rrrr/gggg/bbbb.
func (e *Emulator) colorReply(cmd, idx int, c term.RGB) {
	r := append(e.replyBuf[:0], "\x1b]"...)
	r = strconv.AppendInt(r, int64(cmd), 10)
	r = append(r, ';')
	if idx >= 0 {
		r = strconv.AppendInt(r, int64(idx), 10)
		r = append(r, ';')
	}
	r = c.AppendX11(r)
	if e.p.oscBEL {
		r = append(r, 0x07)
	} else {
		r = append(r, "\x1b\\"...)
	}
	e.replyBuf = r
	e.sendReply(r)
}
