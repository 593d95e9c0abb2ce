package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/okstra/cockpit/internal/testenv"
	"github.com/okstra/cockpit/runtime/internal/runtest"
	"github.com/okstra/cockpit/runtime/view"
)

// screenHandler serves screens that write back each byte they read, until
// the client closes.
type screenHandler struct {
	countingHandler
	params  atomic.Value // json.RawMessage of the last attach
	stopped atomic.Int32
	refuse  bool
}

func (h *screenHandler) Attach(raw json.RawMessage) (AttachResult, ServeScreen, error) {
	if h.refuse {
		return AttachResult{}, nil, &RPCError{Code: CodeFailed, Message: "this engine serves no screens"}
	}
	h.params.Store(raw)
	return AttachResult{ScreenID: "screen-1"}, func(_ context.Context, conn io.ReadWriteCloser) {
		defer conn.Close()
		_, _ = io.Copy(conn, conn)
	}, nil
}

func (h *screenHandler) Status() StatusResult {
	return StatusResult{Panes: 3, Pending: 1, Done: 2, Gates: []string{"C-001"}, Screens: 1}
}

func (h *screenHandler) Stop() { h.stopped.Add(1) }

func (h *screenHandler) View() view.RunView { return view.RunView{} }

// TestAttachHandshake asks to attach over a real socket: the reply names
// the screen, the handler got the params as sent, and from the byte after
// the reply the connection is the screen's — bytes the client wrote right
// behind the request (already buffered by the server's line reader) reach
// it first, in order.
func TestAttachHandshake(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	h := &screenHandler{}
	s, err := Listen(sock, h, HelloResult{RunManifest: "m.json", ProjectRoot: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(10*time.Second))
	defer cancel()
	conn, r, hello, res, err := DialAttach(ctx, sock, "test", AttachParams{Cols: 120, Rows: 40, Env: []string{"TERM=xterm"}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if res.ScreenID != "screen-1" || hello.RunManifest != "m.json" {
		t.Fatalf("attach answered %+v, hello %+v", res, hello)
	}
	var got AttachParams
	if err := json.Unmarshal(h.params.Load().(json.RawMessage), &got); err != nil || got.Cols != 120 || got.Rows != 40 || !got.ReadOnly || len(got.Env) != 1 {
		t.Fatalf("the handler got %+v (%v)", got, err)
	}
	if _, err := conn.Write([]byte("frames\x00\x01")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "frames\x00\x01" {
		t.Fatalf("echo %q, %v", buf, err)
	}
}

// TestAttachBuffered sends the attach request and the first frame bytes in
// one write: the server's line reader holds them when the request is
// parsed, and the screen must still get them.
func TestAttachBuffered(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	s, err := Listen(sock, &screenHandler{}, HelloResult{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := dialRaw(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	msg := `{"id":1,"method":"hello","params":{"version":1,"client":"t"}}` + "\n" +
		`{"id":2,"method":"attach","params":{"cols":80,"rows":24}}` + "\n" + "early bytes"
	if _, err := conn.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		line, err := ReadMessage(r)
		if err != nil {
			t.Fatal(err)
		}
		var rep Reply
		if json.Unmarshal(line, &rep) != nil || rep.Error != nil {
			t.Fatalf("reply %s", line)
		}
	}
	buf := make([]byte, len("early bytes"))
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "early bytes" {
		t.Fatalf("echo %q, %v", buf, err)
	}
}

// TestAttachRefused: an engine that serves no screen answers an error and
// the connection stays in JSON mode (a next request is served).
func TestAttachRefused(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	s, err := Listen(sock, &screenHandler{refuse: true}, HelloResult{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(10*time.Second))
	defer cancel()
	_, _, _, _, err = DialAttach(ctx, sock, "test", AttachParams{Cols: 80, Rows: 24})
	var re *RPCError
	if !errors.As(err, &re) || re.Message != "this engine serves no screens" {
		t.Fatalf("attach to an engine without screens: %v", err)
	}
	c, err := Dial(ctx, sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var bad AttachResult
	if err := c.Call(ctx, MethodAttach, map[string]any{"cols": -1}, &bad); err == nil {
		t.Fatal("a negative size was accepted")
	}
	if _, err := ListPanes.Call(ctx, c, Empty{}); err != nil {
		t.Fatalf("the connection is not in JSON mode after a refused attach: %v", err)
	}
}

// TestStatusAndStop: status is the handler's, with the server's own pid,
// run and socket; stop reaches the handler once per request.
func TestStatusAndStop(t *testing.T) {
	sock := filepath.Join(runtest.ShortDir(t), "s", "cockpit.sock")
	h := &screenHandler{}
	s, err := Listen(sock, h, HelloResult{RunManifest: "m.json", ProjectRoot: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Scale(10*time.Second))
	defer cancel()
	c, err := Dial(ctx, sock, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := Status.Call(ctx, c, Empty{})
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != c.Hello.PID || st.RunManifest != "m.json" || st.ProjectRoot != "/p" || st.Socket != s.Path() ||
		st.Panes != 3 || st.Pending != 1 || st.Done != 2 || len(st.Gates) != 1 || st.Screens != 1 {
		t.Fatalf("status %+v", st)
	}
	if _, err := Stop.Call(ctx, c, Empty{}); err != nil {
		t.Fatal(err)
	}
	if h.stopped.Load() != 1 {
		t.Fatalf("stop reached the handler %d times", h.stopped.Load())
	}
}

func dialRaw(path string) (net.Conn, error) { return net.Dial("unix", path) }
