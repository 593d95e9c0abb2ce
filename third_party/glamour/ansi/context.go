package ansi

import (
	"html"
	"io"
	"strings"

	"charm.land/glamour/v2/internal/nethtml"
)

// RenderContext holds the current rendering options and state.
type RenderContext struct {
	options Options

	blockStack *BlockStack
	table      *TableElement
}

// NewRenderContext returns a new RenderContext.
func NewRenderContext(options Options) RenderContext {
	return RenderContext{
		options:    options,
		blockStack: &BlockStack{},
		table:      &TableElement{},
	}
}

// SanitizeHTML sanitizes HTML content.
func (ctx RenderContext) SanitizeHTML(s string, trimSpaces bool) string {
	s = stripTags(s)
	if trimSpaces {
		s = strings.TrimSpace(s)
	}

	return html.UnescapeString(s)
}

// skipContent are the elements whose text bluemonday's strict policy drops
// (with script and style, whose text it drops as the most recent start tag).
var skipContent = map[string]bool{
	"frame": true, "frameset": true, "iframe": true, "noembed": true, "noframes": true,
	"noscript": true, "nostyle": true, "object": true, "title": true,
}

// stripTags is what upstream's bluemonday.StrictPolicy().Sanitize(s) does
// (bluemonday v1.0.27, sanitize.go, for a policy that allows no element, no
// comment and nothing unsafe): s's text with every tag, comment and doctype
// dropped, HTML-escaped, and nothing of the elements above, of script or of
// style. (cockpit patch: bluemonday's package init compiled its regexps and
// CSS tables — about 2 ms — in every program that links glamour; its
// tokenizer is x/net/html's, used here directly.)
func stripTags(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		b        strings.Builder
		skip     bool   // inside an element of skipContent
		skipping int64  // how deep (bluemonday's count, also when unbalanced)
		recent   string // the most recent start tag not yet closed
	)
	z := nethtml.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == nethtml.ErrorToken {
			if z.Err() == io.EOF {
				return b.String()
			}
			return ""
		}
		t := z.Token()
		switch t.Type {
		case nethtml.StartTagToken:
			recent = t.Data
			if skipContent[t.Data] {
				skip = true
				skipping++
			}
		case nethtml.EndTagToken:
			if recent == t.Data {
				recent = ""
			}
			if skipContent[t.Data] {
				if skipping--; skipping == 0 {
					skip = false
				}
			}
		case nethtml.TextToken:
			if !skip && recent != "script" && recent != "style" {
				b.WriteString(t.String())
			}
		}
	}
}
