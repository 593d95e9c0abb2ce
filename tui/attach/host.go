package attach

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/okstra/cockpit/panes/term"
)

// Params describe the client's terminal. The client sends them in the
// control socket's attach request (docs/PROTOCOL.md, "Attached screens").
type Params struct {
	// Cols and Rows are the terminal's size when the client attached
	// (80x24 when not positive; cut to MaxCols, MaxRows and MaxCells).
	Cols int `json:"cols"`
	Rows int `json:"rows"`
	// Env is the client's terminal environment (TERM, COLORTERM, LANG,
	// NO_COLOR, ... as picked by ClientEnv): the program sees it instead of
	// the engine's, and the colour profile comes from it.
	Env []string `json:"env,omitempty"`
	// ReadOnly asks for a screen that watches: it may move focus, scroll and
	// detach, but never types into a pane nor answers a gate. Serve does not
	// filter input (the model needs keys to navigate and detach); the caller
	// builds the model with ReadOnly and the model refuses what it must.
	ReadOnly bool `json:"readOnly,omitempty"`
	// TTY offers the client's terminal itself (CanPassTTY): when the reply
	// says tty too, the client's first frame is FrameTTY with the terminal,
	// and the session reads keys from it and draws on it directly.
	TTY bool `json:"tty,omitempty"`
}

const (
	// WriteTimeout is how long one write to the client may block (a client
	// that stopped reading: suspended, or its terminal frozen) before the
	// session ends as ReasonKicked.
	WriteTimeout = 10 * time.Second
	// QuitGrace is how long End and a detach frame wait for the program to
	// quit cleanly (last frame, terminal restored) before killing it.
	QuitGrace = 2 * time.Second
	// exitTimeout bounds the write of the exit frame.
	exitTimeout = time.Second
	// FarewellTimeout is how long a screen kicked for not reading has to
	// take in what was already sent to it, so that its exit frame reaches
	// it too (a terminal that was only paused, ctrl+s or a suspended
	// client resumed). Past it the connection closes without one.
	FarewellTimeout = 5 * time.Second

	// MaxCols, MaxRows and MaxCells bound a screen's size, as bubbletea
	// bounds the sizes it believes (larger resizes are ignored): the
	// renderer keeps a cell buffer of the whole screen.
	MaxCols  = 4096
	MaxRows  = 4096
	MaxCells = 1 << 20
)

// writeTimeout and farewellTimeout are WriteTimeout and FarewellTimeout;
// tests shorten them.
var (
	writeTimeout    = WriteTimeout
	farewellTimeout = FarewellTimeout
)

// clampSize makes a size one the renderer can hold: 80x24 for a size not
// given, at most MaxCols x MaxRows and MaxCells cells (rows give way).
func clampSize(cols, rows int) (int, int) {
	if cols <= 0 {
		cols = 80
	}
	if rows <= 0 {
		rows = 24
	}
	cols, rows = min(cols, MaxCols), min(rows, MaxRows)
	if cols*rows > MaxCells {
		rows = MaxCells / cols
	}
	return cols, rows
}

// Stats count what a session moved. Output frames are what the program's
// renderer wrote, one frame per write (a render flush is one write).
type Stats struct {
	OutputFrames, OutputBytes int64 // host → client, payload bytes
	InputFrames, InputBytes   int64 // client → host, payload bytes
	Resizes                   int64
}

// Session serves one attached client: it runs one bubbletea program whose
// input and output are the client's connection. Build it with NewSession,
// start it with Run (once); Send and End may be called from any goroutine.
type Session struct {
	conn    io.ReadWriteCloser
	params  Params
	prog    *tea.Program
	out     *frameWriter
	in      *io.PipeReader // fed by input frames, read by the key decoder
	inW     *io.PipeWriter
	dummy   *blockReader // the program's own input: blocks until closed
	started atomic.Bool

	mu       sync.Mutex
	outcome  *Outcome // first recorded wins
	noExit   bool     // the client is gone: no exit frame
	farewell bool     // the client stopped reading: an exit frame after what it was sent, if it catches up
	protoErr error
	ended    bool
	killer   *time.Timer

	pctx     context.Context // the program's
	cancel   context.CancelCauseFunc
	onEnd    func(Outcome)
	onColors func(term.Colors)

	stats struct {
		inFrames, inBytes, resizes atomic.Int64
	}
}

