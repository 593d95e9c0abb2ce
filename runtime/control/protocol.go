package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/okstra/cockpit/runtime/view"
)

// The control protocol: newline-delimited JSON over a unix socket.
//
//	request:  {"id": 7, "method": "open-pane", "params": {...}}
//	reply:    {"id": 7, "result": {...}}  or  {"id": 7, "error": {"code": "...", "message": "..."}}
//	event:    {"event": "pane-opened", "data": {...}}   (no id; only after "subscribe")
//
// The first request on a connection must be "hello" with the client's
// protocol version; the server answers with its own. One message is at most
// MaxMessage bytes. docs/PROTOCOL.md is the reference.
const (
	ProtocolVersion = 1
	MaxMessage      = 16 << 20
)

// Method names; Methods is the table of their types.
const (
	MethodHello      = "hello"
	MethodOpenPane   = "open-pane"
	MethodClosePanes = "close-panes"
	MethodListPanes  = "list-panes"
	MethodSubscribe  = "subscribe"
	MethodGate       = "gate"
	MethodView       = "view"
	// MethodAttach turns the connection into an attached screen's frame
	// stream after its reply (docs/PROTOCOL.md, "Attached screens").
	MethodAttach = "attach"
	// MethodStatus describes the engine for `cockpit ls`.
	MethodStatus = "status"
	// MethodStop ends the run: the engine closes its panes and exits.
	MethodStop = "stop"
	// MethodPing is answered at once by the server (a liveness probe).
	MethodPing = "ping"
)

// Error codes.
const (
	CodeBadRequest = "bad-request"
	CodeVersion    = "version"
	CodeFailed     = "failed"
	CodeDenied     = "denied"
	CodeCancelled  = "cancelled"
	// CodeBusy refuses a connection past the limit of open connections.
	CodeBusy = "busy"
	// CodeLagging ends a subscription the engine dropped for falling behind.
	CodeLagging = "lagging"
)

// Request is one call.
type Request struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Reply answers one request.
type Reply struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// RPCError is a failed request.
type RPCError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return e.Message }

// EventMessage is pushed to subscribers.
type EventMessage struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// HelloParams opens a session.
type HelloParams struct {
	Version int    `json:"version"`
	Client  string `json:"client"`
}

// HelloResult tells the client who answers.
type HelloResult struct {
	Version     int    `json:"version"`
	Server      string `json:"server"`
	PID         int    `json:"pid"`
	RunManifest string `json:"runManifest"`
	ProjectRoot string `json:"projectRoot"`
}

// OpenPaneParams asks for a pane running argv.
type OpenPaneParams struct {
	Argv       []string `json:"argv"`
	Dir        string   `json:"dir"`
	Env        []string `json:"env,omitempty"`
	Title      string   `json:"title"`
	DispatchID string   `json:"dispatchId,omitempty"`
	// Following is how many more panes the caller opens right after this
	// one (the rest of a batch), so the pane starts at the size the screen
	// gives it once the whole batch is open.
	Following int `json:"following,omitempty"`
}

// OpenPaneResult names the new pane.
type OpenPaneResult struct {
	PaneID string `json:"paneId"`
	PID    int    `json:"pid"`
}

// ClosePanesParams asks to close panes by id.
type ClosePanesParams struct {
	PaneIDs []string `json:"paneIds"`
	Reason  string   `json:"reason"`
}

// ClosePanesResult lists the panes that were open and are now closed.
type ClosePanesResult struct {
	Closed []string `json:"closed"`
}

// PaneInfo describes one open pane.
type PaneInfo struct {
	PaneID     string `json:"paneId"`
	Title      string `json:"title"`
	DispatchID string `json:"dispatchId,omitempty"`
	PID        int    `json:"pid"`
	Exited     bool   `json:"exited"`
	Lead       bool   `json:"lead,omitempty"`
}

// ListPanesResult lists the open panes.
type ListPanesResult struct {
	Panes []PaneInfo `json:"panes"`
}

// GateParams asks the human a question and waits for the answer.
type GateParams struct {
	Gate view.Gate `json:"gate"`
	// Report, when set, is the report (absolute path) whose user-response
	// sidecar the engine writes the answer into before the screen says
	// "answered"; a failed write keeps the gate waiting, with the reason
	// on the screen.
	Report string `json:"report,omitempty"`
}

// GateResult is the human's answer.
type GateResult struct {
	Answer view.GateAnswer `json:"answer"`
	// Sidecar is the user-response sidecar the engine wrote the answer
	// into (GateParams.Report); "" when it wrote none.
	Sidecar string `json:"sidecar,omitempty"`
}

// errTooLong is returned for a message over MaxMessage.
var errTooLong = fmt.Errorf("message longer than %d bytes", MaxMessage)

// ReadMessage reads one newline-terminated message of at most MaxMessage
// bytes, however long (bufio.Scanner's 64 KiB token limit does not apply).
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxMessage {
			// Skip the rest of the line so the connection stays usable.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(buf)) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// WriteMessage writes v as one JSON line.
func WriteMessage(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(data) > MaxMessage {
		return errTooLong
	}
	data = append(data, '\n')
	_, err = w.Write(data)
	return err
}
