package wizard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/okstra/cockpit/workers/setup"
)

// ErrAborted is returned when the user quits the wizard before finishing.
var ErrAborted = errors.New("wizard cancelled; nothing was set up")

// Model is the interactive wizard: one huh form per step inside this model,
// which owns the step order, going back, the errors, the frame and the final
// summary. It runs in the alternate screen and follows resizes.
type Model struct {
	s       *setup.Session
	st      Styles
	step    setup.StepID
	history []setup.StepID
	form    *huh.Form
	bind    func()
	errMsg  string
	refused setup.StepID // the step errMsg is about
	width   int
	height  int
	formH   int // the height the form was last given
	// scroll is the first summary line shown at the confirm step, when
	// the summary is taller than the terminal (↑/↓, pgup/pgdn, home/end).
	scroll int
	// cut: the confirm step's summary does not fit (the keys line offers
	// scrolling).
	cut   bool
	formW int // the width the form was built for (its descriptions are wrapped to it)
	// toRoster: the executor step's answer was "another provider", so the
	// roster step comes next.
	toRoster bool
	// pending: a key submitted the step's form and huh's answer to it
	// (its next-field and next-group messages, which come back through
	// the program) is on its way; keys typed meanwhile wait in queued for
	// the field they were typed at, instead of reaching the field being
	// left (a fast typist's enter would answer the next step too).
	pending      bool
	pendingField huh.Field
	queued       []tea.Msg
	done         bool
	aborted      bool
	outcome      *setup.Outcome
}

// New builds the interactive wizard for opts (ProjectRoot, Lang, NoColor,
// Catalog); AnswersFile and JSON are for the caller.
func New(opts Options) (*Model, error) {
	s, err := setup.Load(opts.Options)
	if err != nil {
		return nil, err
	}
	noColor := opts.NoColor || opts.Env("NO_COLOR") != ""
	m := &Model{s: s, st: NewStyles(DefaultPalette(), noColor), width: 80, height: 24}
	m.enter(setup.StepTaskKey)
	return m, nil
}

// Session is the session the model drives.
func (m *Model) Session() *setup.Session { return m.s }

// Step is the step on screen.
func (m *Model) Step() setup.StepID { return m.step }

// Err is the refusal on screen, or "".
func (m *Model) Err() string { return m.errMsg }

// Outcome is the result once the user finished: the outcome, ErrAborted
// when they quit, or (nil, nil) while the wizard is still running.
func (m *Model) Outcome() (*setup.Outcome, error) {
	if m.aborted {
		return nil, ErrAborted
	}
	return m.outcome, nil
}

// Init starts the first form. The size comes by itself: bubbletea sends
// it at start on a terminal (RunTUI needs one).
func (m *Model) Init() tea.Cmd {
	return startForm(m.form)
}

// sizeRequest is the message of tea.RequestWindowSize.
var sizeRequest = tea.RequestWindowSize()

// startForm is form.Init without the window size request huh's Init ends
// with. The model gives the form its size itself (build, Update), and
// bubbletea answers each request with a size check on a goroutine of its
// own that writes the program's size unguarded: two requests in flight at
// once — a form's, delayed behind its cursor blink in huh's sequence, and
// the next step's — are a data race that ends a race-detector build.
func startForm(form *huh.Form) tea.Cmd {
	return dropSizeRequests(form.Init())
}

// dropSizeRequests runs cmd and drops a size request among the messages
// it yields, looking into batches and sequences.
func dropSizeRequests(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		if msg == sizeRequest {
			return nil
		}
		if b, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(b))
			for i, c := range b {
				out[i] = dropSizeRequests(c)
			}
			return out
		}
		// tea.Sequence's message is an unexported slice of commands;
		// the program runs them in order, and so does the copy.
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
			cmds := make([]tea.Cmd, v.Len())
			for i := range cmds {
				cmds[i] = dropSizeRequests(v.Index(i).Interface().(tea.Cmd))
			}
			if seq := tea.Sequence(cmds...); seq != nil {
				return seq()
			}
			return nil
		}
		return msg
	}
}

// formSize is the room the form gets inside the frame.
func (m *Model) formSize() (int, int) {
	w := min(max(m.width-4, 20), 100)
	h := max(m.height-9, 5)
	return w, h
}

// enter shows step: its default answer, unless it has one, and a new form.
func (m *Model) enter(step setup.StepID) tea.Cmd {
	m.step = step
	if step == setup.StepConfirm {
		m.form, m.bind, m.scroll = nil, nil, 0
		return nil
	}
	m.s.EnsureDefault(step)
	return m.build(step)
}

