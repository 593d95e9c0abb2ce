package vt

// diffCorpus is a set of sequences exercising most of what the emulator
// supports; the differential tests compare each against x/vt and the
// chunking test feeds them all as one stream.
var diffCorpus = []string{
	"hello\r\nworld\r\n",
	"\x1b[1;31mred\x1b[0m \x1b[4munder\x1b[24m \x1b[38;5;202mindexed\x1b[m \x1b[48;2;10;20;30mtrue\x1b[m\r\n",
	"漢字とカナ mixed 한국어\r\n",
	"0123456789012345678901234567890123456789012345678901234567890123456789012345678漢\r\n",
	"\x1b[2J\x1b[5;5Hx\x1b[Ay\x1b[10Cz\x1b[3Bw\r\n",
	"a\tb\tc\td\r\n",
	"\x1b(0lqqqk\r\nx  x\r\nmqqqj\x1b(B\r\n",
	"e\u0301 cafe\u0301\r\n",
	"\x1b[?1049h\x1b[Halt screen\x1b[?1049l",
	"\x1b[3;10r\x1b[10;1H\n\n\nscrolled\x1b[r\r\n",
	"\x1b[5;1Hinsert\x1b[5;3H\x1b[2@\x1b[1P\x1b[3X\r\n",
	"\x1b[7;1H\x1b[2L\x1b[1M\x1b[K\x1b[1K\r\n",
	"progress 10%\rprogress 50%\rprogress 100%\r\n",
	"\x1b7\x1b[20;20Hsaved\x1b8restored\r\n",
	"\x1b[1;2;3;4;5;7;9mall\x1b[m\r\n",
	"\x1b]2;title\a\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\r\n",
	"\x1b[S\x1b[T\x1b[2S\r\n",
	"\x1b[10;10H\x1b[J\x1b[1J\x1b[H",
	"\x1b[?7lno wrap here ............................................................................................\x1b[?7h\r\n",
}
