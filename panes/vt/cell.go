package vt

// Color is a packed cell colour: the top byte says which kind, the rest is the
// value. The zero Color is the terminal default.
type Color uint32

// Colour kinds, in the top byte of a Color.
const (
	ColorDefault Color = 0
	colorBasic   Color = 1 << 24 // 30–37/90–97 (value 0–15)
	colorIndexed Color = 2 << 24 // 38;5;n (value 0–255)
	colorRGB     Color = 3 << 24 // 38;2;r;g;b (value 0xRRGGBB)
)

// BasicColor is one of the 16 ANSI colours (0–7 normal, 8–15 bright) as set by
// SGR 30–37/90–97.
func BasicColor(n uint8) Color { return colorBasic | Color(n&15) }

// IndexedColor is a 256-colour palette entry (SGR 38;5;n).
func IndexedColor(n uint8) Color { return colorIndexed | Color(n) }

// RGBColor is a truecolour (SGR 38;2;r;g;b).
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// Kind reports 0 (default), 1 (basic), 2 (indexed) or 3 (RGB).
func (c Color) Kind() int { return int(c >> 24) }

// Value is the colour number (basic, indexed) or 0xRRGGBB.
func (c Color) Value() uint32 { return uint32(c) & 0xffffff }

// Attr holds a cell's attribute bits and underline style.
type Attr uint16

// Attribute bits. The underline style (0 none, 1 single, 2 double, 3 curly,
// 4 dotted, 5 dashed) sits in AttrUnderlineMask.
const (
	AttrBold Attr = 1 << iota
	AttrDim
	AttrItalic
	attrUL0
	attrUL1
	attrUL2
	AttrBlink
	AttrRapidBlink
	AttrInverse
	AttrHidden
	AttrStrike
	// AttrWide marks the first cell of a two-column character.
	AttrWide
	// AttrWideCont marks the cell a wide character covers.
	AttrWideCont
	// attrCluster says Ch is an index into the grapheme cluster table.
	attrCluster

	AttrUnderlineMask = attrUL0 | attrUL1 | attrUL2
	attrULShift       = 3
	// attrStyle is what SGR sets; the rest describes the content.
	attrStyle = AttrBold | AttrDim | AttrItalic | AttrUnderlineMask | AttrBlink | AttrRapidBlink | AttrInverse | AttrHidden | AttrStrike
)

// Underline is the underline style: 0 none, 1 single, 2 double, 3 curly,
// 4 dotted, 5 dashed.
func (a Attr) Underline() int { return int(a&AttrUnderlineMask) >> attrULShift }

// Cell is one screen cell: 16 bytes and no pointers, so a screen is a flat
// block the garbage collector never scans.
type Cell struct {
	Ch   rune // 0 = never written (renders as a space)
	Fg   Color
	Bg   Color
	Attr Attr
	Ext  uint16 // index into the extras table (underline colour, hyperlink); 0 = none
}

// blank reports whether the cell shows nothing but possibly its background.
func (c *Cell) blank() bool {
	return (c.Ch == 0 || c.Ch == ' ') && c.Attr&(attrCluster|AttrWide|AttrWideCont) == 0
}

// trimmable reports whether a trailing cell may be left out of a rendered
// line: blank, no background, nothing drawn on it (inverse, underline,
// strike, link).
func (c *Cell) trimmable() bool {
	return c.blank() && c.Bg == 0 && c.Ext == 0 && c.Attr&(AttrInverse|AttrUnderlineMask|AttrStrike) == 0
}

// extra is what does not fit in a Cell: the underline colour and hyperlink.
type extra struct {
	ul   Color
	link uint16 // index into links; 0 = none
}

type link struct {
	params, url string
}

// tables interns the rare, variable-size parts of cells so that cells stay
// fixed-size: grapheme clusters, hyperlinks and extras. They only grow (up to
// a cap) and are shared by the screens and the scrollback.
type tables struct {
	clusters   []string
	clusterIdx map[string]rune
	links      []link
	linkIdx    map[link]uint16
	extras     []extra
	extraIdx   map[extra]uint16
}

// Caps that bound what hostile or broken output can make the tables hold
// (about 2 MB of clusters, 8 MB of links): past them new entries are not
// kept (a mark or link is dropped, never the text).
const (
	maxClusters   = 1 << 16
	maxClusterLen = 32 // bytes of one grapheme cluster
	maxLinks      = 1 << 12
	maxLinkLen    = 2048 // bytes of params plus URL
	maxExtras     = 1 << 15
)

func (t *tables) init() {
	t.clusters = t.clusters[:0]
	t.clusterIdx = map[string]rune{}
	t.links = append(t.links[:0], link{})
	t.linkIdx = map[link]uint16{{}: 0}
	t.extras = append(t.extras[:0], extra{})
	t.extraIdx = map[extra]uint16{{}: 0}
}

// cluster interns a grapheme cluster; ok is false when the table is full.
func (t *tables) cluster(b []byte) (rune, bool) {
	if id, ok := t.clusterIdx[string(b)]; ok {
		return id, true
	}
	if len(t.clusters) >= maxClusters || len(b) > maxClusterLen {
		return 0, false
	}
	id := rune(len(t.clusters))
	s := string(b)
	t.clusters = append(t.clusters, s)
	t.clusterIdx[s] = id
	return id, true
}

func (t *tables) link(l link) uint16 {
	if id, ok := t.linkIdx[l]; ok {
		return id
	}
	if len(t.links) >= maxLinks || len(l.params)+len(l.url) > maxLinkLen {
		return 0
	}
	id := uint16(len(t.links))
	t.links = append(t.links, l)
	t.linkIdx[l] = id
	return id
}

func (t *tables) extra(x extra) uint16 {
	if id, ok := t.extraIdx[x]; ok {
		return id
	}
	if len(t.extras) >= maxExtras {
		return 0
	}
	id := uint16(len(t.extras))
	t.extras = append(t.extras, x)
	t.extraIdx[x] = id
	return id
}

// appendContent appends the text of c (a space for a never-written cell).
func (t *tables) appendContent(dst []byte, c *Cell) []byte {
	switch {
	case c.Attr&attrCluster != 0:
		return append(dst, t.clusters[c.Ch]...)
	case c.Ch == 0:
		return append(dst, ' ')
	case c.Ch < 0x80:
		return append(dst, byte(c.Ch))
	default:
		return appendRune(dst, c.Ch)
	}
}

func appendRune(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, byte(0xC0|r>>6), byte(0x80|r&0x3F))
	case r < 0x10000:
		return append(dst, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	default:
		return append(dst, byte(0xF0|r>>18), byte(0x80|(r>>12)&0x3F), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
}
