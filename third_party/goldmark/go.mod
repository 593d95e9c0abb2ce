module github.com/yuin/goldmark

go 1.19
