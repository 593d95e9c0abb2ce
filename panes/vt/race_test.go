//go:build race

package vt

const raceEnabled = true
