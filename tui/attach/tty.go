package attach

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The client's terminal, handed to the engine (DECISIONS 85): as tmux's
// client does, a local client passes its terminal over the unix socket
// (SCM_RIGHTS) and the engine's screen program reads keys from it and
// draws on it directly, so a key and its echo cross no relay. The client
// stays the session's holder: it puts the terminal in raw mode, relays
// sizes, waits for the exit frame, and restores the terminal whatever the
// engine did. The byte relay stays for a client that cannot pass a
// terminal (ssh through wish, a test driving frames, an engine that did
// not ask).

// NoTTYEnv, set to anything, makes a local client relay its terminal's
// bytes instead of handing the terminal to the engine (a benchmark's
// comparison, or a terminal whose name cannot be opened again).
const NoTTYEnv = "COCKPIT_ATTACH_RELAY"

// takeTTYTimeout bounds the wait for the tty frame after a reply that asked
// for it (the client sends it at once).
const takeTTYTimeout = 10 * time.Second

// unixConner is a connection that can hand out its unix socket, for the
// ancillary data the terminal travels with: nil when bytes read past the
// handshake are buffered (a descriptor would then not come with its frame).
type unixConner interface{ UnixConn() *net.UnixConn }

// unixOf is conn's unix socket, or nil.
func unixOf(conn any) *net.UnixConn {
	switch c := conn.(type) {
	case *net.UnixConn:
		return c
	case unixConner:
		return c.UnixConn()
	}
	return nil
}

// CanPassTTY says whether a client on in can hand its terminal to the
// engine: in is a terminal whose device can be opened again, and NoTTYEnv
// is not set (Run checks the rest: a unix socket, output on the same
// terminal). The client offers it
// in the attach request (Params.TTY).
func CanPassTTY(in *os.File) bool {
	if os.Getenv(NoTTYEnv) != "" {
		return false
	}
	fd, err := openTerminal(in)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// openTerminal opens the terminal on in again, by its device's name: a file
// description of the engine's own, so that the non-blocking mode the
// engine sets is not the client's stdin's (tmux's server opens the
// client's tty by name the same way). The device opened must be in's.
func openTerminal(in *os.File) (int, error) {
	var st0 unix.Stat_t
	inFd := int(in.Fd())
	if _, err := unix.IoctlGetTermios(inFd, unix.TCGETS); err != nil {
		return -1, fmt.Errorf("attach: %s: %w", in.Name(), ErrNotTerminal)
	}
	if err := unix.Fstat(inFd, &st0); err != nil {
		return -1, fmt.Errorf("attach: stat %s: %w", in.Name(), err)
	}
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(inFd))
	if err != nil {
		return -1, fmt.Errorf("attach: the name of %s: %w", in.Name(), err)
	}
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return -1, fmt.Errorf("attach: open %s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Rdev != st0.Rdev || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		unix.Close(fd)
		return -1, fmt.Errorf("attach: %s is not the terminal of %s", name, in.Name())
	}
	return fd, nil
}

// sendTTY sends the tty frame on conn with in's terminal opened again; it
// reports whether the terminal went with it (else the frame says: relay).
// The terminal goes only when out is on it too: the engine draws where it
// reads.
func sendTTY(conn io.Writer, in, out *os.File) (bool, error) {
	uc := unixOf(conn)
	frame := AppendFrame(nil, FrameTTY, nil)
	fd := -1
	if uc != nil && sameDevice(in, out) {
		fd, _ = openTerminal(in)
	}
	if fd < 0 {
		_, err := conn.Write(frame)
		return false, err
	}
	defer unix.Close(fd) // the engine has its own reference once sent
	n, _, err := uc.WriteMsgUnix(frame, syscall.UnixRights(fd), nil)
	if err == nil && n != len(frame) {
		err = io.ErrShortWrite
	}
	return err == nil, err
}

// sameDevice says whether a and b are the same terminal.
func sameDevice(a, b *os.File) bool {
	var sa, sb unix.Stat_t
	return unix.Fstat(int(a.Fd()), &sa) == nil && unix.Fstat(int(b.Fd()), &sb) == nil && sa.Rdev == sb.Rdev
}

// errNoTTYConn: the session asked for a terminal on a connection that
// cannot carry one.
var errNoTTYConn = errors.New("attach: the connection cannot carry a terminal")

// takeTTY reads the tty frame, the client's first after a reply that asked
// for its terminal, from conn's unix socket itself (ancillary data is lost
// to a plain read). It returns the terminal, non-blocking and pollable, or
// nil when the client sent none (it relays). Descriptors that are not one
// terminal are closed and refused.
func takeTTY(conn any, timeout time.Duration) (*os.File, error) {
	uc := unixOf(conn)
	if uc == nil {
		return nil, errNoTTYConn
	}
	_ = uc.SetReadDeadline(time.Now().Add(timeout))
	defer uc.SetReadDeadline(time.Time{})
	var hdr [HeaderSize]byte
	oob := make([]byte, unix.CmsgSpace(4*4)) // room for a few, so extras are closed, not cut
	n, oobn, flags, _, err := uc.ReadMsgUnix(hdr[:], oob)
	fds := parseRights(oob[:oobn])
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	if err == nil && n < HeaderSize {
		_, err = io.ReadFull(uc, hdr[n:])
	}
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("attach: reading the tty frame: %w", err)
	}
	t, size := FrameType(hdr[0]), uint32(hdr[1])<<24|uint32(hdr[2])<<16|uint32(hdr[3])<<8|uint32(hdr[4])
	switch {
	case t != FrameTTY:
		closeAll()
		return nil, fmt.Errorf("%w: %s frame where the tty frame was due", ErrBadFrame, t)
	case size != 0:
		closeAll()
		return nil, fmt.Errorf("%w: tty frame with a %d-byte payload", ErrBadFrame, size)
	case flags&unix.MSG_CTRUNC != 0 || len(fds) > 1:
		closeAll()
		return nil, fmt.Errorf("%w: tty frame with more than one descriptor", ErrBadFrame)
	case len(fds) == 0:
		return nil, nil
	}
	fd := fds[0]
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%w: the tty frame's descriptor is not a terminal", ErrBadFrame)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("attach: the client's terminal: %w", err)
	}
	// Non-blocking: os.NewFile makes it pollable, so writes take a
	// deadline (a terminal that stopped reading) and Close ends a read.
	return os.NewFile(uintptr(fd), "client-tty"), nil
}

// parseRights is the descriptors in SCM_RIGHTS messages of oob.
func parseRights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}