// Serve runs model for the client on conn until the model ends the session,
// the client detaches or hangs up, or ctx is done; see Session.Run.
func Serve(ctx context.Context, conn io.ReadWriteCloser, p Params, model tea.Model, opts ...tea.ProgramOption) (Outcome, error) {
	return NewSession(conn, p, model, opts...).Run(ctx)
}

// NewSession prepares a session; nothing runs until Run. opts are applied
// before the session's own options, which set the program's input, output,
// environment, window size, colour profile, context and filter, and turn
// bubbletea's signal handler off: do not pass those, nor
// tea.WithoutCatchPanics (a panic in a command would then take the engine
// down). tui.ProgramOptions() (the renderer's frame rate) belongs here.
func NewSession(conn io.ReadWriteCloser, p Params, model tea.Model, opts ...tea.ProgramOption) *Session {
	p.Cols, p.Rows = clampSize(p.Cols, p.Rows)
	env := append([]string{}, p.Env...) // never nil: nil means the engine's own
	s := &Session{conn: conn, params: p, dummy: newBlockReader()}
	s.pctx, s.cancel = context.WithCancelCause(context.Background())
	s.in, s.inW = io.Pipe()
	s.out = &frameWriter{conn: conn, timeout: writeTimeout, onStall: s.stalled, onTTYError: s.ttyFailed}
	all := append([]tea.ProgramOption{}, opts...)
	all = append(all,
		// The program's own reader only blocks: the keys are decoded by the
		// session and delivered with Send, which gives up once the program
		// has ended (bubbletea's reader would block on the program's message
		// channel forever when a key arrives as the program quits).
		tea.WithInput(s.dummy),
		tea.WithOutput(s.out),
		tea.WithEnvironment(env),
		tea.WithWindowSize(p.Cols, p.Rows),
		tea.WithColorProfile(ProfileFromEnv(env)),
		tea.WithoutSignalHandler(),
		tea.WithFilter(s.filter),
		tea.WithContext(s.pctx),
	)
	s.prog = tea.NewProgram(model, all...)
	return s
}

// Params returns the session's parameters (with defaults filled in).
func (s *Session) Params() Params { return s.params }

// OnEnd has f called once the program has ended and the outcome is known,
// before the client gets the exit frame (and can attach again): what the
// caller keeps of a session, it keeps there. It runs on Run's goroutine.
// Call it before Run.
func (s *Session) OnEnd(f func(Outcome)) { s.onEnd = f }

// OnColors has the session ask the client's terminal for its colours
// (ColorQuery) when it starts, and call f with them once they are in (on a
// goroutine of its own, never after Run returned; not at all when the
// terminal does not answer). Colours it does not answer keep
// term.DefaultColors. The answers still reach the model. Call it before
// Run.
func (s *Session) OnColors(f func(term.Colors)) { s.onColors = f }

// Send delivers msg to the model (as tea.Program.Send). It blocks until the
// program takes it, returns at once once the session has ended, and must
// not be called before Run.
func (s *Session) Send(msg tea.Msg) { s.prog.Send(msg) }

// End ends the session with o: the program is asked to quit (last frame,
// terminal restored) and is killed if it has not within QuitGrace; the
// client gets o in the exit frame. The first outcome recorded wins. Safe to
// call from any goroutine, also from a model's command.
func (s *Session) End(o Outcome) {
	if s.record(o, false) {
		s.quit()
	}
}

