package wizard

import (
	"image/color"
	"sync/atomic"

	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/okstra/cockpit/workers/setup"
)

// Palette holds the wizard's semantic colours. They are the cockpit
// screen's tokens (tui.DefaultPalette): basic ANSI colours, so the user's
// terminal theme decides the shades. The wizard does not import tui, so the
// screen may embed the wizard later without an import cycle.
type Palette struct {
	Accent color.Color // focus, titles, the selection marker
	Muted  color.Color // descriptions, help, defaults
	Good   color.Color // chosen options
	Bad    color.Color // refusals
	Warn   color.Color // notes
}

// DefaultPalette is the palette used when colour is on.
func DefaultPalette() Palette {
	return Palette{
		Accent: lipgloss.Color("6"),
		Muted:  lipgloss.Color("8"),
		Good:   lipgloss.Color("2"),
		Bad:    lipgloss.Color("1"),
		Warn:   lipgloss.Color("3"),
	}
}

// Styles is every style the wizard draws with, built from a Palette. With
// colour off it uses attributes only (bold, faint, reverse).
type Styles struct {
	NoColor bool
	Title   lipgloss.Style
	Counter lipgloss.Style
	Rule    lipgloss.Style
	Crumb   lipgloss.Style
	Label   lipgloss.Style
	Muted   lipgloss.Style
	Error   lipgloss.Style
	Warn    lipgloss.Style
	Help    lipgloss.Style
	palette Palette
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
	st := Styles{NoColor: noColor, palette: p}
	st.Title = fg(p.Accent).Bold(true)
	st.Counter = fg(p.Muted)
	st.Rule = fg(p.Muted)
	st.Crumb = fg(p.Muted)
	st.Label = fg(p.Accent).Bold(true)
	st.Muted = fg(p.Muted)
	st.Error = fg(p.Bad).Bold(true)
	st.Warn = fg(p.Warn)
	st.Help = fg(p.Muted)
	if noColor {
		st.Muted = st.Muted.Faint(true)
		st.Help = st.Help.Faint(true)
	}
	return st
}

// HuhTheme is the form's theme in the same tokens: huh's base theme with the
// cockpit's colours, or with none. huh asks a field's theme for its styles
// every time it draws or measures the field (each option of a select, each
// key), and a ThemeFunc builds them anew each time: ≈40% of the wizard's
// CPU went to rebuilding one unchanging theme. So the styles are built once
// per background (light, dark) and shared; huh reads them and never writes
// to them.
func (st Styles) HuhTheme() huh.Theme {
	var built [2]atomic.Pointer[huh.Styles]
	return huh.ThemeFunc(func(isDark bool) *huh.Styles {
		i := 0
		if isDark {
			i = 1
		}
		if t := built[i].Load(); t != nil {
			return t
		}
		t := st.huhStyles(isDark)
		built[i].CompareAndSwap(nil, t)
		return built[i].Load()
	})
}

// huhStyles builds HuhTheme's styles for one background.
func (st Styles) huhStyles(isDark bool) *huh.Styles {
	t := huh.ThemeBase(isDark)
	p := st.palette
	fg := func(base lipgloss.Style, c color.Color) lipgloss.Style {
		if st.NoColor {
			return base
		}
		return base.Foreground(c)
	}
	f := &t.Focused
	f.Base = f.Base.BorderForeground(p.Accent)
	if st.NoColor {
		f.Base = f.Base.UnsetBorderForeground()
	}
	f.Card = f.Base
	f.Title = fg(f.Title, p.Accent).Bold(true)
	f.NoteTitle = fg(f.NoteTitle, p.Accent).Bold(true)
	f.Description = fg(f.Description, p.Muted)
	f.ErrorIndicator = fg(f.ErrorIndicator, p.Bad)
	f.ErrorMessage = fg(f.ErrorMessage, p.Bad)
	f.SelectSelector = fg(f.SelectSelector, p.Accent)
	f.NextIndicator = fg(f.NextIndicator, p.Accent)
	f.PrevIndicator = fg(f.PrevIndicator, p.Accent)
	f.Option = lipgloss.NewStyle()
	f.MultiSelectSelector = fg(f.MultiSelectSelector, p.Accent)
	f.SelectedOption = fg(f.SelectedOption, p.Good)
	f.SelectedPrefix = fg(lipgloss.NewStyle().SetString("[x] "), p.Good)
	f.UnselectedPrefix = lipgloss.NewStyle().SetString("[ ] ")
	f.UnselectedOption = lipgloss.NewStyle()
	f.TextInput.Cursor = fg(f.TextInput.Cursor, p.Accent)
	f.TextInput.Placeholder = fg(lipgloss.NewStyle(), p.Muted)
	if st.NoColor {
		f.TextInput.Placeholder = f.TextInput.Placeholder.Faint(true)
		f.FocusedButton = lipgloss.NewStyle().Padding(0, 2).MarginRight(1).Reverse(true)
		f.BlurredButton = lipgloss.NewStyle().Padding(0, 2).MarginRight(1)
	} else {
		f.FocusedButton = f.FocusedButton.Foreground(lipgloss.Color("0")).Background(p.Accent)
		f.BlurredButton = f.BlurredButton.Foreground(p.Muted).UnsetBackground()
	}
	f.TextInput.Prompt = fg(f.TextInput.Prompt, p.Accent)

	b := &t.Blurred
	*b = *f
	b.Base = b.Base.BorderStyle(lipgloss.HiddenBorder())
	b.Card = b.Base
	b.Title = fg(lipgloss.NewStyle(), p.Muted)
	b.MultiSelectSelector = lipgloss.NewStyle().SetString("  ")
	b.NextIndicator = lipgloss.NewStyle()
	b.PrevIndicator = lipgloss.NewStyle()
	t.Group.Title = f.Title
	t.Group.Description = f.Description
	return t
}

// displayWidth is the number of cells s takes (Hangul takes two).
func displayWidth(s string) int { return ansi.StringWidth(s) }

// summary styles the outcome's summary on the confirm step.
func (st Styles) summary() setup.SummaryStyle {
	return setup.SummaryStyle{
		Label: func(s string) string { return st.Label.Render(s) },
		Muted: func(s string) string { return st.Muted.Render(s) },
	}
}
