//go:build !race

package vt

const raceEnabled = false
