package attach

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFramesRoundTrip(t *testing.T) {
	var b []byte
	b = AppendFrame(b, FrameInput, []byte("abc"))
	b = AppendResize(b, 120, 40)
	b = AppendFrame(b, FrameDetach, nil)
	b = AppendFrame(b, FrameBye, nil)
	b = AppendFrame(b, FrameOutput, []byte("\x1b[?1049h"))
	b = AppendExit(b, Outcome{Reason: ReasonRunEnded, Message: "the run ended"})
	d := NewDecoder(bytes.NewReader(b))
	want := []FrameType{FrameInput, FrameResize, FrameDetach, FrameBye, FrameOutput, FrameExit}
	for i, wt := range want {
		f, err := d.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Type != wt {
			t.Fatalf("frame %d: type %s, want %s", i, f.Type, wt)
		}
		switch f.Type {
		case FrameInput:
			if string(f.Payload) != "abc" {
				t.Errorf("input %q", f.Payload)
			}
		case FrameResize:
			if c, r := f.Resize(); c != 120 || r != 40 {
				t.Errorf("resize %dx%d", c, r)
			}
		case FrameExit:
			if o := f.Outcome(); o != (Outcome{Reason: ReasonRunEnded, Message: "the run ended"}) {
				t.Errorf("exit %+v", o)
			}
		}
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestDecoderRefusesBadFrames(t *testing.T) {
	hdr := func(t FrameType, n uint32) []byte {
		return []byte{byte(t), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	cases := map[string][]byte{
		"unknown type":      append(hdr(0x7f, 1), 'x'),
		"oversized":         hdr(FrameInput, MaxPayload+1),
		"huge length":       hdr(FrameOutput, 0xffffffff),
		"short resize":      append(hdr(FrameResize, 3), 0, 1, 0),
		"zero resize":       append(hdr(FrameResize, 4), 0, 0, 0, 5),
		"detach payload":    append(hdr(FrameDetach, 1), 0),
		"bye payload":       append(hdr(FrameBye, 2), 0, 0),
		"empty exit":        hdr(FrameExit, 0),
		"bad exit reason":   append(hdr(FrameExit, 1), 9),
		"lost on the wire":  append(hdr(FrameExit, 1), byte(ReasonLost)),
		"long exit message": append(append(hdr(FrameExit, MaxMessage+2), 1), bytes.Repeat([]byte{'a'}, MaxMessage+1)...),
	}
	for name, b := range cases {
		_, err := NewDecoder(bytes.NewReader(b)).Next()
		if !errors.Is(err, ErrBadFrame) {
			t.Errorf("%s: err %v, want ErrBadFrame", name, err)
		}
	}
	// A stream cut inside a frame is not a clean end.
	b := AppendFrame(nil, FrameOutput, []byte("hello"))
	for cut := 1; cut < len(b); cut++ {
		_, err := NewDecoder(bytes.NewReader(b[:cut])).Next()
		if err != io.ErrUnexpectedEOF {
			t.Errorf("cut at %d: %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
}

func TestAppendExitCutsAndFixes(t *testing.T) {
	msg := strings.Repeat("é", MaxMessage) // 2 bytes each
	f, err := NewDecoder(bytes.NewReader(AppendExit(nil, Outcome{Reason: 42, Message: msg}))).Next()
	if err != nil {
		t.Fatal(err)
	}
	o := f.Outcome()
	if o.Reason != ReasonEngineError {
		t.Errorf("reason %s, want engine-error for an invalid one", o.Reason)
	}
	if len(o.Message) > MaxMessage || !utf8.ValidString(o.Message) {
		t.Errorf("message of %d bytes, valid %v", len(o.Message), utf8.ValidString(o.Message))
	}
}

// FuzzDecoder: any byte stream either decodes into frames that re-encode to
// the bytes read, or stops with an error; never a panic, never a payload over
// the cap.
func FuzzDecoder(f *testing.F) {
	f.Add(AppendFrame(AppendResize(nil, 80, 24), FrameInput, []byte("q")))
	f.Add(AppendExit(AppendFrame(nil, FrameOutput, []byte("\x1b[H")), Outcome{Reason: ReasonDetached, Message: "detached"}))
	f.Add([]byte{0x02, 0, 0, 0, 4, 0, 0, 0, 0})
	f.Add([]byte{0x82, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data))
		var again []byte
		for {
			fr, err := d.Next()
			if err != nil {
				if err == io.EOF && len(again) != len(data) {
					t.Fatalf("clean EOF after %d of %d bytes", len(again), len(data))
				}
				break
			}
			if len(fr.Payload) > MaxPayload {
				t.Fatalf("payload of %d bytes", len(fr.Payload))
			}
			again = AppendFrame(again, fr.Type, fr.Payload)
			if !bytes.Equal(again, data[:len(again)]) {
				t.Fatalf("re-encoded frames differ from the input")
			}
			switch fr.Type {
			case FrameResize:
				if c, r := fr.Resize(); c < 1 || r < 1 {
					t.Fatalf("resize %dx%d accepted", c, r)
				}
			case FrameExit:
				if o := fr.Outcome(); !o.Reason.valid() {
					t.Fatalf("exit reason %d accepted", o.Reason)
				}
			}
		}
	})
}
