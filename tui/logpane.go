package tui

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/okstra/cockpit/panes"
	"github.com/okstra/cockpit/panes/term"
	"github.com/okstra/cockpit/state"
)

// maxLogReplay bounds how much of a log a log pane replays: its last 8 MiB
// (a worker's whole output is usually far less; what is left out is said
// on the first line).
const maxLogReplay = 8 << 20

// logPane is a finished worker's output replayed from its `<prompt>.log`
// (the wrapper tees everything the CLI printed there) through a terminal
// emulator at the pane's size, so a reclaimed worker's failure output can
// still be read. It is this screen's own pane: no program, no Manager;
// it cannot be typed into, scrolls like any pane, and x closes it. The
// dispatch's record (status, exit code, reason) is added at the end, as the
// wrapper's own closing note is written to the pane, not to the log.
type logPane struct {
	path    string // absolute; "" when it could not be resolved
	rel     string // as the dispatch records it
	resErr  error  // why path could not be resolved
	trailer string
	// lastScreen is the worker pane's last screen as this screen drew it
	// before the pane closed, shown when there is no log (a wrapper that
	// refused its invocation writes none).
	lastScreen []string

	// Update's side: the size of the replay shown, and whether one is
	// being made.
	cols, rows int
	busy       bool

	mu   sync.Mutex
	data []byte        // the bytes replayed, read once
	emu  term.Emulator // the last replay, for scrolling
}

// logReplayedMsg carries a log pane's replay at a size.
type logReplayedMsg struct {
	id         string
	cols, rows int
	snap       panes.Snapshot
}

// openLogPane adds a read-only pane replaying dispatch d's log and
// returns it; the replay itself runs in a command (cmdLogs) once the
// layout gives the pane a size.
func (a *App) openLogPane(d state.Dispatch) (*paneView, error) {
	rel := d.LogPath
	if rel == "" && d.PromptPath != "" {
		rel = state.LogPath(d.PromptPath)
	}
	if rel == "" {
		return nil, errors.New(dispatchLabel(d) + ": no log recorded (the dispatch has no prompt)")
	}
	lp := &logPane{rel: rel, trailer: logTrailer(d), lastScreen: a.lastScreens[d.DispatchID]}
	lp.path, lp.resErr = a.resolvePath(rel)
	a.logSeq++
	pv := &paneView{
		id:         "log-" + strconv.Itoa(a.logSeq),
		title:      dispatchLabel(d),
		dispatchID: d.DispatchID,
		log:        lp,
	}
	pv.snap.Exited, pv.hasSnap = true, true
	if d.ExitCode != nil {
		pv.snap.Status.Code = *d.ExitCode
	}
	a.addPaneView(pv)
	return pv, nil
}

// resolve turns a run-file path into an absolute one under the project
// root (Config.ProjectRoot); without a root only absolute paths resolve.
func (a *App) resolvePath(rel string) (string, error) {
	if a.projectRoot == "" {
		if len(rel) > 0 && rel[0] == '/' {
			return rel, nil
		}
		return "", fmt.Errorf("%s: the screen does not know the project root", rel)
	}
	root, err := state.OpenRoot(a.projectRoot)
	if err != nil {
		return "", err
	}
	return root.Resolve(rel, rel)
}

// logTrailer is the dispatch's record, shown after its log.
func logTrailer(d state.Dispatch) string {
	return "\r\n\x1b[0m\x1b[2m[cockpit: " + exitReason(d) + "]\x1b[0m\r\n"
}

// cmdLogs replays each log pane whose shown size is not the one of its
// last replay, one replay per pane at a time (the next one starts when it
// is done, if the size changed meanwhile).
func (a *App) cmdLogs() tea.Cmd {
	var cmds []tea.Cmd
	for _, pv := range a.panes {
		lp := pv.log
		in := pv.rect.Inner()
		if lp == nil || lp.busy || in.W <= 0 || in.H <= 0 || (in.W == lp.cols && in.H == lp.rows) {
			continue
		}
		lp.busy = true
		id, cols, rows := pv.id, in.W, in.H
		cmds = append(cmds, func() tea.Msg {
			return logReplayedMsg{id: id, cols: cols, rows: rows, snap: lp.replay(cols, rows)}
		})
	}
	return tea.Batch(cmds...)
}

// onLogReplayed shows a replay.
func (a *App) onLogReplayed(m logReplayedMsg) {
	pv := a.byID[m.id]
	if pv == nil || pv.log == nil {
		return
	}
	pv.log.busy = false
	pv.log.cols, pv.log.rows = m.cols, m.rows
	m.snap.Exited, m.snap.Status = true, pv.snap.Status
	prev := pv.snap
	pv.setSnap(m.snap)
	if a.mode == modeScroll && a.scroll.id == pv.id {
		a.followScroll(pv, prev)
	}
}

