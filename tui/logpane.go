package tui

// logPane is a finished worker's log replayed from <prompt>.log.
type logPane struct{}
