// Package attach carries a screen between a terminal and the engine: the
// engine runs one bubbletea program for each attached client (Serve, a
// Session), with the client's connection as the program's input and output,
// and the client (Run) is a thin raw-mode relay of bytes and sizes — as tmux
// draws for its clients and as wish serves bubbletea programs over ssh.
//
// After the control socket's JSON attach request and reply (docs/PROTOCOL.md,
// "Attached screens"), the connection carries frames: a type byte, a uint32
// big-endian payload length (at most MaxPayload) and the payload. The client
// sends input bytes, its size, a detach request and bye; the host sends
// output bytes and, last, an exit frame with a Reason and one human line.
//
// The host owns the program: its input is decoded by the session and
// delivered with Send (so a key arriving as the program quits is dropped,
// not blocked on forever), its output becomes output frames, its
// environment, window size and colour profile are the client's, a suspend
// request is refused (it would stop the engine), and a panic in the model —
// in Init, Update, View or a command — ends only that session, as
// ReasonEngineError. A model ends its session with tea.Quit (detached) or
// with End (any reason), which the client gets in the exit frame.
//
// The client puts its terminal in raw mode, relays stdin and SIGWINCH, and
// always leaves the terminal as it found it: termios restored and the
// Restore sequence written, even when the engine vanished mid-frame.
//
// A local client hands its terminal to the host instead of relaying its
// bytes (as tmux's client does): it offers it (Params.TTY, CanPassTTY), and
// when the reply takes it (BufferedTTY) its first frame, FrameTTY, carries
// the terminal as SCM_RIGHTS; the session reads keys from it and draws on
// it, and closes it before the exit frame. Sizes, detach, bye and the exit
// frame still go on the connection, and the client still restores the
// terminal (tty.go, DECISIONS 85).
//
// A read-only screen is the model's business: Params.ReadOnly travels with
// the attach request and the caller builds the model with it; the host
// delivers every key (the model needs them to move and detach).
package attach