// build makes the form of step from the answers as they stand and sizes it.
func (m *Model) build(step setup.StepID) tea.Cmd {
	m.form, m.bind = m.buildForm(step)
	m.form.WithShowHelp(false).WithShowErrors(false).WithTheme(m.st.HuhTheme()).WithKeyMap(keyMap())
	w, h := m.formSize()
	m.formH, m.formW = h, w
	m.form.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return startForm(m.form)
}

// next is the step after the current one, given the answers so far.
func (m *Model) next() setup.StepID {
	steps := m.s.Steps()
	i := slices.Index(steps, m.step)
	if i < 0 || i+1 >= len(steps) {
		return setup.StepConfirm
	}
	return steps[i+1]
}

// Update handles a message: keys of its own (ctrl+c, esc), the size, and
// everything else through the step's form.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.done || m.aborted {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.form == nil {
			return m, nil
		}
		w, h := m.formSize()
		if h > m.formH || w != m.formW {
			// huh fixes a field's height the first time the form is
			// shorter than it, and never grows it again: a taller
			// terminal gets a new form holding the answer in progress.
			// So does another width: the descriptions are wrapped to it.
			m.bind()
			return m, m.build(m.step)
		}
		m.formH = h
		_, cmd := m.form.Update(tea.WindowSizeMsg{Width: w, Height: h})
		return m, cmd
	case tea.KeyPressMsg:
		if msg.String() != "ctrl+c" && m.pending {
			m.queued = append(m.queued, msg)
			return m, nil
		}
		switch msg.String() {
		case "ctrl+c":
			m.aborted = true
			return m, tea.Quit
		case "esc":
			if !m.filtering() {
				return m, m.back()
			}
		case "up", "k", "down", "j", "pgup", "pgdown", "home", "end":
			if m.step == setup.StepConfirm {
				page := max(m.height-8, 1)
				switch msg.String() {
				case "up", "k":
					m.scroll--
				case "down", "j":
					m.scroll++
				case "pgup":
					m.scroll -= page
				case "pgdown":
					m.scroll += page
				case "home":
					m.scroll = 0
				case "end":
					m.scroll = 1 << 20
				}
				m.scroll = max(m.scroll, 0) // render caps it at the end
				return m, nil
			}
		case "enter":
			if m.step == setup.StepConfirm {
				m.outcome = m.s.Outcome()
				m.done = true
				return m, tea.Quit
			}
		}
	}
	if _, ok := msg.(tea.PasteMsg); ok && m.pending {
		m.queued = append(m.queued, msg)
		return m, nil
	}
	if m.form == nil {
		return m, nil
	}
	submits := false
	if k, ok := msg.(tea.KeyPressMsg); ok {
		s := k.String()
		submits = (s == "enter" || (s == "tab" && !isInput(m.step))) && !m.filtering()
	}
	field := m.form.GetFocusedField()
	_, cmd := m.form.Update(msg)
	switch m.form.State {
	case huh.StateAborted:
		m.aborted = true
		return m, tea.Quit
	case huh.StateCompleted:
		m.pending = false
		return m, tea.Batch(m.complete(), m.replay())
	}
	if submits && cmd != nil {
		m.pending, m.pendingField = true, field
	} else if m.pending && m.form.GetFocusedField() != m.pendingField {
		// The next field of a step with several (the role models).
		m.pending = false
		return m, tea.Batch(cmd, m.replay())
	}
	return m, cmd
}

