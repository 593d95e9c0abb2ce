package control

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// The engine's log keeps, of each request, its method, the calling
// client's name, the ids it concerns (dispatch, pane, gate, screen) and
// its outcome — never a prompt, a gate's text or a program's output: the
// params and result types say what of them is logged (LogAttrs).
type logAttrser interface{ LogAttrs() []slog.Attr }

// logRequest records one served request. Pings are debug-level: a waiting
// gate sends one every few seconds.
func (s *Server) logRequest(c *conn, method string, start time.Time, params, result any, err error) {
	level := slog.LevelInfo
	if method == MethodPing {
		level = slog.LevelDebug
	}
	attrs := []slog.Attr{slog.String("method", method), slog.Int64("conn", c.n), slog.String("client", c.client)}
	if la, ok := params.(logAttrser); ok {
		attrs = append(attrs, la.LogAttrs()...)
	}
	if la, ok := result.(logAttrser); ok && err == nil {
		attrs = append(attrs, la.LogAttrs()...)
	}
	if raw, ok := params.(json.RawMessage); ok && method == MethodAttach {
		var p AttachParams
		if json.Unmarshal(raw, &p) == nil {
			attrs = append(attrs, p.LogAttrs()...)
		}
	}
	attrs = append(attrs, slog.String("took", time.Since(start).Round(time.Microsecond).String()))
	if err != nil {
		level = max(level, slog.LevelWarn)
		code := CodeFailed
		var re *RPCError
		if errors.As(err, &re) {
			code = re.Code
		}
		attrs = append(attrs, slog.String("outcome", code), slog.String("err", Clip(err.Error())))
	} else {
		attrs = append(attrs, slog.String("outcome", "ok"))
	}
	s.log.LogAttrs(c.ctx, level, "request", attrs...)
}

// Clip shortens a string for the log: a reason or an error is kept whole
// up to 300 bytes (a runaway one — a 50 MB sidecar reason — is not).
func Clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// LogAttrs: the dispatch a pane is for and how many follow it.
func (p OpenPaneParams) LogAttrs() []slog.Attr {
	attrs := []slog.Attr{slog.String("title", Clip(p.Title))}
	if p.DispatchID != "" {
		attrs = append(attrs, slog.String("dispatch", p.DispatchID))
	}
	if p.Following > 0 {
		attrs = append(attrs, slog.Int("following", p.Following))
	}
	return attrs
}

// LogAttrs: the new pane and its program's pid.
func (r OpenPaneResult) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("pane", r.PaneID), slog.Int("pid", r.PID)}
}

// LogAttrs: the panes asked for and why.
func (p ClosePanesParams) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("panes", strings.Join(p.PaneIDs, ",")), slog.String("reason", Clip(p.Reason))}
}

// LogAttrs: the panes closed.
func (r ClosePanesResult) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("closed", strings.Join(r.Closed, ","))}
}

// LogAttrs: the gate's id and kind, never its text.
func (p GateParams) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("gate", p.Gate.ID), slog.String("kind", string(p.Gate.Kind))}
}

// LogAttrs: which option the human chose (not the note).
func (r GateResult) LogAttrs() []slog.Attr {
	attrs := []slog.Attr{slog.Int("option", r.Answer.Option)}
	if r.Answer.Status != "" {
		attrs = append(attrs, slog.String("status", r.Answer.Status))
	}
	return attrs
}

// LogAttrs: the screen's size and whether it only watches.
func (p AttachParams) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.Int("cols", p.Cols), slog.Int("rows", p.Rows), slog.Bool("readOnly", p.ReadOnly)}
}

// LogAttrs: the screen's id.
func (r AttachResult) LogAttrs() []slog.Attr {
	return []slog.Attr{slog.String("screen", r.ScreenID)}
}
