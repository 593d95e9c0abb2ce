package wizard

import "testing"

// TestHuhThemeIsBuiltOncePerBackground holds the theme cache: huh asks for
// a field's styles on every draw, and rebuilding them was ≈40% of the
// wizard's CPU. Each background's styles are built once and shared, and the
// two backgrounds keep their own.
func TestHuhThemeIsBuiltOncePerBackground(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		th := NewStyles(DefaultPalette(), noColor).HuhTheme()
		dark, light := th.Theme(true), th.Theme(false)
		if dark == light {
			t.Fatalf("noColor=%v: the dark and light styles are one value", noColor)
		}
		for range 3 {
			if th.Theme(true) != dark || th.Theme(false) != light {
				t.Fatalf("noColor=%v: the styles were built again", noColor)
			}
		}
		if got, want := dark.Focused.Title.Render("x"), NewStyles(DefaultPalette(), noColor).huhStyles(true).Focused.Title.Render("x"); got != want {
			t.Fatalf("noColor=%v: the cached title renders %q, a fresh build %q", noColor, got, want)
		}
	}
}
