//go:build !race

package interactive

const raceBuild = false