// Stats returns the session's counters so far.
func (s *Session) Stats() Stats {
	return Stats{
		OutputFrames: s.out.frames.Load(),
		OutputBytes:  s.out.bytes.Load(),
		InputFrames:  s.stats.inFrames.Load(),
		InputBytes:   s.stats.inBytes.Load(),
		Resizes:      s.stats.resizes.Load(),
	}
}

// record keeps the first outcome. noExit says the client cannot get an exit
// frame (it is gone).
func (s *Session) record(o Outcome, noExit bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outcome != nil {
		return false
	}
	s.outcome = &o
	s.noExit = noExit
	return true
}

// quit asks the program to quit, and arms the kill.
func (s *Session) quit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.killer != nil {
		return
	}
	s.killer = time.AfterFunc(QuitGrace, func() { s.cancel(errQuitTimeout) })
	go s.prog.Quit() // returns once the program has ended
}

var errQuitTimeout = errors.New("attach: the program did not quit in time")

// kill ends the program now (the client is gone or broke the rules).
func (s *Session) kill() { s.cancel(nil) }

// FellBehind is the message of a screen kicked for not reading.
const FellBehind = "the engine disconnected this screen: it fell behind (its terminal read nothing for 10 s)"

// writeDeadliner is a connection whose writes can be cut short.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// stalled is called by the frame writer when a write to the client blocked
// for WriteTimeout: the program is killed, and the blocked write is cut
// short (the connection closed when its writes cannot be); Run then gives
// the client FarewellTimeout to take in the rest and the exit frame.
func (s *Session) stalled() {
	if s.out.tty != nil {
		// The terminal stopped reading; the socket still carries the exit
		// frame.
		s.record(Outcome{Reason: ReasonKicked, Message: FellBehind}, false)
		s.kill()
		return
	}
	s.record(Outcome{Reason: ReasonKicked, Message: FellBehind}, true)
	if d, ok := s.conn.(writeDeadliner); ok && d.SetWriteDeadline(time.Now()) == nil {
		s.mu.Lock()
		s.farewell = true
		s.mu.Unlock()
	} else {
		_ = s.conn.Close()
	}
	s.kill()
}

// ttyFailed ends the session when a write to the client's terminal failed
// (it hung up): the client learns it from its own SIGHUP, or from the exit
// frame.
func (s *Session) ttyFailed(err error) {
	s.record(Outcome{Reason: ReasonDetached, Message: "the screen's terminal closed: " + err.Error()}, false)
	s.kill()
}

// filter sees every message before the model: EndMsg ends the session with
// its outcome; a suspend request is refused (it would stop the engine).
func (s *Session) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case EndMsg:
		s.record(Outcome(m), false)
		return tea.QuitMsg{}
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	}
	return msg
}