// replay feeds the log to a fresh emulator of cols×rows and returns its
// screen. It reads the file the first time.
func (lp *logPane) replay(cols, rows int) panes.Snapshot {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.data == nil {
		lp.data = lp.load()
	}
	emu := panes.DefaultEmulator(cols, rows)
	_, _ = emu.Write(lp.data)
	lp.emu = emu
	snap := panes.Snapshot{Cols: cols, Rows: rows, Lines: make([]string, rows), ScrollbackLen: emu.ScrollbackLen(), ScrollbackDropped: emu.ScrollbackDropped()}
	for r := range rows {
		snap.Lines[r] = string(emu.AppendLine(nil, r, true))
	}
	return snap
}

// load reads what the pane replays: the log's last maxLogReplay bytes (or
// why there is none), then the dispatch's record.
func (lp *logPane) load() []byte {
	note := func(s string) []byte { return []byte("\x1b[2m[cockpit: " + s + "]\x1b[0m\r\n") }
	var out []byte
	if lp.path == "" {
		out = note("no log: " + lp.resErr.Error())
	} else if f, err := os.Open(lp.path); err != nil {
		out = note("no log at " + lp.rel + ": " + pathErr(err))
		if len(lp.lastScreen) > 0 {
			out = append(out, note("the pane's last screen:")...)
			for _, l := range lp.lastScreen {
				out = append(out, l+"\x1b[m\r\n"...)
			}
		}
	} else {
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Size() > maxLogReplay {
			out = note(fmt.Sprintf("the first %.1f MB of %s are not shown", float64(st.Size()-maxLogReplay)/1e6, lp.rel))
			_, _ = f.Seek(st.Size()-maxLogReplay, io.SeekStart)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxLogReplay))
		out = append(out, data...)
		if err != nil {
			out = append(out, note("reading "+lp.rel+": "+err.Error())...)
		}
	}
	return append(out, lp.trailer...)
}

// textPane is what scroll mode, search and copy read of a pane: a
// program's pane (*panes.Pane) or a log pane.
type textPane interface {
	View(back, n int, styled bool) panes.View
	Search(query string) []term.Match
	Text(from, to term.Pos, lines bool) string
}

// textOf returns how a command reaches pane pv's text; nil when it cannot
// (no Manager).
func (a *App) textOf(pv *paneView) func() (textPane, bool) {
	if lp := pv.log; lp != nil {
		return func() (textPane, bool) { return lp, true }
	}
	if a.mgr == nil {
		return nil
	}
	mgr, id := a.mgr, pv.id
	return func() (textPane, bool) {
		p, ok := mgr.Get(id)
		if !ok {
			return nil, false
		}
		return p, true
	}
}

// View is panes.Pane.View on the replay.
func (lp *logPane) View(back, n int, styled bool) panes.View {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.emu == nil {
		return panes.View{}
	}
	e := lp.emu
	sb := e.ScrollbackLen()
	_, rows := e.Size()
	end := sb + rows - min(max(back, 0), sb)
	start := max(end-max(n, 0), 0)
	v := panes.View{
		Lines:             make([]string, 0, end-start),
		First:             int(e.ScrollbackDropped()) + start,
		End:               int(e.ScrollbackDropped()) + sb + rows,
		ScrollbackLen:     sb,
		ScrollbackDropped: e.ScrollbackDropped(),
	}
	for i := start; i < end; i++ {
		if i < sb {
			v.Lines = append(v.Lines, string(e.AppendScrollback(nil, i, styled)))
		} else {
			v.Lines = append(v.Lines, string(e.AppendLine(nil, i-sb, styled)))
		}
	}
	return v
}

// Search is panes.Pane.Search on the replay (its emulator's term.Finder).
func (lp *logPane) Search(query string) []term.Match {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if f, ok := lp.emu.(term.Finder); ok && query != "" {
		return f.Search(nil, query)
	}
	return nil
}

// Text is panes.Pane.Text on the replay.
func (lp *logPane) Text(from, to term.Pos, lines bool) string {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if f, ok := lp.emu.(term.Finder); ok {
		return f.Text(from, to, lines)
	}
	return ""
}

// pathErr is what went wrong with a file, without repeating its path.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// maxLastScreens bounds the closed panes' last screens kept for log panes.
const maxLastScreens = 64

// keepLastScreen keeps a closing worker pane's last screen by its dispatch,
// for a log pane of it when the dispatch left no log.
func (a *App) keepLastScreen(pv *paneView) {
	if pv.log != nil || pv.dispID == "" || !pv.hasSnap || len(pv.snap.Lines) == 0 {
		return
	}
	if a.lastScreens == nil {
		a.lastScreens = map[string][]string{}
	}
	if len(a.lastScreens) >= maxLastScreens {
		for k := range a.lastScreens {
			delete(a.lastScreens, k)
			break
		}
	}
	a.lastScreens[pv.dispID] = pv.snap.Lines
}
