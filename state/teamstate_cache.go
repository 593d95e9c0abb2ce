package state

import (
	"hash/maphash"
	"sync"
)

// tsCache remembers, per team-state path, the last document this process
// wrote, and hands it to the next writer of that path, who then owns it. A
// writer that finds those exact bytes on disk (no one else wrote in between)
// skips decoding; any other bytes are decoded as usual, so the cache can only
// save work, never change a result.
var tsCache struct {
	sync.Mutex
	m map[string]tsCached
}

type tsCached struct {
	sum uint64
	ts  *TeamState
	doc *teamStateDoc
}

var tsSeed = maphash.MakeSeed()

func cacheTake(path string, data []byte) (*TeamState, *teamStateDoc) {
	tsCache.Lock()
	c, ok := tsCache.m[path]
	delete(tsCache.m, path)
	tsCache.Unlock()
	if !ok || len(c.doc.data) != len(data) || c.sum != maphash.Bytes(tsSeed, data) {
		return nil, nil
	}
	c.doc.data = data // identical bytes; drop the reference to the old buffer
	return c.ts, c.doc
}

func cachePut(path string, ts *TeamState, doc *teamStateDoc) {
	tsCache.Lock()
	defer tsCache.Unlock()
	if tsCache.m == nil || len(tsCache.m) > 64 {
		tsCache.m = map[string]tsCached{}
	}
	tsCache.m[path] = tsCached{sum: maphash.Bytes(tsSeed, doc.data), ts: ts, doc: doc}
}

// cachePeek returns a copy of the state this process last wrote to path
// when data are still those bytes, without taking it from the cache.
func cachePeek(path string, data []byte) *TeamState {
	// The copy is made under the lock: once a writer has taken the state
	// (cacheTake, under the same lock) it changes it in place.
	tsCache.Lock()
	defer tsCache.Unlock()
	c, ok := tsCache.m[path]
	if !ok || len(c.doc.data) != len(data) || c.sum != maphash.Bytes(tsSeed, data) {
		return nil
	}
	out := *c.ts
	out.Workers = append([]Worker(nil), c.ts.Workers...)
	out.WorkerDispatches = append([]Dispatch(nil), c.ts.WorkerDispatches...)
	if c.ts.TeamCreate != nil {
		tc := *c.ts.TeamCreate
		out.TeamCreate = &tc
	}
	return &out
}
