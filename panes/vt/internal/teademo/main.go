// Command teademo owns a small bubbletea program used only to make a
// recording for the emulator's differential tests: an alternate-screen list
// in a rounded lipgloss box with a moving selection, a progress bar and a
// spinner, redrawn by bubbletea's renderer (cursor addressing, synchronized
// output, truecolour). 'j'/'k' move, 'q' quits; it also quits by itself.
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

type tick time.Time

type model struct {
	items  []string
	cursor int
	frame  int
}

func (m model) Init() tea.Cmd { return next() }

func next() tea.Cmd {
	return tea.Tick(80*time.Millisecond, func(t time.Time) tea.Msg { return tick(t) })
}

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "q", "ctrl+c":
			return m, tea.Quit
		case "j", "down":
			m.cursor = min(m.cursor+1, len(m.items)-1)
		case "k", "up":
			m.cursor = max(m.cursor-1, 0)
		}
	case tick:
		m.frame++
		if m.frame > 60 {
			return m, tea.Quit
		}
		return m, next()
	}
	return m, nil
}

var (
	box      = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("#7D56F4")).Padding(0, 1)
	title    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FAFAFA")).Background(lipgloss.Color("#7D56F4")).Padding(0, 1)
	selected = lipgloss.NewStyle().Foreground(lipgloss.Color("#04B575")).Bold(true)
	dim      = lipgloss.NewStyle().Foreground(lipgloss.Color("241"))
	bar      = lipgloss.NewStyle().Foreground(lipgloss.Color("212"))
)

func (m model) View() tea.View {
	var b strings.Builder
	b.WriteString(title.Render("workers") + "\n\n")
	spin := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}[m.frame%10]
	for i, it := range m.items {
		if i == m.cursor {
			b.WriteString(selected.Render("▸ "+it+" "+spin) + "\n")
		} else {
			b.WriteString(dim.Render("  "+it) + "\n")
		}
	}
	done := m.frame * 30 / 60
	b.WriteString("\n" + bar.Render(strings.Repeat("█", done)) + dim.Render(strings.Repeat("░", 30-done)))
	b.WriteString(fmt.Sprintf(" %3d%%", m.frame*100/60))
	v := tea.NewView(box.Render(b.String()))
	v.AltScreen = true
	v.WindowTitle = "teademo"
	return v
}

func main() {
	m := model{items: []string{"planner", "coder 1", "coder 2", "reviewer", "tester 漢字", "docs ✓"}}
	if _, err := tea.NewProgram(m).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "teademo:", err)
		os.Exit(1)
	}
}
