package tui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/layout"
	"github.com/okstra/cockpit/panes/term"
)

// wheelLines is how far one wheel notch scrolls a pane's history.
const wheelLines = 3

// onKey routes a key press. The prefix is the root's everywhere: the key
// after it is a screen command (onPrefixKey). Otherwise the overlay on top
// takes the key, else the current mode.
func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if a.prefixed {
		a.prefixed = false
		return a.onPrefixKey(msg)
	}
	if cmd, ok := a.keyBeforeLead(msg); ok {
		return cmd
	}
	if key.Matches(msg, a.keys.Prefix) {
		if a.mode == modeInput && a.deadInput(a.focused()) {
			return nil
		}
		a.prefixed = true
		return nil
	}
	if a.top() != nil {
		return a.toTop(msg)
	}
	switch a.mode {
	case modeInput:
		return a.onInputKey(msg)
	case modeScroll:
		return a.onScrollKey(msg)
	}
	return a.onNavKey(msg)
}

// onPrefixKey is the key after the prefix, as tmux's prefix: one command,
// then the screen is back where it was (typing goes on). The prefix again
// sends the prefix to the focused pane's program (and types into it); esc
// stays in navigation, where keys drive the screen without the prefix;
// any navigation key does what it does there, from any mode, over any
// overlay (which it closes; a gate keeps waiting). Other keys do nothing.
func (a *App) onPrefixKey(msg tea.KeyPressMsg) tea.Cmd {
	pv := a.focused()
	wasInput := a.mode == modeInput
	switch {
	case key.Matches(msg, a.keys.Prefix):
		if a.readOnly {
			a.refuse("cannot type into panes")
			return nil
		}
		if pv == nil || pv.log != nil || a.deadInput(pv) {
			return nil
		}
		if pv.lead && a.scriptedLead {
			a.say("the lead is a script: nothing to type there; ? lists the keys")
			return nil
		}
		a.closeOverlays()
		if a.mode == modeScroll {
			a.leaveScroll()
		}
		// The program gets the prefix key itself.
		if op, ok := keyOp(pv.id, msg.Key()); ok {
			a.typeInto(op)
		}
		a.setMode(modeInput)
		return nil
	case key.Matches(msg, a.keys.Prefixed.Navigate):
		a.closeOverlays()
		if a.mode == modeScroll {
			a.leaveScroll()
		}
		a.setMode(modeNav)
		return nil
	case key.Matches(msg, a.keys.Nav.Detach):
		// Prefix d while typing: the next screen types into the pane again.
		a.detachTyping = a.attached && wasInput && pv != nil
		return a.detach()
	}
	cmd, ok := a.navCommand(msg, true)
	if !ok {
		return nil
	}
	return cmd
}

// onInputKey sends every key to the focused pane (the prefix is onKey's).
func (a *App) onInputKey(msg tea.KeyPressMsg) tea.Cmd {
	pv := a.focused()
	if a.deadInput(pv) {
		return nil
	}
	if pv == nil {
		a.setMode(modeNav)
		return nil
	}
	if op, ok := keyOp(pv.id, msg.Key()); ok {
		a.typeInto(op)
	}
	return nil
}

// onNavKey handles navigation mode.
func (a *App) onNavKey(msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := a.navCommand(msg, false)
	return cmd
}

