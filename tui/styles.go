package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Palette holds the few semantic colour tokens every style is built from.
// Basic ANSI colours are used so the user's terminal theme decides the
// actual shades, as tmux and zellij do by default.
type Palette struct {
	Accent color.Color // focus, the mode badge
	Muted  color.Color // separators, unfocused titles, timestamps
	Good   color.Color // done
	Bad    color.Color // error, problems reading the run
	Warn   color.Color // timeout, attention, confirmations
	Info   color.Color // running
}

// DefaultPalette is the palette used when colour is on.
func DefaultPalette() Palette {
	return Palette{
		Accent: lipgloss.Color("6"),
		Muted:  lipgloss.Color("8"),
		Good:   lipgloss.Color("2"),
		Bad:    lipgloss.Color("1"),
		Warn:   lipgloss.Color("3"),
		Info:   lipgloss.Color("4"),
	}
}

// Styles is every style the screen uses. It is built once from a Palette;
// with colour off it uses attributes only (bold, reverse, faint), and the
// glyphs and the focus marker carry the meaning on their own.
type Styles struct {
	NoColor bool

	Header      lipgloss.Style
	HeaderTitle lipgloss.Style
	HeaderNext  lipgloss.Style
	HeaderErr   lipgloss.Style

	// Title bars: unfocused and focused, the separator between panes.
	Title        lipgloss.Style
	TitleFocused lipgloss.Style
	TitleDim     lipgloss.Style // secondary text in a title bar
	Separator    lipgloss.Style

	// Status glyphs by state.
	Running   lipgloss.Style
	Done      lipgloss.Style
	Failed    lipgloss.Style
	TimedOut  lipgloss.Style
	NotRun    lipgloss.Style
	Attention lipgloss.Style

	Status     lipgloss.Style // the status line's base
	ModeBadge  lipgloss.Style
	Prompt     lipgloss.Style // a confirmation question
	Notice     lipgloss.Style
	Hint       lipgloss.Style
	Tab        lipgloss.Style
	TabFocused lipgloss.Style

	TimelineTitle lipgloss.Style
	TimelineTime  lipgloss.Style
	TimelineLine  lipgloss.Style

	HelpBox   lipgloss.Style
	GateBox   lipgloss.Style
	HelpTitle lipgloss.Style
	HelpKey   lipgloss.Style
	HelpDesc  lipgloss.Style

	Empty lipgloss.Style
}

// NewStyles builds the styles from p; noColor drops every colour.
func NewStyles(p Palette, noColor bool) Styles {
	s := lipgloss.NewStyle
	fg := func(c color.Color) lipgloss.Style {
		if noColor {
			return s()
		}
		return s().Foreground(c)
	}
	st := Styles{NoColor: noColor}

	st.Header = s()
	st.HeaderTitle = s().Bold(true)
	st.HeaderNext = fg(p.Accent)
	st.HeaderErr = fg(p.Bad).Bold(true)

	st.Title = fg(p.Muted)
	st.TitleFocused = fg(p.Accent).Bold(true)
	st.TitleDim = fg(p.Muted)
	st.Separator = fg(p.Muted)

	st.Running = fg(p.Info)
	st.Done = fg(p.Good)
	st.Failed = fg(p.Bad).Bold(true)
	st.TimedOut = fg(p.Warn)
	st.NotRun = fg(p.Muted)
	st.Attention = fg(p.Warn).Bold(true)

	st.Status = s()
	if noColor {
		st.ModeBadge = s().Reverse(true).Bold(true)
	} else {
		st.ModeBadge = s().Foreground(lipgloss.Color("0")).Background(p.Accent).Bold(true)
	}
	st.Prompt = fg(p.Warn).Bold(true)
	st.Notice = fg(p.Warn)
	st.Hint = fg(p.Muted)
	st.Tab = fg(p.Muted)
	st.TabFocused = fg(p.Accent).Bold(true).Reverse(noColor)

	st.TimelineTitle = fg(p.Muted)
	st.TimelineTime = fg(p.Muted)
	st.TimelineLine = s()

	st.HelpBox = s().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if !noColor {
		st.HelpBox = st.HelpBox.BorderForeground(p.Accent)
	}
	st.GateBox = s().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if !noColor {
		st.GateBox = st.GateBox.BorderForeground(p.Warn)
	}
	st.HelpTitle = s().Bold(true)
	st.HelpKey = fg(p.Accent).Bold(true)
	st.HelpDesc = s()

	st.Empty = fg(p.Muted)
	return st
}