// Run serves the client until the session ends, and returns how it ended.
// It takes ownership of the connection and closes it before returning, after
// the exit frame (unless the client is gone). Run returns once the program
// has ended and every goroutine it started is done (commands the model
// started that never return are bubbletea's and are left running).
//
// The session ends when:
//   - the model returns tea.Quit (ReasonDetached) or sends End/EndMsg (its
//     outcome);
//   - End is called;
//   - the client asks to detach (ReasonDetached, with a last frame) or hangs
//     up, says bye or stops reading (the program is killed, no exit frame);
//   - the client breaks the protocol (ReasonKicked; the error is returned);
//   - the model panics, in Init, Update, View or a command (ReasonEngineError;
//     an error wrapping tea.ErrProgramPanic is returned);
//   - ctx is done: the outcome is context.Cause(ctx) when it is an Outcome,
//     else ReasonRunEnded.
func (s *Session) Run(ctx context.Context) (out Outcome, err error) {
	if s.started.Swap(true) {
		return Outcome{Reason: ReasonEngineError, Message: "session already run"}, errors.New("attach: Session.Run called twice")
	}
	stopWatch := context.AfterFunc(ctx, func() { s.cancel(context.Cause(ctx)) })
	defer stopWatch()
	var input io.Reader = s.in
	if s.params.TTY {
		tty, err := takeTTY(s.conn, takeTTYTimeout)
		if err != nil {
			// The program never starts: Send returns at once from now on.
			o := Outcome{Reason: ReasonKicked, Message: "protocol error: " + err.Error()}
			s.record(o, false)
			s.cancel(nil)
			_ = s.out.writeExit(o, exitTimeout)
			_ = s.conn.Close()
			_ = s.dummy.Close()
			return o, fmt.Errorf("attach: client broke the protocol: %w", err)
		}
		if tty != nil {
			s.out.tty = tty
			input = tty
		}
	}

	var wg sync.WaitGroup
	decodeCtx, stopDecode := context.WithCancel(context.Background())
	events := make(chan uv.Event)
	decodeDone := make(chan struct{})
	wg.Add(3)
	go func() { // client → host frames
		defer wg.Done()
		defer s.recoverGo("reading the client")
		s.readFrames()
	}()
	go func() { // input bytes → key events
		defer wg.Done()
		defer close(decodeDone)
		defer s.recoverGo("decoding input")
		term := ""
		for _, kv := range s.params.Env {
			if len(kv) > 5 && kv[:5] == "TERM=" {
				term = kv[5:]
			}
		}
		_ = uv.NewTerminalReader(input, term).StreamEvents(decodeCtx, events)
	}()
	var colors *colorWatch
	if s.onColors != nil {
		colors = newColorWatch(s.onColors)
		defer colors.stop()
		// Before the program's first frame: the answers are the first
		// input, ahead of any key.
		_, _ = s.out.Write([]byte(ColorQuery))
	}
	go func() { // key events → program
		defer wg.Done()
		defer s.recoverGo("delivering input")
		for {
			select {
			case ev := <-events:
				if colors != nil {
					colors.see(ev)
				}
				s.prog.Send(ev) // no-op once the program has ended
			case <-decodeDone:
				return
			}
		}
	}()

	runErr := s.runProgram()

	s.mu.Lock()
	s.ended = true
	if s.killer != nil {
		s.killer.Stop()
	}
	s.mu.Unlock()
	s.cancel(nil)

	out, err = s.decide(ctx, runErr)
	if s.onEnd != nil {
		s.onEnd(out)
	}

	s.mu.Lock()
	noExit, farewell := s.noExit, s.farewell
	s.mu.Unlock()
	// Nothing reaches the client's terminal from here on: it restores the
	// terminal once it has the exit frame (or lost the connection).
	s.out.stopTTY()
	switch {
	case !noExit:
		_ = s.out.writeExit(out, exitTimeout)
	case farewell:
		s.out.writeFarewell(out, farewellTimeout)
	}
	s.out.close()
	_ = s.conn.Close()
	_ = s.inW.Close()
	_ = s.in.Close()
	_ = s.dummy.Close()
	stopDecode()
	wg.Wait()
	return out, err
}

// runProgram runs the program; bubbletea recovers the model's panics, and
// this recovers anything else.
func (s *Session) runProgram() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", tea.ErrProgramPanic, r)
			s.prog.Kill()
		}
	}()
	_, err = s.prog.Run()
	return err
}

// recoverGo keeps a panic in one of the session's goroutines from taking the
// engine down: the session ends as an engine error.
func (s *Session) recoverGo(what string) {
	if r := recover(); r != nil {
		s.record(Outcome{Reason: ReasonEngineError, Message: fmt.Sprintf("the engine failed %s: %v", what, r)}, false)
		s.mu.Lock()
		if s.protoErr == nil {
			s.protoErr = fmt.Errorf("attach: panic %s: %v", what, r)
		}
		s.mu.Unlock()
		s.kill()
	}
}