// navCommand does what a navigation key does; ok is false for a key that
// is not one. prefixed says it came after the prefix: the overlays close
// first (the command acts on the screen under them) and scroll mode ends,
// and the mode the screen was in stays (typing goes on after ctrl+b z).
func (a *App) navCommand(msg tea.KeyPressMsg, prefixed bool) (tea.Cmd, bool) {
	km := a.keys.Nav
	if !anyMatch(msg, km.Help, km.Gate, km.Overview, km.Quit, km.Left, km.Right, km.Up, km.Down, km.Next, km.Prev, km.Jump, km.Enter, km.Zoom, km.Scroll, km.ScrollPage, km.Timeline, km.Close, km.Detach) {
		return nil, false
	}
	if prefixed {
		a.closeOverlays()
		if a.mode == modeScroll && !anyMatch(msg, km.Scroll, km.ScrollPage) {
			a.leaveScroll()
		}
	}
	pv := a.focused()
	switch {
	case key.Matches(msg, km.Help):
		return a.push(newHelp(&a.screenEnv)), true
	case key.Matches(msg, km.Gate):
		return a.openGate(""), true
	case key.Matches(msg, km.Overview):
		sel := ""
		if pv != nil {
			sel = pv.dispID
		}
		return a.push(newOverview(&a.screenEnv, sel)), true
	case key.Matches(msg, km.Detach):
		a.detachTyping = false
		return a.detach(), true
	case key.Matches(msg, km.Quit):
		return a.askQuit(), true
	case key.Matches(msg, km.Left):
		a.moveFocus(-1, 0)
	case key.Matches(msg, km.Right):
		a.moveFocus(1, 0)
	case key.Matches(msg, km.Up):
		a.moveFocus(0, -1)
	case key.Matches(msg, km.Down):
		a.moveFocus(0, 1)
	case key.Matches(msg, km.Next):
		a.cycleFocus(1)
	case key.Matches(msg, km.Prev):
		a.cycleFocus(-1)
	case key.Matches(msg, km.Jump):
		if n, err := strconv.Atoi(msg.String()); err == nil && n <= len(a.panes) {
			a.setFocus(n - 1)
		}
	case key.Matches(msg, km.Enter):
		if a.mode == modeInput {
			return nil, true
		}
		if pv != nil && pv.log != nil {
			a.notice = pv.label() + " is read-only: [ scrolls it, x closes it"
			return nil, true
		}
		if cmd, dead := a.enterDeadPane(pv); dead {
			return cmd, true
		}
		if pv != nil && pv.lead && a.scriptedLead {
			a.say("the lead is a script: nothing to type there; ? lists the keys")
			return nil, true
		}
		if a.readOnly {
			a.refuse("cannot type into panes")
		} else if pv != nil {
			a.setMode(modeInput)
		}
	case key.Matches(msg, km.Zoom):
		if pv != nil {
			a.zoom = !a.zoom
			a.relayout()
		}
	case key.Matches(msg, km.Scroll), key.Matches(msg, km.ScrollPage):
		if a.mode == modeScroll {
			return nil, true
		}
		back := 0
		if key.Matches(msg, km.ScrollPage) {
			back = a.focusedHeight()
		}
		a.enterScroll(back, false)
		return a.cmdFetchScroll(), true
	case key.Matches(msg, km.Timeline):
		a.showTimeline = !a.showTimeline
		a.relayout()
	case key.Matches(msg, km.Close):
		if a.readOnly {
			a.refuse("cannot close panes")
		} else {
			return a.askClose(), true
		}
	}
	return nil, true
}

