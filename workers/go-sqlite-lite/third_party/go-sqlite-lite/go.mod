module github.com/bvinc/go-sqlite-lite
