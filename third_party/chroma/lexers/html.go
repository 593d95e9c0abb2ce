package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// HTML lexer.
//
// cockpit patch: made on first use (lazy.go), so a chroma.Lexer rather
// than upstream's *chroma.RegexLexer.
var HTML = lazy(func() chroma.Lexer { return chroma.MustNewXMLLexer(embedded, "embedded/html.xml") })
