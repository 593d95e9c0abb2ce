package attach

import (
	"image/color"
	"strconv"
	"strings"
	"sync"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/okstra/cockpit/panes/term"
)

// ColorQuery is what a session with OnColors writes to its client's
// terminal when it starts: the foreground, background and cursor colours
// (OSC 10, 11, 12) and the 16 ANSI colours (OSC 4), each its own query so a
// terminal that knows only some answers those. The answers come back as the
// terminal's input; a terminal that does not answer leaves the colours as
// they were, and nothing waits for it.
var ColorQuery = func() string {
	var b strings.Builder
	for _, n := range []string{"10", "11", "12"} {
		b.WriteString("\x1b]" + n + ";?\x1b\\")
	}
	for i := range 16 {
		b.WriteString("\x1b]4;" + strconv.Itoa(i) + ";?\x1b\\")
	}
	return b.String()
}()

// colorSettle is how long after the last colour answer the colours are
// handed on when the terminal has not answered every query (one that knows
// only some): the 19 answers of ColorQuery arrive in one burst, and the
// panes get them once. A terminal that answers all 19 has them handed on
// at its last answer. (At 20 ms a loaded machine, or a slow link, split
// the burst and handed on half the answers as the colours.)
const colorSettle = 250 * time.Millisecond

// allColorAnswers is the answered mask once every query of ColorQuery has
// been answered: fg, bg, cursor and the 16 palette colours, a bit each.
const allColorAnswers = 1<<(3+16) - 1

// colorWatch collects a client terminal's answers to ColorQuery.
type colorWatch struct {
	reporting sync.Mutex // held while report runs
	mu        sync.Mutex
	colors    term.Colors
	answered  uint32 // a bit per query answered (allColorAnswers)
	timer     *time.Timer
	done      bool
	report    func(term.Colors)
}

func newColorWatch(report func(term.Colors)) *colorWatch {
	return &colorWatch{colors: term.DefaultColors(), report: report}
}

// see takes ev if it answers a colour query; it reports whether it did.
func (w *colorWatch) see(ev uv.Event) bool {
	var set func(*term.Colors)
	var bit uint
	switch ev := ev.(type) {
	case uv.ForegroundColorEvent:
		c, ok := toRGB(ev.Color)
		set = func(cs *term.Colors) {
			if ok {
				cs.Fg = c
			}
		}
	case uv.BackgroundColorEvent:
		c, ok := toRGB(ev.Color)
		set, bit = func(cs *term.Colors) {
			if ok {
				cs.Bg = c
			}
		}, 1
	case uv.CursorColorEvent:
		c, ok := toRGB(ev.Color)
		set, bit = func(cs *term.Colors) {
			if ok {
				cs.Cursor = c
			}
		}, 2
	case uv.UnknownOscEvent:
		i, c, ok := parsePaletteAnswer(string(ev))
		if !ok {
			return false
		}
		set, bit = func(cs *term.Colors) { cs.Palette[i] = c }, 3+uint(i)
	default:
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return true
	}
	set(&w.colors)
	w.answered |= 1 << bit
	settle := colorSettle
	if w.answered == allColorAnswers {
		settle = 0 // every answer is in
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(settle, w.fire)
	} else {
		w.timer.Reset(settle)
	}
	return true
}

func (w *colorWatch) fire() {
	w.reporting.Lock()
	defer w.reporting.Unlock()
	w.mu.Lock()
	c, done := w.colors, w.done
	w.mu.Unlock()
	if !done {
		w.report(c)
	}
}

// stop ends the watch: once it returns, no report runs or begins.
func (w *colorWatch) stop() {
	w.mu.Lock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.reporting.Lock() // waits for a report under way
	defer w.reporting.Unlock()
}

func toRGB(c color.Color) (term.RGB, bool) {
	if c == nil {
		return term.RGB{}, false
	}
	r, g, b, _ := c.RGBA()
	return term.RGB{R: uint16(r), G: uint16(g), B: uint16(b)}, true
}

// parsePaletteAnswer reads an answer to an OSC 4 query of a colour 0–15:
// ESC ] 4 ; index ; colour, ended by BEL or ST.
func parsePaletteAnswer(s string) (int, term.RGB, bool) {
	s, ok := strings.CutPrefix(s, "\x1b]4;")
	if !ok {
		return 0, term.RGB{}, false
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\x07"), "\x1b\\")
	idx, spec, ok := strings.Cut(s, ";")
	if !ok {
		return 0, term.RGB{}, false
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i > 15 {
		return 0, term.RGB{}, false
	}
	c, ok := term.ParseX11(spec)
	return i, c, ok
}
