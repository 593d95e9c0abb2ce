package attach

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// FrameType is the first byte of a frame. Types below 0x80 go from the
// client (the screen's terminal) to the host (the engine); types from 0x80 go
// from the host to the client.
type FrameType byte

const (
	// FrameInput carries bytes the client's terminal produced (keys, mouse,
	// paste, replies to queries), as read, unparsed.
	FrameInput FrameType = 0x01
	// FrameResize carries the client's terminal size: cols and rows, each an
	// unsigned 16-bit big-endian number, both at least 1.
	FrameResize FrameType = 0x02
	// FrameDetach asks the host to end the session as detached; the host
	// answers with an exit frame. Empty payload.
	FrameDetach FrameType = 0x03
	// FrameBye says the client is going away now and reads nothing more.
	// Empty payload.
	FrameBye FrameType = 0x04
	// FrameTTY hands the client's terminal to the host: its first frame
	// when the attach reply said tty, empty, with the terminal's file
	// descriptor as SCM_RIGHTS ancillary data on the unix socket (or with
	// none: the client could not open its terminal, and relays). See
	// TakeTerminal.
	FrameTTY FrameType = 0x05

	// FrameOutput carries bytes for the client's terminal, written as is.
	FrameOutput FrameType = 0x81
	// FrameExit ends the session: one reason byte (see Reason) and a human
	// line of UTF-8 of at most MaxMessage bytes. It is the host's last frame.
	FrameExit FrameType = 0x82
)

const (
	// HeaderSize is the size of a frame header: the type byte and a uint32
	// big-endian payload length.
	HeaderSize = 5
	// MaxPayload is the largest payload a frame may carry. Writers split
	// longer output into several frames; readers refuse longer frames.
	MaxPayload = 1 << 20
	// MaxMessage is the longest human line an exit frame may carry.
	MaxMessage = 1024
)

// ErrBadFrame is wrapped by every error the decoder returns for a frame that
// breaks the rules (unknown type, oversized, malformed payload). The stream
// cannot be resynchronised after one: the connection must be closed.
var ErrBadFrame = errors.New("bad frame")

func (t FrameType) String() string {
	switch t {
	case FrameInput:
		return "input"
	case FrameResize:
		return "resize"
	case FrameDetach:
		return "detach"
	case FrameBye:
		return "bye"
	case FrameTTY:
		return "tty"
	case FrameOutput:
		return "output"
	case FrameExit:
		return "exit"
	}
	return fmt.Sprintf("0x%02x", byte(t))
}

// FromClient says whether frames of this type go from the client to the host.
func (t FrameType) FromClient() bool { return t < 0x80 }

// Frame is one decoded frame. Payload is only valid until the next call to
// the Decoder that returned it.
type Frame struct {
	Type    FrameType
	Payload []byte
}

// Resize decodes a resize frame's payload.
func (f Frame) Resize() (cols, rows int) {
	return int(binary.BigEndian.Uint16(f.Payload[0:2])), int(binary.BigEndian.Uint16(f.Payload[2:4]))
}

// Outcome decodes an exit frame's payload.
func (f Frame) Outcome() Outcome {
	return Outcome{Reason: Reason(f.Payload[0]), Message: string(f.Payload[1:])}
}

