module github.com/qeval/qeval

go 1.26.8

require (
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
