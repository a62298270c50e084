// Package archtest holds the import rules of litebench's layers, checked
// by its test over 'go list': which packages may not import which. The
// rules and their reasons are in rules.go; ARCHITECTURE.md at the
// repository's root describes the layers they keep apart.
package archtest
