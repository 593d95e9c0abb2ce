package panes

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/okstra/cockpit/panes/term"
)

func TestAppendKey(t *testing.T) {
	normal := term.Modes{}
	app := term.Modes{AppCursor: true}
	for _, tc := range []struct {
		key   Key
		modes term.Modes
		want  string
	}{
		{Key{Code: 'a'}, normal, "a"},
		{Key{Code: 'é'}, normal, "é"},
		{Key{Code: 'a', Mod: ModShift}, normal, "A"},
		{Key{Code: 'a', Mod: ModCtrl}, normal, "\x01"},
		{Key{Code: 'C', Mod: ModCtrl | ModShift}, normal, "\x03"},
		{Key{Code: ' ', Mod: ModCtrl}, normal, "\x00"},
		{Key{Code: '[', Mod: ModCtrl}, normal, "\x1b"},
		{Key{Code: '\\', Mod: ModCtrl}, normal, "\x1c"},
		{Key{Code: '_', Mod: ModCtrl}, normal, "\x1f"},
		{Key{Code: '?', Mod: ModCtrl}, normal, "\x7f"},
		{Key{Code: 'x', Mod: ModAlt}, normal, "\x1bx"},
		{Key{Code: 'x', Mod: ModAlt | ModCtrl}, normal, "\x1b\x18"},
		{Key{Code: KeyUp}, normal, "\x1b[A"},
		{Key{Code: KeyDown}, normal, "\x1b[B"},
		{Key{Code: KeyRight}, normal, "\x1b[C"},
		{Key{Code: KeyLeft}, normal, "\x1b[D"},
		{Key{Code: KeyHome}, normal, "\x1b[H"},
		{Key{Code: KeyEnd}, normal, "\x1b[F"},
		{Key{Code: KeyUp}, app, "\x1bOA"},
		{Key{Code: KeyLeft}, app, "\x1bOD"},
		{Key{Code: KeyHome}, app, "\x1bOH"},
		{Key{Code: KeyEnd}, app, "\x1bOF"},
		// Modified cursor keys use CSI 1;m in both modes.
		{Key{Code: KeyUp, Mod: ModCtrl}, normal, "\x1b[1;5A"},
		{Key{Code: KeyUp, Mod: ModCtrl}, app, "\x1b[1;5A"},
		{Key{Code: KeyRight, Mod: ModShift}, normal, "\x1b[1;2C"},
		{Key{Code: KeyLeft, Mod: ModAlt}, normal, "\x1b[1;3D"},
		{Key{Code: KeyEnd, Mod: ModCtrl | ModShift}, app, "\x1b[1;6F"},
		{Key{Code: KeyInsert}, normal, "\x1b[2~"},
		{Key{Code: KeyDelete}, normal, "\x1b[3~"},
		{Key{Code: KeyDelete, Mod: ModCtrl}, normal, "\x1b[3;5~"},
		{Key{Code: KeyPageUp}, app, "\x1b[5~"},
		{Key{Code: KeyPageDown, Mod: ModShift}, normal, "\x1b[6;2~"},
		{Key{Code: KeyF1}, normal, "\x1bOP"},
		{Key{Code: KeyF4}, normal, "\x1bOS"},
		{Key{Code: KeyF1, Mod: ModShift}, normal, "\x1b[1;2P"},
		{Key{Code: KeyF5}, normal, "\x1b[15~"},
		{Key{Code: KeyF10}, normal, "\x1b[21~"},
		{Key{Code: KeyF12, Mod: ModCtrl}, normal, "\x1b[24;5~"},
		{Key{Code: KeyEnter}, normal, "\r"},
		{Key{Code: KeyEnter, Mod: ModAlt}, normal, "\x1b\r"},
		{Key{Code: KeyTab}, normal, "\t"},
		{Key{Code: KeyTab, Mod: ModShift}, normal, "\x1b[Z"},
		{Key{Code: KeyBackspace}, normal, "\x7f"},
		{Key{Code: KeyBackspace, Mod: ModCtrl}, normal, "\b"},
		{Key{Code: KeyBackspace, Mod: ModAlt}, normal, "\x1b\x7f"},
		{Key{Code: KeyEscape}, normal, "\x1b"},
	} {
		if got := string(appendKey(nil, tc.key, tc.modes)); got != tc.want {
			t.Errorf("key %+v (app cursor %v) = %q, want %q", tc.key, tc.modes.AppCursor, got, tc.want)
		}
	}
}

