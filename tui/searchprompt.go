package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// searchPrompt is the search query being typed on the status line (/ or ?
// in scroll mode): a bubbles/textinput. enter searches (an empty query
// searches the last one again, as vi does), esc gives up, backspace on
// an empty query gives up too; a paste types its first line.
type searchPrompt struct {
	env      *screenEnv
	backward bool
	last     string // the last query, for an empty one
	input    textinput.Model
}

func newSearchPrompt(env *screenEnv, backward bool, last string) *searchPrompt {
	ti := textinput.New()
	ti.Prompt = ""
	ti.KeyMap = env.keys.Prompt.Edit
	ti.SetStyles(inputStyles(env.st))
	ti.Focus()
	return &searchPrompt{env: env, backward: backward, last: last, input: ti}
}

func (p *searchPrompt) HandleMsg(msg tea.Msg) action {
	k := p.env.keys.Prompt
	switch msg := msg.(type) {
	case tea.PasteMsg:
		text := msg.Content
		if i := strings.IndexAny(text, "\r\n"); i >= 0 {
			text = text[:i]
		}
		p.input, _ = p.input.Update(tea.PasteMsg{Content: text})
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Cancel):
			return actClose{}
		case key.Matches(msg, k.Submit):
			q := p.input.Value()
			if q == "" {
				q = p.last
			}
			if q == "" {
				return actClose{}
			}
			return actions{actClose{}, actSearch{query: q, backward: p.backward}}
		case key.Matches(msg, k.Edit.DeleteCharacterBackward) && p.input.Value() == "":
			return actClose{}
		default:
			p.input, _ = p.input.Update(msg)
		}
	}
	return nil
}

func (p *searchPrompt) Draw([]string) {}

// StatusLine is the prompt: / or ?, then the query with its cursor; the
// end of a long query shows, as a shell line does.
func (p *searchPrompt) StatusLine(w int) string {
	lead := "/"
	if p.backward {
		lead = "?"
	}
	p.input.SetWidth(max(w-3, 1))
	v := p.input.View()
	if ansi.StringWidth(v) > w-2 {
		v = ansi.TruncateLeft(v, ansi.StringWidth(v)-(w-2), "")
	}
	return fit(" "+p.env.st.Prompt.Render(lead)+v, w)
}

func (p *searchPrompt) Hint() string  { return "" }
func (p *searchPrompt) Badge() string { return "SEARCH" }
