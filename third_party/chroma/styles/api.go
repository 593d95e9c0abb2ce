package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// cockpit patch: it is filled on the first call of a function of this
// package (Get, Lookup, Register, Names), not at program start: parsing the
// embedded styles cost every program that links this package milliseconds
// of init. Read it through those functions, which also guard it with a
// lock. (The deprecated variables of upstream's compat.go, one per style,
// are gone: each read the registry at init.)
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style (after the
// registry is filled: Get or Lookup first).
var Fallback *chroma.Style

var (
	registryOnce sync.Once
	registryMu   sync.RWMutex
)

// fill registers all embedded styles, as upstream's initialiser did.
func fill() {
	registryOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		registryMu.Lock()
		defer registryMu.Unlock()
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			Registry[style.Name] = style
			_ = r.Close()
		}
		Fallback = Registry["swapoff"]
	})
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	fill()
	registryMu.Lock()
	defer registryMu.Unlock()
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	fill()
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the named style and whether it is registered (cockpit
// patch: what reading Registry told before it was filled lazily).
func Lookup(name string) (*chroma.Style, bool) {
	fill()
	registryMu.RLock()
	defer registryMu.RUnlock()
	style, ok := Registry[name]
	return style, ok
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	if style, ok := Lookup(name); ok {
		return style
	}
	return Fallback
}