func (s *Session) decide(ctx context.Context, runErr error) (Outcome, error) {
	s.mu.Lock()
	rec, protoErr := s.outcome, s.protoErr
	s.mu.Unlock()
	var err error
	switch {
	case protoErr != nil:
		err = protoErr
	case errors.Is(runErr, tea.ErrProgramPanic):
		err = fmt.Errorf("attach: the screen model panicked: %w", runErr)
	}
	if rec != nil {
		return *rec, err
	}
	switch {
	case errors.Is(runErr, tea.ErrProgramPanic):
		return Outcome{Reason: ReasonEngineError, Message: "the screen failed (a bug in the cockpit); the run goes on"}, err
	case ctx.Err() != nil:
		var o Outcome
		if errors.As(context.Cause(ctx), &o) {
			return o, err
		}
		return Outcome{Reason: ReasonRunEnded, Message: "the engine is shutting down"}, err
	case runErr != nil && !errors.Is(runErr, tea.ErrInterrupted):
		return Outcome{Reason: ReasonEngineError, Message: "the screen failed: " + runErr.Error()}, fmt.Errorf("attach: %w", runErr)
	}
	return Outcome{Reason: ReasonDetached, Message: "detached"}, err
}

// readFrames reads the client's frames until the connection ends.
func (s *Session) readFrames() {
	dec := NewDecoder(bufio.NewReaderSize(s.conn, 32<<10))
	for {
		f, err := dec.Next()
		if err != nil {
			if errors.Is(err, ErrBadFrame) {
				s.protocolError(err)
				return
			}
			// EOF, reset, or the connection closed by Run: the client is
			// gone (a no-op when the session already ended).
			s.record(Outcome{Reason: ReasonDetached, Message: "the screen hung up"}, true)
			s.kill()
			return
		}
		switch f.Type {
		case FrameInput:
			s.stats.inFrames.Add(1)
			s.stats.inBytes.Add(int64(len(f.Payload)))
			if _, err := s.inW.Write(f.Payload); err != nil {
				return // the session ended
			}
		case FrameResize:
			s.stats.resizes.Add(1)
			cols, rows := f.Resize()
			s.prog.Send(tea.WindowSizeMsg{Width: cols, Height: rows})
		case FrameDetach:
			s.End(Outcome{Reason: ReasonDetached, Message: "detached"})
		case FrameBye:
			s.record(Outcome{Reason: ReasonDetached, Message: "the screen left"}, true)
			s.kill()
			return
		default:
			s.protocolError(fmt.Errorf("%w: %s frame from the client", ErrBadFrame, f.Type))
			return
		}
	}
}

func (s *Session) protocolError(err error) {
	s.record(Outcome{Reason: ReasonKicked, Message: "protocol error: " + err.Error()}, false)
	s.mu.Lock()
	if s.protoErr == nil {
		s.protoErr = fmt.Errorf("attach: client broke the protocol: %w", err)
	}
	s.mu.Unlock()
	s.kill()
}

// ProfileFromEnv is the colour profile of a terminal with this environment,
// decided as colorprofile.Detect decides it for a terminal on its standard
// output: the environment (TERM, COLORTERM, NO_COLOR, CLICOLOR...), then the
// terminfo entry of TERM and tmux's. The engine's output is a socket, so
// Detect itself would see no terminal.
func ProfileFromEnv(env []string) colorprofile.Profile {
	p := colorprofile.Env(env)
	term, noColor := "", false
	for _, kv := range env {
		switch {
		case len(kv) >= 5 && kv[:5] == "TERM=":
			term = kv[5:]
		case len(kv) >= 9 && kv[:9] == "NO_COLOR=":
			noColor, _ = strconv.ParseBool(kv[9:])
		}
	}
	if p == colorprofile.TrueColor || noColor || term == "" || term == "dumb" {
		return p
	}
	return max(p, colorprofile.Terminfo(term), colorprofile.Tmux(env))
}
