package lexers

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// lazyLexer is a lexer made on first use (cockpit patch: the lexers this
// package's files built from embedded XML at init — parsing their
// configurations and building their keyword tables — cost every program
// that links this package at start).
type lazyLexer struct {
	make func() chroma.Lexer
	once sync.Once
	l    chroma.Lexer
}

func lazy(make func() chroma.Lexer) chroma.Lexer { return &lazyLexer{make: make} }

func (z *lazyLexer) get() chroma.Lexer {
	z.once.Do(func() { z.l = z.make() })
	return z.l
}

func (z *lazyLexer) Config() *chroma.Config { return z.get().Config() }

func (z *lazyLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return z.get().Tokenise(options, text)
}

func (z *lazyLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	z.get().SetRegistry(registry)
	return z
}

func (z *lazyLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	z.get().SetAnalyser(analyser)
	return z
}

func (z *lazyLexer) AnalyseText(text string) float32 { return z.get().AnalyseText(text) }
