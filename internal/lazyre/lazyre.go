// Package lazyre owns regular expressions compiled on their first use.
//
// A package-level regexp.MustCompile runs in the package's init, which
// every command of the one cockpit binary pays for, the headless ones a
// lead calls many times a run included (docs/DECISIONS.md 86). A Regexp
// declared as a composite literal of constants is laid out by the linker
// and needs no init code at all:
//
//	var idRE = &lazyre.Regexp{Pattern: `^C-[0-9]+$`}
//	...
//	idRE.Get().MatchString(id)
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is Pattern, compiled by the first Get. Pattern must compile: Get
// panics as regexp.MustCompile does when it does not.
type Regexp struct {
	Pattern string

	once sync.Once
	re   *regexp.Regexp
}

// Get is the compiled Pattern; safe for concurrent use.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.Pattern) })
	return r.re
}