// replay feeds the keys typed while an answer was on its way to the step
// now showing, until one of them submits again.
func (m *Model) replay() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.queued) > 0 && !m.pending && !m.done && !m.aborted {
		msg := m.queued[0]
		m.queued = m.queued[1:]
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// isInput reports whether step is a text input, where tab takes a
// suggestion instead of answering.
func isInput(step setup.StepID) bool {
	switch step {
	case setup.StepTaskKey, setup.StepTaskGroup, setup.StepRelatedInput, setup.StepDirective, setup.StepRoleCount:
		return true
	}
	return false
}

// complete takes the finished form's answer: on to the next step, or the
// same step again with the refusal shown.
func (m *Model) complete() tea.Cmd {
	m.bind()
	if m.toRoster {
		// "Another provider" at the executor step: back to the roster,
		// the answers kept.
		m.toRoster = false
		m.errMsg = ""
		for len(m.history) > 0 && m.history[len(m.history)-1] != setup.StepWorkers {
			m.history = m.history[:len(m.history)-1]
		}
		if len(m.history) > 0 {
			m.history = m.history[:len(m.history)-1]
		}
		return m.enter(setup.StepWorkers)
	}
	// The user answered, even if the answer is refused: showing the step
	// again must keep it, not put the default back.
	m.s.MarkAnswered(m.step)
	if err := m.s.Apply(m.step); err != nil {
		m.errMsg, m.refused = err.Error(), m.step
		var se *setup.StepError
		if errors.As(err, &se) {
			m.errMsg, m.refused = se.FormMsg(), se.Step
		}
		return m.enter(m.step)
	}
	m.errMsg = ""
	m.history = append(m.history, m.step)
	return m.enter(m.next())
}

// back returns to the previous step, its answer kept.
func (m *Model) back() tea.Cmd {
	if len(m.history) == 0 {
		return nil
	}
	prev := m.history[len(m.history)-1]
	m.history = m.history[:len(m.history)-1]
	m.errMsg = ""
	return m.enter(prev)
}

// filtering reports whether the focused select is filtering, where esc ends
// the filter instead of going back.
func (m *Model) filtering() bool {
	if m.form == nil {
		return false
	}
	if f, ok := m.form.GetFocusedField().(interface{ GetFiltering() bool }); ok {
		return f.GetFiltering()
	}
	return false
}

// View draws the frame: title and step counter, the answers so far, the
// form (or the summary), the refusal and the keys.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = m.s.Texts.T("title")
	return v
}

func (m *Model) render() string {
	t := m.s.Texts
	width := max(m.width, 20)
	left := m.st.Title.Render(t.T("title")) + m.st.Muted.Render(" · "+t.T("subtitle"))
	// The numbers of docs/WIZARD.md: the total is known from the start.
	right := m.st.Counter.Render(t.T("step_counter", "n", setup.StepNumber(m.step), "total", strconv.Itoa(setup.TotalSteps)))
	// A narrow terminal drops the subtitle, then the counter.
	if lipgloss.Width(left)+lipgloss.Width(right)+3 > width {
		left = m.st.Title.Render(t.T("title"))
	}
	if lipgloss.Width(left)+lipgloss.Width(right)+3 > width {
		right = ""
	}
	gap := max(width-2-lipgloss.Width(left)-lipgloss.Width(right), 1)
	head := []string{
		" " + left + strings.Repeat(" ", gap) + right,
		" " + m.st.Rule.Render(strings.Repeat("─", width-2)),
	}
	if crumbs := m.crumbs(); crumbs != "" {
		head = append(head, " "+m.st.Crumb.Render(truncate(crumbs, width-2)))
	}
	head = append(head, "")

	var body string
	if m.step == setup.StepConfirm {
		head := m.st.Label.Render(t.T("steps.confirm.title")) + "\n" +
			m.st.Muted.Render(t.T("steps.confirm.description"))
		head = lipgloss.NewStyle().Width(width - 2).Render(head)
		// The summary wraps its values at spaces itself (a model name is
		// never split); a word still too long is cut with ….
		sum := strings.Split(strings.TrimRight(setup.Summary(t, m.s.Outcome(), m.st.summary(), width-2), "\n"), "\n")
		for i, l := range sum {
			if displayWidth(l) > width-2 {
				sum[i] = ansi.Truncate(l, width-2, "…")
			}
		}
		body = head + "\n\n" + strings.Join(sum, "\n")
	} else {
		body = m.form.View()
	}
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")

	var foot []string
	if m.errMsg != "" {
		foot = append(foot, "")
		// The step's title says what the refusal is about; the message
		// itself is the same one --answers prints after the member name.
		text := "✗ " + t.T("steps."+string(m.refused)+".title", "role", setup.PhaseRole(m.s.A.TaskType)) + ": " + m.errMsg
		msg := lipgloss.NewStyle().Width(width - 2).Render(m.st.Error.Render(text))
		for _, l := range strings.Split(msg, "\n") {
			foot = append(foot, " "+l)
		}
	}
	foot = append(foot, "", " "+m.st.Help.Render(truncate(m.helpLine(), width-2)))

	// A terminal too short for the whole body keeps the frame and cuts
	// the body, marking the cut; the summary scrolls instead, a line
	// saying where it is and that more is above or below.
	m.cut = false
	if room := m.height - len(head) - len(foot); len(lines) > room && room > 1 {
		if m.step == setup.StepConfirm {
			m.cut = true
			m.scroll = min(m.scroll, len(lines)-(room-1))
			end := m.scroll + room - 1
			pos := fmt.Sprintf("%s %d–%d/%d", m.s.Texts.T("help.scroll"), m.scroll+1, end, len(lines))
			lines = append(lines[m.scroll:end:end], m.st.Muted.Render(truncate(pos, width-2)))
			// The keys line says how to scroll (rebuilt below).
			foot[len(foot)-1] = " " + m.st.Help.Render(truncate(m.helpLine(), width-2))
		} else {
			lines = append(lines[:room-1], m.st.Muted.Render("…"))
		}
	}
	var b strings.Builder
	for _, l := range head {
		b.WriteString(l + "\n")
	}
	for _, l := range lines {
		b.WriteString(" " + l + "\n")
	}
	b.WriteString(strings.Join(foot, "\n"))
	return b.String()
}

