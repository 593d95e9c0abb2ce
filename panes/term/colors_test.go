package term

import "testing"

func TestParseX11(t *testing.T) {
	for in, want := range map[string]RGB{
		"rgb:ffff/0000/8080": {0xffff, 0, 0x8080},
		"rgb:f/0/8":          {0xffff, 0, 0x8888},
		"rgb:ff/00/80":       {0xffff, 0, 0x8080},
		"rgb:fff/000/800":    {0xffff, 0, 0x8008},
		"RGB:12/34/56":       {0x1212, 0x3434, 0x5656},
		"#fdf6e3":            {0xfdfd, 0xf6f6, 0xe3e3},
		"#fff":               {0xffff, 0xffff, 0xffff},
	} {
		if got, ok := ParseX11(in); !ok || got != want {
			t.Errorf("ParseX11(%q) = %v %v, want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "rgb:", "rgb:1/2", "rgb:1/2/3/4", "rgb:12345/0/0", "rgb:g/0/0", "#12", "#1234", "red", "rgb://"} {
		if got, ok := ParseX11(bad); ok {
			t.Errorf("ParseX11(%q) = %v, want refused", bad, got)
		}
	}
}

func TestPaletteColor(t *testing.T) {
	c := DefaultColors()
	for i, want := range map[int]RGB{1: RGB8(0xcd, 0, 0), 16: RGB8(0, 0, 0), 17: RGB8(0, 0, 95), 196: RGB8(255, 0, 0), 231: RGB8(255, 255, 255), 232: RGB8(8, 8, 8), 255: RGB8(238, 238, 238)} {
		if got := c.PaletteColor(i); got != want {
			t.Errorf("colour %d = %v, want %v", i, got, want)
		}
	}
	if got := string(RGB{0x1234, 0xabcd, 0x0f0f}.AppendX11(nil)); got != "rgb:1234/abcd/0f0f" {
		t.Errorf("AppendX11 = %q", got)
	}
}
