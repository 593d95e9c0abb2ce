package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// confirmOverlay is a question before something that cannot be taken
// back: quitting a standalone screen and closing a worker pane ask on the
// status line (y, or q again for quit; any other key keeps things as they
// are); an attached screen's q opens a dialog: detach, or end the run? It
// says what still waits, as of when it opened.
type confirmOverlay struct {
	env    *screenEnv
	kind   confirmKind
	text   string // the question (quit, close)
	keys   string // its answers, "y: close, any other key: keep"
	paneID string // confirmClose: the pane
	// confirmEnd: what still waits (styled lines), and why e cannot end
	// the run ("" when it can).
	waiting []string
	noEnd   string
}

type confirmKind uint8

const (
	confirmQuit confirmKind = iota + 1
	confirmClose
	confirmEnd // attached: detach, or end the run? (a dialog, not the status line)
)

// HandleMsg answers the question. Any key other than a yes keeps things
// as they are, so a stray key never quits or closes anything.
func (c *confirmOverlay) HandleMsg(msg tea.Msg) action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil // the mouse waits for the answer
	}
	ck := c.env.keys.Confirm
	switch c.kind {
	case confirmEnd:
		switch {
		case key.Matches(k, ck.Detach):
			return actions{actClose{}, actDetach{}}
		case key.Matches(k, ck.EndRun):
			return actions{actClose{}, actEndRun{}}
		}
	case confirmQuit:
		if key.Matches(k, ck.Yes) || key.Matches(k, c.env.keys.Nav.Quit) {
			return actions{actClose{}, actQuit{}}
		}
	case confirmClose:
		if key.Matches(k, ck.Yes) {
			return actions{actClose{}, actClosePane{c.paneID}}
		}
	}
	return actClose{}
}

// Hint pins the answers on the status line while a dialog asks (the q
// dialog, a question too long for the status line).
func (c *confirmOverlay) Hint() string {
	ck := c.env.keys.Confirm
	switch {
	case c.kind == confirmEnd && c.noEnd != "":
		return ck.Detach.Help().Key + ": detach · esc: stay"
	case c.kind == confirmEnd:
		return ck.Detach.Help().Key + ": detach · " + ck.EndRun.Help().Key + ": end the run · esc: stay"
	case !c.onOneLine(c.env.width):
		return c.keys
	}
	return ""
}

func (c *confirmOverlay) Badge() string { return "CONFIRM" }

// line is the question with its answers, as the status line says it.
func (c *confirmOverlay) line() string { return c.text + " (" + c.keys + ")" }

// onOneLine says the question and its answers fit the status line whole
// (tmux's confirm-before); otherwise a box asks it, wrapped, and the
// status line pins the answers: neither is ever cut (issue 17, finding 5).
func (c *confirmOverlay) onOneLine(w int) bool {
	return c.kind != confirmEnd && 1+ansi.StringWidth(c.line()) <= w
}

// StatusLine is the question on the status line when it fits there.
func (c *confirmOverlay) StatusLine(w int) string {
	if !c.onOneLine(w) {
		return ""
	}
	return fit(" "+c.env.st.Prompt.Render(c.line()), w)
}

// Draw draws the q dialog, and a question too long for the status line.
func (c *confirmOverlay) Draw(rows []string) {
	switch {
	case c.kind == confirmEnd:
		drawBox(rows, c.env.width, c.endBox())
	case !c.onOneLine(c.env.width):
		drawBox(rows, c.env.width, c.questionBox())
	}
}

// questionBox is a quit or close question wrapped in a box, its answers
// on their own line.
func (c *confirmOverlay) questionBox() []string {
	st := c.env.st
	inner := min(max(c.env.width-4, 10), 64)
	var lines []string
	for _, l := range wrapWords(c.text, inner, 0, 0) {
		lines = append(lines, st.Prompt.Render(fitCut(l, inner)))
	}
	for _, l := range wrapWords(c.keys, inner, 0, 0) {
		lines = append(lines, st.HelpKey.Render(fitCut(l, inner)))
	}
	return strings.Split(st.GateBox.Render(strings.Join(lines, "\n")), "\n")
}

// endBox is the attached screen's q dialog: detach, or end the run?
func (c *confirmOverlay) endBox() []string {
	env := c.env
	st := env.st
	ck := env.keys.Confirm
	lines := []string{st.HelpTitle.Render("Detach, or end the run?"), ""}
	lines = append(lines, c.waiting...)
	if len(c.waiting) == 0 {
		lines = append(lines, st.Hint.Render("no gate is waiting and no worker is running"))
	}
	lines = append(lines, "")
	keyW := 6
	opt := func(keys, desc string) string {
		return st.HelpKey.Render(keys+blank(keyW-ansi.StringWidth(keys))) + " " + desc
	}
	lines = append(lines, opt(ck.Detach.Help().Key, "detach: the run goes on; cockpit attach returns"))
	if c.noEnd != "" {
		lines = append(lines, opt(ck.EndRun.Help().Key, st.Hint.Render("end the run: "+c.noEnd)))
	} else {
		lines = append(lines, opt(ck.EndRun.Help().Key, "end the run: every pane is closed"))
	}
	lines = append(lines, opt("esc", "stay"))
	if len(lines)+2 > env.height {
		// A short terminal: the keys matter more than the spacing.
		lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	}
	inner := 0
	for _, l := range lines {
		inner = max(inner, ansi.StringWidth(l))
	}
	inner = min(inner, max(env.width-4, 10))
	for i := range lines {
		lines[i] = fitCut(lines[i], inner)
	}
	return strings.Split(st.GateBox.Render(strings.Join(lines, "\n")), "\n")
}
