package lazyre

import (
	"sync"
	"testing"
)

var testRE = &Regexp{Pattern: `^C-([0-9]+)$`}

func TestGetCompilesOnceForEveryone(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = testRE.Get() })
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("Get %d returned another Regexp than Get 0", i)
		}
	}
	if m := testRE.Get().FindStringSubmatch("C-12"); len(m) != 2 || m[1] != "12" {
		t.Fatalf("C-12: %q", m)
	}
	if testRE.Get().MatchString("C-x") {
		t.Fatal("C-x matched")
	}
}

func TestBadPatternPanicsAtFirstUse(t *testing.T) {
	bad := &Regexp{Pattern: `(`}
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern that does not compile did not panic")
		}
	}()
	bad.Get()
}