func TestAppendPaste(t *testing.T) {
	for _, tc := range []struct {
		text      string
		bracketed bool
		want      string
	}{
		{"ls\n", false, "ls\r"},
		{"a\r\nb", false, "a\rb"},
		{"ls\n", true, "\x1b[200~ls\r\x1b[201~"},
		{"evil\x1b[201~rm -rf ~\n", true, "\x1b[200~evilrm -rf ~\r\x1b[201~"},
		{"x\x1b[20\x1b[201~1~y", true, "\x1b[200~xy\x1b[201~"},
		{"\x1b[200~nested", true, "\x1b[200~nested\x1b[201~"},
		{"evil\x1b[201~", false, "evil"},
	} {
		if got := string(appendPaste(nil, tc.text, tc.bracketed)); got != tc.want {
			t.Errorf("paste %q bracketed=%v = %q, want %q", tc.text, tc.bracketed, got, tc.want)
		}
	}
}

func TestAppendMouse(t *testing.T) {
	press := Mouse{X: 4, Y: 2, Button: MouseLeft, Action: MousePress}
	release := Mouse{X: 4, Y: 2, Button: MouseLeft, Action: MouseRelease}
	drag := Mouse{X: 5, Y: 2, Button: MouseLeft, Action: MouseMotion}
	hover := Mouse{X: 6, Y: 2, Action: MouseMotion}
	wheel := Mouse{X: 0, Y: 0, Button: MouseWheelDown, Action: MousePress}
	ctrlRight := Mouse{X: 1, Y: 1, Button: MouseRight, Action: MousePress, Mod: ModCtrl | ModShift}
	far := Mouse{X: 300, Y: 2, Button: MouseLeft, Action: MousePress}
	sgr := func(m term.MouseMode) term.Modes { return term.Modes{Mouse: m, MouseSGR: true} }
	x10 := func(m term.MouseMode) term.Modes { return term.Modes{Mouse: m} }
	const none = "-"
	for _, tc := range []struct {
		name  string
		ev    Mouse
		modes term.Modes
		want  string
	}{
		{"no mode", press, term.Modes{MouseSGR: true}, none},
		{"no mode wheel", wheel, x10(term.MouseNone), none},

		{"9 press", press, x10(term.MouseX10), "\x1b[M\x20\x25\x23"},
		{"9 release", release, x10(term.MouseX10), none},
		{"9 drag", drag, x10(term.MouseX10), none},
		{"9 no modifiers", ctrlRight, x10(term.MouseX10), "\x1b[M\x22\x22\x22"},

		{"1000 press", press, x10(term.MouseNormal), "\x1b[M\x20\x25\x23"},
		{"1000 release", release, x10(term.MouseNormal), "\x1b[M\x23\x25\x23"},
		{"1000 drag", drag, x10(term.MouseNormal), none},
		{"1000 hover", hover, x10(term.MouseNormal), none},
		{"1000 wheel", wheel, x10(term.MouseNormal), "\x1b[M\x61\x21\x21"},
		{"1000 wheel release", Mouse{Button: MouseWheelUp, Action: MouseRelease}, x10(term.MouseNormal), none},
		{"1000 modifiers", ctrlRight, x10(term.MouseNormal), "\x1b[M\x36\x22\x22"},
		{"1000 past 223", far, x10(term.MouseNormal), none},

		{"1002 drag", drag, x10(term.MouseButton), "\x1b[M\x40\x26\x23"},
		{"1002 hover", hover, x10(term.MouseButton), none},
		{"1003 hover", hover, x10(term.MouseAny), "\x1b[M\x43\x27\x23"},

		{"1006 press", press, sgr(term.MouseNormal), "\x1b[<0;5;3M"},
		{"1006 release", release, sgr(term.MouseNormal), "\x1b[<0;5;3m"},
		{"1006 right release", Mouse{X: 9, Y: 9, Button: MouseRight, Action: MouseRelease}, sgr(term.MouseNormal), "\x1b[<2;10;10m"},
		{"1006 drag", drag, sgr(term.MouseButton), "\x1b[<32;6;3M"},
		{"1006 hover", hover, sgr(term.MouseAny), "\x1b[<35;7;3M"},
		{"1006 wheel", wheel, sgr(term.MouseNormal), "\x1b[<65;1;1M"},
		{"1006 modifiers", ctrlRight, sgr(term.MouseNormal), "\x1b[<22;2;2M"},
		{"1006 past 223", far, sgr(term.MouseNormal), "\x1b[<0;301;3M"},
		{"1006 x10 mode", press, sgr(term.MouseX10), "\x1b[<0;5;3M"},
		{"negative", Mouse{X: -1, Y: 0, Button: MouseLeft}, sgr(term.MouseAny), none},
	} {
		out, ok := appendMouse(nil, tc.ev, tc.modes)
		got := string(out)
		if !ok {
			got = none
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// inputLine is the line the keys helper prints for input bytes b.
func inputLine(b string) string { return "in=" + hex.EncodeToString([]byte(b)) }

// keysPane runs the keys helper, which first writes modes (with "ESC" for
// the escape byte), and waits until it is ready, i.e. the modes reached the
// emulator.
func keysPane(t *testing.T, modes string) *Pane {
	t.Helper()
	p := openHelper(t, NewManager(), Config{Rows: 50}, "keys", modes)
	waitScreen(t, p, "ready")
	return p
}

// linesAfterReady returns the non-empty screen rows after "ready".
func linesAfterReady(p *Pane) []string {
	var out []string
	seen := false
	for _, l := range p.Capture(false) {
		switch {
		case l == "ready":
			seen = true
		case seen && l != "":
			out = append(out, l)
		}
	}
	return out
}

// expectInput sends with send and waits for the program to print that it
// read want, and nothing else since the previous expectation.
func expectInput(t *testing.T, p *Pane, send func() error, want string) {
	t.Helper()
	before := len(linesAfterReady(p))
	if err := send(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "input "+inputLine(want), 10*time.Second, func() bool { return len(linesAfterReady(p)) > before })
	if got := linesAfterReady(p)[before:]; len(got) != 1 || got[0] != inputLine(want) {
		t.Fatalf("program read %q, want %q", got, inputLine(want))
	}
}

func TestKeysEndToEnd(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	t.Run("normal cursor mode", func(t *testing.T) {
		p := keysPane(t, "")
		if p.Modes().AppCursor {
			t.Fatal("app cursor mode set")
		}
		for _, tc := range []struct {
			key  Key
			want string
		}{
			{Key{Code: KeyUp}, "\x1b[A"},
			{Key{Code: KeyHome}, "\x1b[H"},
			{Key{Code: KeyLeft, Mod: ModCtrl}, "\x1b[1;5D"},
			{Key{Code: 'c', Mod: ModCtrl}, "\x03"},
			{Key{Code: KeyF5}, "\x1b[15~"},
		} {
			expectInput(t, p, func() error { return p.SendKey(tc.key) }, tc.want)
		}
		expectInput(t, p, func() error { _, err := p.Write([]byte("raw")); return err }, "raw")
	})
	t.Run("application cursor mode", func(t *testing.T) {
		p := keysPane(t, "ESC[?1h")
		if !p.Modes().AppCursor {
			t.Fatal("app cursor mode not set")
		}
		expectInput(t, p, func() error { return p.SendKey(Key{Code: KeyUp}) }, "\x1bOA")
		expectInput(t, p, func() error { return p.SendKey(Key{Code: KeyEnd}) }, "\x1bOF")
		expectInput(t, p, func() error { return p.SendKey(Key{Code: KeyUp, Mod: ModShift}) }, "\x1b[1;2A")
	})
}

func TestPasteEndToEnd(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	text := "echo hi\nrm -rf ~\x1b[201~oops"
	t.Run("bracketed", func(t *testing.T) {
		p := keysPane(t, "ESC[?2004h")
		expectInput(t, p, func() error { return p.Paste(text) }, "\x1b[200~echo hi\rrm -rf ~oops\x1b[201~")
	})
	t.Run("plain", func(t *testing.T) {
		p := keysPane(t, "")
		expectInput(t, p, func() error { return p.Paste(text) }, "echo hi\rrm -rf ~oops")
	})
	t.Run("bracketed then off", func(t *testing.T) {
		p := keysPane(t, "ESC[?2004hESC[?2004l")
		expectInput(t, p, func() error { return p.Paste("x") }, "x")
	})
}

func TestMouseEndToEnd(t *testing.T) {
	t.Parallel() // a manager and helper of its own; it waits on the helper
	press := Mouse{X: 4, Y: 2, Button: MouseLeft, Action: MousePress}
	release := Mouse{X: 4, Y: 2, Button: MouseLeft, Action: MouseRelease}
	sendMouse := func(p *Pane, ev Mouse, wantSent bool) func() error {
		return func() error {
			sent, err := p.SendMouse(ev)
			if err == nil && sent != wantSent {
				t.Fatalf("SendMouse(%+v) sent=%v, want %v", ev, sent, wantSent)
			}
			return err
		}
	}
	t.Run("not requested", func(t *testing.T) {
		p := keysPane(t, "")
		// Nothing may reach the program: the next thing it reads is the
		// key sent afterwards.
		for _, ev := range []Mouse{press, release, {X: 1, Y: 1, Action: MouseMotion}, {Button: MouseWheelUp}} {
			if sent, err := p.SendMouse(ev); sent || err != nil {
				t.Fatalf("SendMouse(%+v) = %v, %v; want not sent", ev, sent, err)
			}
		}
		expectInput(t, p, func() error { return p.SendKey(Key{Code: 'z'}) }, "z")
	})
	t.Run("SGR", func(t *testing.T) {
		p := keysPane(t, "ESC[?1002hESC[?1006h")
		expectInput(t, p, sendMouse(p, press, true), "\x1b[<0;5;3M")
		drag := Mouse{X: 7, Y: 2, Button: MouseLeft, Action: MouseMotion}
		expectInput(t, p, sendMouse(p, drag, true), "\x1b[<32;8;3M")
		// Motion within the same cell is not reported twice.
		if sent, _ := p.SendMouse(drag); sent {
			t.Fatal("repeated motion in the same cell was sent")
		}
		expectInput(t, p, sendMouse(p, Mouse{X: 7, Y: 2, Button: MouseLeft, Action: MouseRelease}, true), "\x1b[<0;8;3m")
		// 1002 reports no motion without a button.
		if sent, _ := p.SendMouse(Mouse{X: 9, Y: 9, Action: MouseMotion}); sent {
			t.Fatal("hover sent in button-event mode")
		}
	})
	t.Run("X10", func(t *testing.T) {
		p := keysPane(t, "ESC[?1000h")
		expectInput(t, p, sendMouse(p, press, true), "\x1b[M\x20\x25\x23")
		expectInput(t, p, sendMouse(p, release, true), "\x1b[M\x23\x25\x23")
	})
	t.Run("focus", func(t *testing.T) {
		p := keysPane(t, "")
		if err := p.Focus(true); err != nil {
			t.Fatal(err)
		}
		expectInput(t, p, func() error { return p.SendKey(Key{Code: 'a'}) }, "a")
		p2 := keysPane(t, "ESC[?1004h")
		expectInput(t, p2, func() error { return p2.Focus(true) }, "\x1b[I")
		expectInput(t, p2, func() error { return p2.Focus(false) }, "\x1b[O")
	})
}