// crumbs is one line of the answers given so far.
func (m *Model) crumbs() string {
	a := m.s.A
	var parts []string
	for _, id := range m.history {
		switch id {
		case setup.StepTaskKey:
			parts = append(parts, a.TaskKey)
		case setup.StepTaskGroup:
			if a.TaskGroup != "" {
				parts = append(parts, a.TaskGroup)
			}
		case setup.StepTaskType:
			parts = append(parts, a.TaskType)
		case setup.StepWorkers:
			if len(a.Workers) > 0 {
				parts = append(parts, strings.Join(a.Workers, "+"))
			}
		case setup.StepExecutor:
			parts = append(parts, "executor "+a.Executor)
		}
	}
	return strings.Join(parts, " · ")
}

func (m *Model) helpLine() string {
	t := m.s.Texts
	var keys []string
	switch m.step {
	case setup.StepConfirm:
		keys = append(keys, t.T("help.confirm"))
		if m.cut {
			keys = append(keys, t.T("help.scroll"))
		}
	case setup.StepTaskKey, setup.StepTaskGroup:
		keys = append(keys, t.T("help.suggest")) // known keys and groups
	case setup.StepRelatedInput, setup.StepDirective, setup.StepRoleCount:
		keys = append(keys, t.T("help.input"))
	case setup.StepWorkers:
		keys = append(keys, t.T("help.multi"))
	default:
		keys = append(keys, t.T("help.select"))
	}
	if len(m.history) > 0 {
		keys = append(keys, t.T("help.back"))
	}
	keys = append(keys, t.T("help.quit"))
	return strings.Join(keys, " · ")
}

func truncate(s string, width int) string {
	if displayWidth(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && displayWidth(string(r))+1 > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// RunTUI runs the interactive wizard on in and out (a terminal) and returns
// the outcome, or ErrAborted.
func RunTUI(opts Options, in io.Reader, out io.Writer) (*setup.Outcome, error) {
	m, err := New(opts)
	if err != nil {
		return nil, err
	}
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	parent := opts.Ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if f, ok := in.(*os.File); ok {
		stop, err := watchHangUp(f, cancel)
		if err == nil {
			defer stop()
		}
	}
	final, err := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx)).Run()
	if err != nil {
		if errors.Is(err, tea.ErrInterrupted) {
			return nil, ErrAborted
		}
		// The terminal went (its hang-up cancelled the command's
		// context, or the terminal itself hung up): end, as a shell does,
		// instead of running on a pty nobody holds.
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("run the form: %w", err)
	}
	return final.(*Model).Outcome()
}

// ErrTerminalGone ends the form when its terminal hangs up without a
// SIGHUP reaching the wizard (it is not the terminal's controlling
// process): reads then only return end of file, which the form's input
// loop takes for no more keys, and it would run on.
var ErrTerminalGone = errors.New("the wizard's terminal closed; nothing was set up")

// watchHangUp cancels with ErrTerminalGone when the terminal f hangs up
// (poll's POLLHUP), without polling: one goroutine blocked in poll(2) on
// the terminal and on a pipe that stop closes.
func watchHangUp(f *os.File, cancel context.CancelCauseFunc) (stop func(), err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(p[0])
		for {
			fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(p[0]), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
				cancel(ErrTerminalGone)
				return
			}
		}
	}()
	return func() { unix.Close(p[1]); <-done }, nil
}

// keyMap is huh's key map with a suggestion taken by tab or → as well as
// ctrl+e (the help line says so); tab no longer submits an input (each
// step is one field: enter does).
func keyMap() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.Input.AcceptSuggestion = key.NewBinding(key.WithKeys("tab", "right", "ctrl+e"), key.WithHelp("tab/→/ctrl+e", "complete"))
	km.Input.Next = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next"))
	return km
}
