package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// helpRow is one line of the help overlay.
type helpRow struct{ keys, desc string }

type helpSection struct {
	title string
	rows  []helpRow
}

func row(b key.Binding) helpRow { return helpRow{b.Help().Key, b.Help().Desc} }

// helpSections is the key map grouped by mode, in the order the overlay
// lists it. Bindings that only differ by direction share a row.
// An attached screen lists detach, and q's dialog instead of quitting.
func (k KeyMap) helpSections(attached bool) []helpSection {
	nav := []helpRow{
		{"←↓↑→ hjkl", "move focus"},
		{"tab/S-tab", "next / previous pane"},
		row(k.Jump), row(k.Enter), row(k.Scroll),
		{k.Zoom.Help().Key + " / " + k.Timeline.Help().Key, "zoom / timeline"},
		row(k.Close), row(k.Gate), row(k.Overview), row(k.Quit), row(k.Help),
	}
	typing := []helpRow{
		row(k.Prefix),
		{k.Prefix.Help().Key + " ×2", "send " + k.Prefix.Help().Key + " itself"},
	}
	if attached {
		nav[len(nav)-2] = helpRow{k.Quit.Help().Key, "detach or end the run"}
		nav = slices.Insert(nav, len(nav)-2, row(k.Detach))
		typing = append(typing, helpRow{k.Prefix.Help().Key + " " + k.Detach.Help().Key, "detach"})
	}
	return []helpSection{
		{"Navigation (default)", nav},
		{"Gate dialog", []helpRow{
			{"↑↓ 1-9", "choose an answer"},
			{"tab/n", "write the note / reason"},
			{"enter", "answer · esc: later"},
			{"[ ]", "other waiting gates"},
		}},
		{"Typing into a pane", typing},
		{"Scroll mode", []helpRow{
			{"↑↓ kj", "line up / down"},
			{"pgup/pgdn", "page (also b, f)"},
			{"ctrl+u/d", "half page"},
			{"g/G", "oldest / newest"},
			{"/ ?", "search down / up; n N"},
			{"v V", "select, vi moves, y copy"},
			row(k.ExitScroll),
		}},
		{"Mouse", []helpRow{
			{"click", "focus (typing: sent too)"},
			{"drag 2× 3×", "copy selection/word/line"},
			{"wheel", "scroll (or to a program)"},
			{"click", "gate: choose, answer"},
		}},
	}
}

// helpBox is the help overlay: the key map grouped by mode in a box, in
// one column when the terminal is tall enough, else two.
func (a *App) helpBox() []string {
	sections := a.keys.helpSections(a.attached)
	keyW := 0
	for _, s := range sections {
		for _, r := range s.rows {
			keyW = max(keyW, lipgloss.Width(r.keys))
		}
	}
	render := func(ss []helpSection) string {
		var parts []string
		for _, s := range ss {
			lines := []string{a.st.HelpTitle.Render(s.title)}
			for _, r := range s.rows {
				lines = append(lines, " "+a.st.HelpKey.Render(r.keys+blank(keyW-lipgloss.Width(r.keys)))+"  "+a.st.HelpDesc.Render(r.desc))
			}
			parts = append(parts, strings.Join(lines, "\n"))
		}
		return strings.Join(parts, "\n\n")
	}
	body := render(sections)
	// Title, blank, body, blank, hint, and the border: 6 rows around body.
	if strings.Count(body, "\n")+1+6 > a.height {
		// Two columns, split where the taller one is the shortest.
		best, bestH := 1, 1<<30
		for k := 1; k < len(sections); k++ {
			h := max(strings.Count(render(sections[:k]), "\n"), strings.Count(render(sections[k:]), "\n"))
			if h < bestH {
				best, bestH = k, h
			}
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, render(sections[:best]), "   ", render(sections[best:]))
	}
	foot := "any key closes this help"
	if a.readOnly {
		foot = "read-only: watch, move, scroll, detach · " + foot
	}
	content := a.st.HelpTitle.Render("cockpit keys") + "\n\n" + body + "\n\n" + a.st.Hint.Render(foot)
	return strings.Split(a.st.HelpBox.Render(content), "\n")
}
