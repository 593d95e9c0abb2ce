package setup

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/okstra/cockpit/assets"
	"github.com/okstra/cockpit/state"
)

// Languages are the wizard's languages, in the order --lang lists them.
var Languages = []string{"ko", "en"}

// Texts are the wizard's texts in one language, read from
// assets/prompts/wizard.<lang>.json and addressed by dotted keys
// ("steps.task_key.title").
type Texts struct {
	Lang string
	flat map[string]string
}

// LoadTexts reads the embedded prompt file of lang.
func LoadTexts(lang string) (*Texts, error) {
	return loadTextsFS(assets.FS, lang)
}

func loadTextsFS(fsys fs.FS, lang string) (*Texts, error) {
	name := "prompts/wizard." + lang + ".json"
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read wizard prompts %s: %w", name, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("wizard prompts %s: %w", name, err)
	}
	t := &Texts{Lang: lang, flat: map[string]string{}}
	flatten("", doc, t.flat)
	return t, nil
}

func flatten(prefix string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
	case string:
		out[prefix] = v
	}
}

// Keys lists every text key, sorted.
func (t *Texts) Keys() []string {
	out := make([]string, 0, len(t.flat))
	for k := range t.flat {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Raw returns the text of key as written, or the key itself when the file
// lacks it (so a missing text shows up on screen instead of vanishing).
func (t *Texts) Raw(key string) string {
	if s, ok := t.flat[key]; ok {
		return s
	}
	return key
}

// T returns the text of key with its {name} placeholders filled from args,
// given as name, value pairs.
func (t *Texts) T(key string, args ...string) string {
	s := t.Raw(key)
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", args[i+1])
	}
	return s
}

// DetectLang picks the wizard's language: flag when given (ko or en, or a
// locale such as ko_KR.UTF-8), else the first set of LC_ALL, LC_MESSAGES and
// LANG (POSIX order): Korean when it starts with "ko", English otherwise.
func DetectLang(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		l := strings.ToLower(flag)
		switch {
		case l == "ko" || strings.HasPrefix(l, "ko_") || strings.HasPrefix(l, "ko-"):
			return "ko", nil
		case l == "en" || strings.HasPrefix(l, "en_") || strings.HasPrefix(l, "en-"):
			return "en", nil
		}
		return "", &state.Error{Field: "--lang", Msg: fmt.Sprintf("is %q; expected ko or en", flag)}
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := getenv(v); s != "" {
			if strings.HasPrefix(strings.ToLower(s), "ko") {
				return "ko", nil
			}
			return "en", nil
		}
	}
	return "en", nil
}