// anyMatch reports whether msg matches one of the bindings.
func anyMatch(msg tea.KeyPressMsg, bs ...key.Binding) bool {
	for _, b := range bs {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// onPaste: the overlay on top takes a paste (the gate's note, the search
// query), else the pane typed into.
func (a *App) onPaste(msg tea.PasteMsg) tea.Cmd {
	if a.top() != nil {
		return a.toTop(msg)
	}
	if a.readOnly {
		a.refuse("cannot paste")
	} else if a.mode == modeInput {
		if pv := a.focused(); pv != nil && !a.deadInput(pv) {
			a.typeInto(paneOp{kind: opPaste, id: pv.id, text: msg.Content})
		}
	}
	return nil
}

// onScrollKey moves through the focused pane's history.
func (a *App) onScrollKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := a.onFindKey(msg); ok {
		return cmd
	}
	km := a.keys.Scroll
	page := a.pageSize()
	switch {
	case key.Matches(msg, km.Exit):
		a.leaveScroll()
		return nil
	case key.Matches(msg, km.LineUp):
		a.scrollBy(1)
	case key.Matches(msg, km.LineDown):
		a.scrollBy(-1)
	case key.Matches(msg, km.PageUp):
		a.scrollBy(page)
	case key.Matches(msg, km.PageDown):
		a.scrollBy(-page)
	case key.Matches(msg, km.HalfUp):
		a.scrollBy(page / 2)
	case key.Matches(msg, km.HalfDown):
		a.scrollBy(-page / 2)
	case key.Matches(msg, km.Top):
		a.scrollBy(1 << 30)
	case key.Matches(msg, km.Bottom):
		a.scrollBy(-(1 << 30))
	default:
		return nil
	}
	return a.cmdFetchScroll()
}

// askQuit: an attached screen asks whether to detach or end the run (the
// dialog says what still waits); a standalone one quits at once when no
// gate waits and no worker pane still runs, else asks first.
func (a *App) askQuit() tea.Cmd {
	if a.ending {
		return nil
	}
	if a.attached {
		c := &confirmOverlay{env: &a.screenEnv, kind: confirmEnd}
		if g := a.gatesWaiting(); g != "" {
			c.waiting = append(c.waiting, a.st.Attention.Render(glyphAttention)+" "+a.st.Prompt.Render(g))
		}
		if n := a.runningWorkers(); n > 0 {
			what := "1 worker is still running"
			if n > 1 {
				what = strconv.Itoa(n) + " workers are still running"
			}
			c.waiting = append(c.waiting, a.st.Running.Render(glyphRunning)+" "+what)
		}
		switch {
		case a.readOnly:
			c.noEnd = "not from a read-only screen"
		case a.actions.EndRun == nil:
			c.noEnd = "not from here, use cockpit stop"
		}
		return a.push(c)
	}
	if a.readOnly {
		// Quitting a standalone screen ends the run (its owner closes the
		// panes).
		a.refuse("cannot quit; the run goes on")
		return nil
	}
	var what []string
	if g := a.gatesWaiting(); g != "" {
		what = append(what, g)
	}
	if n := a.runningWorkers(); n == 1 {
		what = append(what, "1 worker pane is still running")
	} else if n > 1 {
		what = append(what, strconv.Itoa(n)+" worker panes are still running")
	}
	if len(what) == 0 {
		return a.cmdQuit()
	}
	return a.push(&confirmOverlay{env: &a.screenEnv, kind: confirmQuit, text: strings.Join(what, ", ") + " — quit anyway?", keys: "q/y: quit, any other key: stay"})
}

// gatesWaiting names the waiting gates ("gate C-003 is waiting", "3 gates
// are waiting: C-003, C-004, R-001"), or is empty.
func (a *App) gatesWaiting() string {
	gs := a.run.Gates
	switch len(gs) {
	case 0:
		return ""
	case 1:
		return "gate " + gs[0].ID + " is waiting"
	}
	ids := make([]string, 0, 3)
	for _, g := range gs[:min(len(gs), 3)] {
		ids = append(ids, g.ID)
	}
	list := strings.Join(ids, ", ")
	if len(gs) > 3 {
		list += ", …"
	}
	return strconv.Itoa(len(gs)) + " gates are waiting: " + list
}

// askClose asks before closing the focused worker pane; the lead's pane is
// the engine's to close. A worker still running is said to be: closing
// it ends it, and the run records it failed.
func (a *App) askClose() tea.Cmd {
	pv := a.focused()
	switch {
	case pv == nil:
	case pv.lead:
		a.notice = "the lead's pane cannot be closed from the screen"
	case pv.log != nil:
		// A log pane is this screen's own view: nothing runs in it.
		a.onPaneClosed(pv.id, "")
	default:
		text := "close " + pv.label() + " (" + pv.id + ")?"
		if pv.state() == stateRunning && !pv.snap.Exited {
			text = pv.label() + " (" + pv.id + ") is still running: close it? That stops it"
			if pv.hasDisp {
				text += ", and the run records it failed"
			}
		}
		return a.push(&confirmOverlay{env: &a.screenEnv, kind: confirmClose, paneID: pv.id, text: text, keys: "y: close, any other key: keep"})
	}
	return nil
}

// setMode switches mode, telling programs that asked (mode 1004) when they
// gain or lose the keyboard.
func (a *App) setMode(m mode) {
	pv := a.focused()
	if m == modeInput && pv != nil && (pv.log != nil || (pv.lead && a.scriptedLead)) {
		m = modeNav // a log pane has no program to type into, a scripted lead wants none
	}
	if m == a.mode {
		return
	}
	if pv != nil && a.mode == modeInput {
		a.queue(paneOp{kind: opFocus, id: pv.id, in: false})
	}
	if a.mode == modeScroll {
		a.scroll = scrollState{}
	}
	a.mode = m
	if pv != nil && m == modeInput {
		pv.attention = false
		a.queue(paneOp{kind: opFocus, id: pv.id, in: true})
	}
}

// setFocus moves the focus to pane i. Scroll mode ends (it belongs to a
// pane); input mode follows the focus to the new pane.
func (a *App) setFocus(i int) {
	if i < 0 || i >= len(a.panes) || i == a.focus {
		return
	}
	if a.mode == modeScroll {
		a.leaveScroll()
	}
	prev := a.mode
	if prev == modeInput {
		a.setMode(modeNav)
	}
	a.focus = i
	a.panes[i].attention = false
	if prev == modeInput && !a.panes[i].dead() {
		a.setMode(modeInput) // a pane whose program exited takes no typing
	}
	if a.zoom || a.geo.tabs {
		a.relayout()
	}
}

// moveFocus moves the focus to the neighbouring pane in a direction.
func (a *App) moveFocus(dx, dy int) {
	rects := make([]rect, len(a.panes))
	for i, pv := range a.panes {
		rects[i] = pv.rect
	}
	if n := layout.Neighbour(rects, a.focus, dx, dy); n >= 0 {
		a.setFocus(n)
		return
	}
	if a.zoom || a.geo.tabs {
		// Only one pane is shown: left/right and up/down walk the order.
		a.cycleFocus(dx + dy)
	}
}

// cycleFocus moves the focus d panes along the display order, wrapping.
func (a *App) cycleFocus(d int) {
	if n := len(a.panes); n > 0 && d != 0 {
		a.setFocus(((a.focus+d)%n + n) % n)
	}
}

func (a *App) focusedHeight() int {
	if pv := a.focused(); pv != nil {
		return max(pv.rect.Inner().H, 1)
	}
	return 1
}

// onMouse handles the mouse: a click focuses the pane under it (and goes
// to the program too while typing into it, if the program asked for the
// mouse); the wheel scrolls the history, or goes to such a program.
func (a *App) onMouse(msg tea.MouseMsg) tea.Cmd {
	if time.Now().Before(a.mouseQuiet) {
		// The rest of a click that closed an overlay (its release, a
		// double click's second click): not the panes'.
		return nil
	}
	if top := a.top(); top != nil {
		cmd := a.toTop(msg)
		if _, click := msg.(tea.MouseClickMsg); click && a.top() != top {
			a.mouseQuiet = time.Now().Add(doubleClick)
		}
		return cmd
	}
	if cmd, ok := a.onSelectMouse(msg); ok {
		return cmd
	}
	m := msg.Mouse()
	if a.mouseGrab != "" {
		switch msg.(type) {
		case tea.MouseMotionMsg, tea.MouseReleaseMsg:
			a.grabbedMouse(msg)
			return nil
		}
		// A press or a wheel notch without a release in between: the
		// release went missing (the terminal lost it); start over.
		a.mouseGrab = ""
	}
	i, pv := a.paneAt(m.X, m.Y)
	if pv == nil {
		if _, ok := msg.(tea.MouseClickMsg); ok && a.geo.tabs && m.Y == a.geo.tabRow.Y {
			a.clickTab(m.X)
		}
		return nil
	}
	switch msg.(type) {
	case tea.MouseClickMsg:
		a.setFocus(i)
		if a.mode == modeInput && a.forwardMouse(pv, m, panes.MousePress, false) {
			a.mouseGrab = pv.id
		}
	case tea.MouseReleaseMsg:
		if a.mode == modeInput && pv == a.focused() {
			a.forwardMouse(pv, m, panes.MouseRelease, false)
		}
	case tea.MouseMotionMsg:
		if a.mode == modeInput && pv == a.focused() {
			a.forwardMouse(pv, m, panes.MouseMotion, false)
		}
	case tea.MouseWheelMsg:
		if a.mode == modeInput && pv == a.focused() && pv.snap.Modes.Mouse != term.MouseNone {
			a.forwardMouse(pv, m, panes.MousePress, false)
			return nil
		}
		return a.wheelScroll(i, m.Button)
	}
	return nil
}

// wheelScroll scrolls pane i's history by a wheel notch, entering scroll
// mode on it; scrolling back to the bottom leaves scroll mode again.
func (a *App) wheelScroll(i int, b tea.MouseButton) tea.Cmd {
	up := b == tea.MouseWheelUp
	if !up && b != tea.MouseWheelDown {
		return nil
	}
	a.setFocus(i)
	if a.mode != modeScroll {
		if !up {
			return nil
		}
		a.enterScroll(wheelLines, true)
		return a.cmdFetchScroll()
	}
	if up {
		a.scrollBy(wheelLines)
	} else {
		a.scrollBy(-wheelLines)
		if a.scroll.back == 0 && a.scroll.wheel {
			a.leaveScroll()
			return nil
		}
	}
	return a.cmdFetchScroll()
}

// grabbedMouse sends a drag or release to the pane that got the press,
// wherever the pointer is: xterm keeps reporting to the window that has the
// button down, with the position clamped to its cells, so a program
// selecting text or dragging a divider sees the drag end.
func (a *App) grabbedMouse(msg tea.MouseMsg) {
	pv := a.byID[a.mouseGrab]
	action := panes.MouseMotion
	if _, ok := msg.(tea.MouseReleaseMsg); ok {
		action = panes.MouseRelease
		a.mouseGrab = ""
	}
	if pv == nil || a.mode != modeInput {
		a.mouseGrab = ""
		return
	}
	a.forwardMouse(pv, msg.Mouse(), action, true)
}

// forwardMouse queues a mouse event for pv's program in its own cells and
// reports whether it did; events on the title bar are not the program's.
// With clamp, a position outside the cells is moved to the nearest cell.
func (a *App) forwardMouse(pv *paneView, m tea.Mouse, action panes.MouseAction, clamp bool) bool {
	in := pv.rect.Inner()
	if pv.hasSnap && pv.snap.Cols > 0 && pv.snap.Rows > 0 {
		// Only the pane's own cells: with several screens it may be
		// smaller than its place here (drawn padded; SizeArbiter).
		in.W, in.H = min(in.W, pv.snap.Cols), min(in.H, pv.snap.Rows)
	}
	if pv.snap.Modes.Mouse == term.MouseNone || in.W <= 0 || in.H <= 0 {
		return false
	}
	if clamp {
		m.X = min(max(m.X, in.X), in.X+in.W-1)
		m.Y = min(max(m.Y, in.Y), in.Y+in.H-1)
	} else if !in.Contains(m.X, m.Y) {
		return false
	}
	ev := panes.Mouse{X: m.X - in.X, Y: m.Y - in.Y, Button: mouseButton(m.Button), Action: action}
	if m.Mod.Contains(tea.ModShift) {
		ev.Mod |= panes.ModShift
	}
	if m.Mod.Contains(tea.ModAlt) {
		ev.Mod |= panes.ModAlt
	}
	if m.Mod.Contains(tea.ModCtrl) {
		ev.Mod |= panes.ModCtrl
	}
	a.queue(paneOp{kind: opMouse, id: pv.id, mouse: ev})
	return true
}

func mouseButton(b tea.MouseButton) panes.MouseButton {
	switch b {
	case tea.MouseLeft:
		return panes.MouseLeft
	case tea.MouseMiddle:
		return panes.MouseMiddle
	case tea.MouseRight:
		return panes.MouseRight
	case tea.MouseWheelUp:
		return panes.MouseWheelUp
	case tea.MouseWheelDown:
		return panes.MouseWheelDown
	case tea.MouseWheelLeft:
		return panes.MouseWheelLeft
	case tea.MouseWheelRight:
		return panes.MouseWheelRight
	case tea.MouseBackward:
		return panes.MouseBackward
	case tea.MouseForward:
		return panes.MouseForward
	}
	return panes.MouseNoButton
}

// paneAt returns the shown pane under (x, y).
func (a *App) paneAt(x, y int) (int, *paneView) {
	for i, pv := range a.panes {
		if pv.rect.Contains(x, y) {
			return i, pv
		}
	}
	return -1, nil
}

// clickTab focuses the pane whose tab is under column x.
func (a *App) clickTab(x int) {
	_, spans := a.tabLayout(a.geo.tabRow.W)
	for _, sp := range spans {
		if x-a.geo.tabRow.X >= sp.x0 && x-a.geo.tabRow.X < sp.x1 {
			a.setFocus(sp.i)
			return
		}
	}
}
