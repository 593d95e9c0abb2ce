package tea

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// This file is the cockpit's patch to bubbletea v2.1.1 (see README.md in
// this directory). Upstream's renderer goroutine runs a time.Ticker at the
// program's FPS for its whole life: an idle program wakes 30–60 times a
// second to find nothing to draw, which on a small VM costs ~0.8–1.3% of a
// core. Here the renderer sleeps until something changed and flushes at
// most once per frame interval, so an idle program does not wake at all and
// the first change after a quiet spell is drawn at once; so is the first
// change after a key or a paste (its echo), whatever the frame clock says.

// wakeRenderer tells the render loop there may be something to flush. It
// never blocks; wakes that arrive while one is pending are coalesced.
func (p *Program) wakeRenderer() {
	select {
	case p.renderWake <- struct{}{}:
	default:
	}
}

// renderLoop flushes the program's output buffer and the renderer when
// woken, no more often than once per frame, until stopRenderer.
func (p *Program) renderLoop(frame time.Duration) {
	timer := time.NewTimer(0) // the first frame, at once
	armed := true
	var last time.Time
	starting := true
	draw := func() {
		start, before, shown := time.Now(), p.drawn.count(), p.viewShown()
		_ = p.flush()
		_ = p.renderer.flush(false)
		// Only a flush that drew starts the frame clock, and none before
		// the first that drew a view with content: the program's start
		// (terminal set-up, modes, an empty view while the model waits for
		// its size) and a flush that found nothing to draw leave the next
		// view free to go out at once instead of a frame interval later.
		drew := before < 0 || p.drawn.count() != before
		if drew && !starting {
			last = start
		}
		if drew && shown {
			starting = false
		}
		if drew {
			p.keyed.Store(false)
		}
	}
	for {
		select {
		case <-p.rendererDone:
			timer.Stop()
			return
		case <-p.renderWake:
			wait := frame - time.Since(last)
			if p.keyed.Load() {
				// The first drawing after a key is its echo: at once.
				wait = 0
			}
			if wait <= 0 {
				// Drawn here rather than by a timer firing now.
				if armed {
					timer.Stop() // no stale tick after Stop (Go ≥ 1.23 timers)
				}
				armed = false
				draw()
				continue
			}
			if armed {
				continue
			}
			armed = true
			timer.Reset(wait)
		case <-timer.C:
			armed = false
			draw()
		}
	}
}

// viewShown reports whether the view the renderer holds has content (with
// another renderer than the cursed one: always).
func (p *Program) viewShown() bool {
	r := p.renderer
	if w, ok := r.(*wakingRenderer); ok {
		r = w.renderer
	}
	c, ok := r.(*cursedRenderer)
	if !ok {
		return true
	}
	c.viewMu.Lock()
	defer c.viewMu.Unlock()
	return c.view.Content != ""
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// count is the bytes written so far; -1 for a nil writer (another
// renderer than the cursed one: every flush counts as one that drew).
func (c *countingWriter) count() int64 {
	if c == nil {
		return -1
	}
	return c.n.Load()
}

// wakingRenderer wakes the render loop after every call that can change
// what the next flush writes.
type wakingRenderer struct {
	renderer
	wake func()
}

func (w *wakingRenderer) render(v View) { w.renderer.render(v); w.wake() }
func (w *wakingRenderer) reset()        { w.renderer.reset(); w.wake() }
func (w *wakingRenderer) clearScreen()  { w.renderer.clearScreen(); w.wake() }
func (w *wakingRenderer) resize(width, height int) {
	w.renderer.resize(width, height)
	w.wake()
}

func (w *wakingRenderer) insertAbove(s string) error {
	defer w.wake()
	return w.renderer.insertAbove(s)
}

func (w *wakingRenderer) setSyncdUpdates(v bool) {
	w.renderer.setSyncdUpdates(v)
	w.wake()
}

func (w *wakingRenderer) setWidthMethod(m ansi.Method) {
	w.renderer.setWidthMethod(m)
	w.wake()
}

func (w *wakingRenderer) setColorProfile(cp colorprofile.Profile) {
	w.renderer.setColorProfile(cp)
	w.wake()
}

func (w *wakingRenderer) writeString(s string) (int, error) {
	defer w.wake()
	return w.renderer.writeString(s)
}

func (w *wakingRenderer) onMouse(m MouseMsg) Cmd {
	defer w.wake()
	return w.renderer.onMouse(m)
}
