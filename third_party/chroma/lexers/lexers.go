package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// cockpit patch: it is filled on the first call of a function of this
// package (Get, Names, Match, Analyse, ...), not at program start: parsing
// the embedded lexers' configurations cost every program that links this
// package milliseconds of init. Read it through those functions.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	registryOnce sync.Once
	registryMu   sync.Mutex
	pending      []chroma.Lexer // Register'd before the registry was filled, in order
	fillHooks    []func()       // this package's init work on registered lexers
	filled       bool
)

// onFill runs f once the registry is filled (upstream ran it at init, after
// the registry's initialiser and the Register calls of this package's
// files). f reads GlobalLexerRegistry directly.
func onFill(f func()) { fillHooks = append(fillHooks, f) }

// registry fills GlobalLexerRegistry as upstream's initialiser did — the
// embedded lexers, then the ones this package's files Register, in the
// order they registered — and returns it.
func registry() *chroma.LexerRegistry {
	registryOnce.Do(func() {
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		registryMu.Lock()
		defer registryMu.Unlock()
		for _, l := range pending {
			GlobalLexerRegistry.Register(l)
		}
		pending, filled = nil, true
		for _, f := range fillHooks {
			f()
		}
	})
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return registry().Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return registry().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return registry().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return registry().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	registryMu.Lock()
	if !filled {
		pending = append(pending, lexer)
		registryMu.Unlock()
		return lexer
	}
	registryMu.Unlock()
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return registry().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