// checkFrame validates a frame's header and payload against the rules of its
// type. It never panics.
func checkFrame(t FrameType, payload []byte) error {
	switch t {
	case FrameInput, FrameOutput:
		return nil
	case FrameResize:
		if len(payload) != 4 {
			return fmt.Errorf("%w: resize payload is %d bytes, want 4", ErrBadFrame, len(payload))
		}
		cols, rows := binary.BigEndian.Uint16(payload[0:2]), binary.BigEndian.Uint16(payload[2:4])
		if cols == 0 || rows == 0 {
			return fmt.Errorf("%w: resize to %dx%d", ErrBadFrame, cols, rows)
		}
		return nil
	case FrameDetach, FrameBye, FrameTTY:
		if len(payload) != 0 {
			return fmt.Errorf("%w: %s frame with a %d-byte payload", ErrBadFrame, t, len(payload))
		}
		return nil
	case FrameExit:
		if len(payload) == 0 {
			return fmt.Errorf("%w: exit frame without a reason", ErrBadFrame)
		}
		if !Reason(payload[0]).valid() {
			return fmt.Errorf("%w: exit reason %d unknown", ErrBadFrame, payload[0])
		}
		if len(payload)-1 > MaxMessage {
			return fmt.Errorf("%w: exit message of %d bytes (at most %d)", ErrBadFrame, len(payload)-1, MaxMessage)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown frame type %s", ErrBadFrame, t)
}

// Decoder reads frames from a stream. It keeps one payload buffer, grown to
// the largest frame seen (at most MaxPayload).
type Decoder struct {
	r   io.Reader
	hdr [HeaderSize]byte
	buf []byte
}

// NewDecoder returns a decoder reading from r. Wrap r in a bufio.Reader when
// it is a connection: the decoder makes two reads a frame.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: r} }

// Next reads the next frame. At a clean end of the stream (between frames)
// it returns io.EOF; a stream cut inside a frame gives io.ErrUnexpectedEOF;
// a frame that breaks the rules gives an error wrapping ErrBadFrame, after
// which the stream is unusable.
func (d *Decoder) Next() (Frame, error) {
	if _, err := io.ReadFull(d.r, d.hdr[:]); err != nil {
		return Frame{}, err
	}
	t := FrameType(d.hdr[0])
	n := binary.BigEndian.Uint32(d.hdr[1:])
	if n > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %s frame of %d bytes (at most %d)", ErrBadFrame, t, n, MaxPayload)
	}
	if !knownType(t) {
		// Refused before reading a payload for it.
		return Frame{}, fmt.Errorf("%w: unknown frame type %s", ErrBadFrame, t)
	}
	if cap(d.buf) < int(n) {
		d.buf = make([]byte, n, max(int(n), 4096))
	}
	p := d.buf[:n]
	if _, err := io.ReadFull(d.r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	if err := checkFrame(t, p); err != nil {
		return Frame{}, err
	}
	return Frame{Type: t, Payload: p}, nil
}

func knownType(t FrameType) bool {
	switch t {
	case FrameInput, FrameResize, FrameDetach, FrameBye, FrameTTY, FrameOutput, FrameExit:
		return true
	}
	return false
}

// AppendFrame appends one frame to dst. The payload must be at most
// MaxPayload bytes and follow its type's rules (see AppendResize and
// AppendExit for the structured ones).
func AppendFrame(dst []byte, t FrameType, payload []byte) []byte {
	dst = append(dst, byte(t), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(dst[len(dst)-4:], uint32(len(payload)))
	return append(dst, payload...)
}

// AppendResize appends a resize frame. Sizes are clamped to 1..65535.
func AppendResize(dst []byte, cols, rows int) []byte {
	var p [4]byte
	binary.BigEndian.PutUint16(p[0:2], clamp16(cols))
	binary.BigEndian.PutUint16(p[2:4], clamp16(rows))
	return AppendFrame(dst, FrameResize, p[:])
}

// AppendExit appends an exit frame. A message longer than MaxMessage is cut
// (at a rune boundary), and an invalid reason becomes ReasonEngineError.
func AppendExit(dst []byte, o Outcome) []byte {
	r := o.Reason
	if !r.valid() {
		r = ReasonEngineError
	}
	msg := cutUTF8(o.Message, MaxMessage)
	p := make([]byte, 0, 1+len(msg))
	p = append(p, byte(r))
	p = append(p, msg...)
	return AppendFrame(dst, FrameExit, p)
}

func clamp16(v int) uint16 {
	return uint16(min(max(v, 1), 65535))
}

// cutUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}
