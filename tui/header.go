package tui

import (
	"strings"

	"github.com/okstra/cockpit/state"
)

// headerBar is the header region, the top row: the run's title and
// backend on the left, the next-phase pointer on the right. It reads only
// the screen's environment.
type headerBar struct{ env *screenEnv }

// headerLine is the header as this screen draws it.
func (a *App) headerLine() string { return headerBar{&a.screenEnv}.View() }

// View draws the header, exactly the screen's width.
func (h headerBar) View() string {
	a := h.env
	w := a.width
	if !a.haveRun {
		return a.memo.fit(a.memo.render(&a.st.HeaderTitle, " cockpit")+a.memo.render(&a.st.Hint, " · waiting for the run"), w)
	}
	v := a.run
	title := v.Title
	if title == "" {
		title = "cockpit"
	}
	left := " " + a.memo.render(&a.st.HeaderTitle, title)
	if v.Backend != "" {
		left += a.memo.render(&a.st.Hint, " · "+v.Backend)
	}
	if v.Err != "" {
		left += " " + a.memo.render(&a.st.HeaderErr, "⚠ "+v.Err)
	}
	right := ""
	if v.Next != nil {
		right = a.memo.render(&a.st.HeaderNext, nextText(v.Next)) + " "
	}
	return a.memo.spread(left, right, w)
}

// nextText is the next-phase pointer as the header shows it, in words:
// the status is what says whether the phase can start (CONTRACTS: read
// status, never infer from a non-empty phase), then the run's rationale.
func nextText(n *state.NextPhase) string {
	var s string
	switch {
	case n.Status == "terminal":
		s = "the run is finished"
	case n.Phase == "":
		s = "next phase " + map[string]string{"ready": "ready", "pending": "not decided yet", "blocked": "blocked"}[n.Status]
		if s == "next phase " {
			s = "next phase: — (" + n.Status + ")"
		}
	default:
		s = "next: " + n.Phase + " — " + map[string]string{"ready": "ready", "pending": "not ready yet", "blocked": "blocked"}[n.Status]
		if strings.HasSuffix(s, " — ") {
			s = "next: " + n.Phase + " (" + n.Status + ")"
		}
	}
	if n.Rationale != "" {
		s += ": " + n.Rationale
	}
	return s
}
